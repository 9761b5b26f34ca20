"""Seeded DRL games recorded as digests, to check that speed work leaves play unchanged.

`python tests/drl_same_play.py OUT.json` writes the records of the games in `CASES`
(run it on the commit whose play is the reference); `test_drl_same_play.py` replays
them on the working tree and compares.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from typing import Any

import openmono
from agents.registry import make_agent

# (agent, rule set, novelty or None, seed): standard and GNOME rules, a reordered board
# and renamed properties (the encoder's slots by name); the PPO agents on two seeds each,
# the DDQN agents on one.
RULES = (("standard", None), ("gnome", None), ("standard", "board_shuffle"),
         ("standard", "renamed_properties"))
CASES: tuple[tuple[str, str, str | None, int], ...] = tuple(
    (agent, rules, novelty, seed)
    for agent, seeds in (("hybrid_ppo", (11, 12)), ("ppo", (11, 12)), ("hybrid_ddqn", (13,)),
                         ("ddqn", (13,)))
    for rules, novelty in RULES
    for seed in seeds)


def play_case(agent_name: str, rules: str, novelty: str | None, seed: int) -> dict[str, Any]:
    """One game of `agent_name` against fp_a, fp_b, fp_c: its winner, length, the digest
    of its JSON-lines log (every event and action) and of the DRL agent's decisions."""
    schema = openmono.rules_schema(rules)
    hooks: dict[str, Any] = {}
    if novelty is not None:
        from novelties.registry import apply_novelty
        applied = apply_novelty(novelty, schema, "hard")
        schema, hooks = applied.schema, {"hooks": applied.hooks}
    agent = make_agent(agent_name, detector="none")
    inner = agent.act
    decisions: list[str] = []

    def recorded(obs: Any) -> Any:
        action = inner(obs)
        decisions.append(repr(action))
        return action

    agent.act = recorded
    log = io.StringIO()
    result = openmono.play_game(schema, [agent, *(make_agent(o) for o in ("fp_a", "fp_b", "fp_c"))],
                                seed=seed, log=log, **hooks)

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:16]
    return {"case": [agent_name, rules, novelty, seed], "winner": result.winner_seat,
            "turns": result.turns, "decisions": len(decisions),
            "decisions_digest": digest("\n".join(decisions)),
            "log_digest": digest(log.getvalue())}


def main(path: str) -> None:
    records = [play_case(*case) for case in CASES]
    with open(path, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
