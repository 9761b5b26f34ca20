// A remote agent in Node.js (standard library only), written from docs/protocol.md and
// openmono/data/protocol-v1.schema.json: it plays a random legal action at every
// decision, and in an auction sometimes bids above the highest bid.
//
//     node examples/node_client.js --port 7300 --token SECRET
"use strict";
const net = require("net");

const VERSION = 1; // the protocol version this client speaks

function option(name, fallback) {
  const i = process.argv.indexOf("--" + name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// A small seeded generator (mulberry32), so a game's seed gives the same choices.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function choose(obs, random, fallback) {
  const legal = obs.legal_actions; // action objects, e.g. {"kind": "mortgage", "square": 18}
  if (legal.length === 0) return fallback;
  let action = legal[Math.floor(random() * legal.length)];
  if (action.kind === "bid") {
    const top = obs.high_bid + 1 + Math.floor(random() * 20);
    if (top <= obs.cash[obs.seat]) action = { kind: "bid", amount: top };
  }
  return action;
}

function play(host, port, token) {
  const socket = net.connect({ host, port });
  const send = (message) => socket.write(JSON.stringify(message) + "\n");
  let random = generator(0);
  let buffer = "";
  let games = 0;
  socket.on("connect", () => send({ type: "hello", version: VERSION, token, agent: "node_client" }));
  socket.on("data", (chunk) => {
    buffer += chunk.toString("utf8");
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const msg = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      if (msg.type === "refused") {
        console.error("refused: " + msg.reason);
        process.exit(1);
      } else if (msg.type === "begin_game") {
        random = generator(msg.seed || 0);
      } else if (msg.type === "decide") {
        send({ type: "action", id: msg.id, action: choose(msg.observation, random, msg.default) });
      } else if (msg.type === "report_request") {
        send({ type: "report", id: msg.id, report: { detected: false, confidence: 0.0, changes: [] } });
      } else if (msg.type === "end_game") {
        games += 1;
      } else if (msg.type === "bye") {
        console.error(`played ${games} games`);
        socket.end();
      }
    }
  });
  socket.on("error", (err) => {
    if (err.code === "ECONNREFUSED") return setTimeout(() => play(host, port, token), 100);
    console.error(err.message);
    process.exit(1);
  });
}

const token = option("token", process.env.OPENMONO_TOKEN);
if (!token) {
  console.error("usage: node examples/node_client.js --port PORT --token TOKEN");
  process.exit(2);
}
play(option("host", "127.0.0.1"), Number(option("port", "7300")), token);
