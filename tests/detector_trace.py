"""Record and replay the planner's novelty detector (issue 30: the detector split must
make the same detections as before).

A *trace* is everything a `NoveltyDetector` was given in a trial, in order (each call of
`observe`, `end_game` and `announce`, with its argument), and what anyone could read
from it after each call: `detected`, `version`, the believed schema (its digest),
`report()` (its repr: the changes in order, values and confidence), the evidence
strings, and the exception the call raised, if any. Because the planner reads nothing
else from its detector, equal outputs at every step mean equal play, so replaying a
trace recorded under the old code into the new one and finding no difference shows
that the new code makes the same reports on the same trials.

    python tests/detector_trace.py record --out /work/scratch/detector_traces
    python tests/detector_trace.py replay /work/scratch/detector_traces

Run both with the same `PYTHONHASHSEED` (e.g. `PYTHONHASHSEED=0`): the detector (old
and new alike) reports the changes of several changed decks in the order it iterates a
set of deck names, which follows the process's string hashing; a trace records the
`PYTHONHASHSEED` it was made under and a replay under another one says so.

A trace is one pickle (gzip) per trial: the calls are pickled together, so an
observation's rules object is shared between calls as it was in play (the detector
re-reads the rules only when `obs.rules` is another object). Outputs are stored only
when they change (step index, outputs), which is the same as storing every step.
"""

from __future__ import annotations

import argparse
import gzip
import os
import hashlib
import pickle
import subprocess
import sys
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable

Outputs = tuple  # (detected, version, schema digest, repr(report), evidence, error)


def _proxy(items: dict) -> MappingProxyType:
    """Rebuilds a read-only mapping of an observation (pickle cannot save one)."""
    return MappingProxyType(items)


class _Pickler(pickle.Pickler):
    """Pickles observations: read-only mappings as `_proxy(dict)`, each once (pickle
    memoizes them, so a mapping shared between observations stays shared)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is MappingProxyType:
            return _proxy, (dict(obj),)
        return NotImplemented


def dump(trace: dict, fh: Any) -> None:
    _Pickler(fh, protocol=pickle.HIGHEST_PROTOCOL).dump(trace)


def outputs(det: Any, error: str | None, digests: dict) -> Outputs:
    """What the planner (and anyone) can read from a detector after a call."""
    schema = det.believed_schema
    if digests.get("schema") is not schema:
        digests["schema"] = schema
        digests["digest"] = hashlib.sha256(schema.model_dump_json().encode()).hexdigest()
    return (det.detected, det.version, digests["digest"], repr(det.report()),
            tuple(det.evidence), error)


class Recording:
    """Stands in for an agent's detector: forwards every call, and records the inputs
    of `observe`, `end_game` and `announce` and the outputs after each."""

    def __init__(self, det: Any) -> None:
        self.det = det
        self.calls: list[tuple[str, tuple]] = []
        self.changes: list[tuple[int, Outputs]] = []
        self._digests: dict = {}
        self._last: Outputs | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.det, name)

    def _call(self, method: str, *args: Any) -> Any:
        self.calls.append((method, args))
        error = None
        try:
            return getattr(self.det, method)(*args)
        except Exception as exc:  # noqa: BLE001 - recorded, then raised as before
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            out = outputs(self.det, error, self._digests)
            if out != self._last:
                self.changes.append((len(self.calls) - 1, out))
                self._last = out

    def observe(self, obs: Any) -> None:
        self._call("observe", obs)

    def end_game(self, result: Any = None) -> None:
        self._call("end_game", result)

    def announce(self) -> None:
        self._call("announce")


def replay(trace: dict, make: Callable[[Any], Any]) -> tuple[int, list[str]]:
    """Feed a trace's calls to `make(prior)` and compare the outputs at every step;
    returns (steps compared, differences). The trial's novelty is applied first, as in
    the trial's process: a plugin registers its square and card kinds, which the
    detector's beliefs know (`openmono.kinds`)."""
    if trace["novelty"]:
        from evaluation.harness.novelty_setup import prepare_novelty
        from openmono.schema import rules_schema

        prepare_novelty(trace["novelty"], trace["difficulty"], {}, rules_schema("standard"))
    det = make(trace["prior"])
    digests: dict = {}
    expected = dict(trace["changes"])
    want: Outputs | None = None
    diffs: list[str] = []
    for i, (method, args) in enumerate(trace["calls"]):
        error = None
        try:
            getattr(det, method)(*args)
        except Exception as exc:  # noqa: BLE001 - compared with the recorded one
            error = f"{type(exc).__name__}: {exc}"
        want = expected.get(i, want)
        got = outputs(det, error, digests)
        if got != want:
            names = ("detected", "version", "schema", "report", "evidence", "error")
            bad = [f"{n}: {w!r} != {g!r}" for n, w, g in zip(names, want, got) if w != g]
            diffs.append(f"step {i} ({method}): " + "; ".join(bad)[:2000])
            if len(diffs) >= 5:
                break
    return len(trace["calls"]), diffs


# --- recording trials -------------------------------------------------------------------------
def record_trial(novelty: str | None, difficulty: str, observability: str = "announced",
                 detection: str = "system", games: int = 5, inject: int = 1,
                 seed: int = 0) -> dict:
    """Play a short trial as `evaluation.harness.runner` does (the planner, adapting, against three
    `baseline`; the novelty from game `inject`), recording the planner's detector."""
    from evaluation.harness.novelty_setup import prepare_novelty
    from evaluation.harness.novelty_reports import _safe_report
    from openmono.seeding import game_seed
    from agents.registry import make_agent
    from openmono.hooks import NO_HOOKS
    from openmono.play import play_game
    from openmono.schema import rules_schema

    base = rules_schema("standard")
    applied = prepare_novelty(novelty, difficulty, {}, base) if novelty else None
    shown = None
    if applied is not None and observability == "effects":
        from novelties.observability import shown_schema

        shown = shown_schema(base, applied.schema)
    agent = make_agent("planner")
    prior = agent.detector.believed_schema
    rec = agent.detector = Recording(agent.detector)
    opponents = [make_agent("baseline") for _ in range(3)]
    for g in range(games):
        active = applied is not None and g >= inject
        schema, hooks = (applied.schema, applied.hooks) if active else (base, NO_HOOKS)
        if active and g == inject and detection == "given":
            agent.novelty_announced()
        play_game(schema, [agent, *opponents], seed=game_seed(seed, g), hooks=hooks,
                  shown=shown if active else None)
        _safe_report(agent)
    return {"novelty": novelty, "difficulty": difficulty, "observability": observability,
            "detection": detection, "games": games, "inject": inject, "seed": seed,
            "prior": prior, "calls": rec.calls, "changes": rec.changes,
            "errors": agent.errors, "hash_seed": os.environ.get("PYTHONHASHSEED"), "report": rec.det.report(), "version": rec.det.version}


def trial_specs(games: int) -> list[dict]:
    """Every catalogue preset at every difficulty (announced, system detection), every
    hidden-effect one also under `effects` on another seed, some with given detection,
    and control trials."""
    from novelties.registry import available_novelties

    specs = []
    for i, name in enumerate(sorted(available_novelties())):
        for j, difficulty in enumerate(("easy", "medium", "hard")):
            specs.append(dict(novelty=name, difficulty=difficulty, games=games, seed=i * 3 + j))
        specs.append(dict(novelty=name, difficulty=("easy", "medium", "hard")[i % 3],
                          observability="effects", games=games, seed=1000 + i,
                          detection="given" if i % 5 == 0 else "system"))
    for s in range(6):
        specs.append(dict(novelty=None, difficulty="medium", games=games + 2, seed=2000 + s))
    return specs


def trace_name(spec: dict) -> str:
    return "{}-{}-{}-{}-s{}.pkl.gz".format(spec.get("novelty") or "control", spec["difficulty"],
                                            spec.get("observability", "announced"),
                                            spec.get("detection", "system"), spec["seed"])


def _record(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    commit = args.commit or subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
    (out / "COMMIT").write_text(commit + "\n")
    specs = trial_specs(args.games)
    if args.only:
        specs = [s for s in specs if s["novelty"] in args.only.split(",")]
    specs = specs[args.start::args.step]
    for spec in specs:
        path = out / trace_name(spec)
        if path.exists():
            continue
        t0 = time.perf_counter()
        trace = record_trial(**spec)
        trace["commit"] = commit
        tmp = path.with_suffix(".tmp")
        with gzip.open(tmp, "wb", compresslevel=3) as fh:
            dump(trace, fh)
        tmp.rename(path)
        print(f"{path.name}: {len(trace['calls'])} calls, {len(trace['changes'])} output "
              f"changes, {time.perf_counter() - t0:.1f}s", flush=True)


def _replay(args: argparse.Namespace) -> int:
    from agents.planner.detect import NoveltyDetector

    paths = sorted(Path(args.dir).glob("*.pkl.gz"))[args.start::args.step]
    steps = bad = 0
    seed = os.environ.get("PYTHONHASHSEED")
    for path in paths:
        with gzip.open(path, "rb") as fh:
            trace = pickle.load(fh)
        if trace.get("hash_seed", "?") != seed:
            print(f"warning: {path.name} was recorded with PYTHONHASHSEED="
                  f"{trace.get('hash_seed', 'unknown')}, replayed with {seed}", flush=True)
        n, diffs = replay(trace, NoveltyDetector)
        steps += n
        if diffs:
            bad += 1
            print(f"DIFF {path.name}:\n  " + "\n  ".join(diffs), flush=True)
    print(f"{len(paths)} traces, {steps} steps compared, {bad} with differences")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", required=True)
    r.add_argument("--games", type=int, default=5)
    r.add_argument("--only", help="these novelties only (comma-separated)")
    r.add_argument("--commit", help="the commit of the code recorded (default: HEAD)")
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--step", type=int, default=1)
    q = sub.add_parser("replay")
    q.add_argument("dir")
    q.add_argument("--start", type=int, default=0)
    q.add_argument("--step", type=int, default=1)
    args = p.parse_args(argv)
    if args.cmd == "record":
        _record(args)
        return 0
    return _replay(args)


if __name__ == "__main__":
    # Run under its importable name, so that pickles name `detector_trace._proxy`.
    sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).parent)]
    import detector_trace

    sys.exit(detector_trace.main())
