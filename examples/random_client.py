"""A remote agent in plain Python (standard library only): it plays a random legal
action at every decision. A template for clients in other languages: all it needs is
a TCP socket, JSON, and the messages of docs/protocol.md.

    python examples/random_client.py --port 7300 --token SECRET
"""

import argparse
import json
import random
import socket
import sys
import time

VERSION = 1  # the protocol version this client speaks


def connect(host, port, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection((host, port), timeout=timeout)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def send(sock, message):
    sock.sendall(json.dumps(message).encode() + b"\n")


def choose(observation, rng):
    """A random legal action; in an auction, sometimes a bid above the highest."""
    legal = observation["legal_actions"]
    action = rng.choice(legal)
    if action["kind"] == "bid":
        top = observation["high_bid"] + rng.randint(1, 20)
        if top <= observation["cash"][observation["seat"]]:
            action = {"kind": "bid", "amount": top}
    return action


def play(host, port, token, seed=0):
    rng = random.Random(seed)
    sock = connect(host, port)
    sock.settimeout(None)
    reader = sock.makefile("rb")
    send(sock, {"type": "hello", "version": VERSION, "token": token, "agent": "random_client"})
    games = 0
    for line in reader:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "refused":
            print("refused: " + msg["reason"], file=sys.stderr)
            return -1
        if kind == "begin_game" and msg.get("seed") is not None:
            rng.seed(msg["seed"])
        elif kind == "decide":
            action = choose(msg["observation"], rng)
            send(sock, {"type": "action", "id": msg["id"], "action": action})
        elif kind == "report_request":
            send(sock, {"type": "report", "id": msg["id"],
                        "report": {"detected": False, "confidence": 0.0, "changes": []}})
        elif kind == "end_game":
            games += 1
        elif kind == "bye":
            break
    sock.close()
    return games


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7300)
    p.add_argument("--token", required=True)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    games = play(args.host, args.port, args.token, args.seed)
    print(f"played {games} games", file=sys.stderr)
    return 0 if games >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
