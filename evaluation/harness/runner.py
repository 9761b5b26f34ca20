"""One SAIL-ON trial, without Hydra: plain config in, `games.jsonl` + summary out.

The protocol (docs/evaluation.md): the evaluated agent plays `games` games against
its opponents, seats shuffled per game; a novelty is injected before a game drawn from
the configured window and kept to the end; the agent object lives for the whole trial
and its `novelty_report()` is recorded after every game. Before the injection the
reference agent (default `baseline`) also plays each game in the evaluated agent's seat
on the same seed (common random numbers), for NRP.

Resuming: records are appended one line per finished game, and after each game the
agents (evaluated, opponents, reference) are pickled into `agents.pkl` with the number
of games they have seen (after a game once playing since the last snapshot took 20x
what a snapshot costs: for fast agents that is every few games, for the planner every
game or two, so saving costs at most ~5%). A re-run into the same directory says how
many games it found, restores the agents from that file and re-plays only the few
recorded games after the snapshot (checking that they reproduce their lines) before
playing the missing ones; without a usable file it re-plays every recorded game
(everything is deterministic) to rebuild the agents' state. A finished trial is not played again (`complete_summary`).

A novelty plugin whose hook raises during a game stops the trial with a `PluginError`
naming the plugin, the hook and the game; the games recorded before it are kept, so
the same command resumes once the plugin is fixed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import linecache
import os
import pickle
import sys
import time
import traceback
from dataclasses import dataclass, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterator



from openmono.decision import DecisionTimeout
from openmono.hooks import NO_HOOKS, Hooks
from openmono.play import play_game
from openmono.schema import GameSchema, rules_schema
from openmono.seeding import game_seed

from agents.registry import told_rules
from evaluation.measures import metrics
from evaluation.store import records as games_file
from evaluation.store.atomic import atomic_write, open_regular, read_regular
from evaluation.store.folder_lock import FolderRefused, folder_lock
from evaluation.harness.remote_seats import (RemoteError, build_seat,
                                             close_remote_seats, make_agents, open_remote_seats,
                                             remote_faults)
from evaluation.harness.novelty_setup import Applied, novelty_specs, prepare_novelty
from evaluation.harness.hook_watch import HookTimeout, HookWatch
from evaluation.store.seal import KeyProblem, seal, snapshot_key, unseal
from evaluation.store.moved import new_home
from evaluation.harness.trial_config import (KEEP_LOGS, MAX_GAMES, MAX_SECONDS,  # noqa: F401
                                             OPPONENTS_VIEWS, TrialConfig, TrialError,
                                             identity, redact)

GAMES_FILE = "games.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "trial.json"
STATE_FILE = "agents.pkl"
SAVE_RATIO = 20  # play at least 20x a snapshot's cost between two snapshots


class PluginError(TrialError):
    """A novelty plugin raised inside a hook during a game; the recorded games are kept."""

AGENT_METHODS = ("act", "begin_game", "end_game", "novelty_report", "novelty_announced")


def _act_codes(seats: list[Any]) -> dict[Any, str]:
    """The code objects of each in-process seat's methods the harness calls (`act`, the
    game and report hooks) -> their names: what the watchdog times against
    `decision_budget` (remote and isolated seats keep their own budgets)."""
    from agents.remote.seat import RemoteAgent

    out: dict[Any, str] = {}
    for seat in seats:
        if seat is None or isinstance(seat, RemoteAgent):
            continue
        for method in AGENT_METHODS:
            code = getattr(getattr(type(seat), method, None), "__code__", None)
            if code is not None:
                out[code] = f"{type(seat).__module__}.{type(seat).__qualname__}.{method}"
    return out


def injection_game(cfg: TrialConfig) -> int | None:
    """The first game played with the novelty (None for a control trial)."""
    if cfg.novelty is None:
        return None
    if cfg.inject_at is not None:
        return cfg.inject_at
    lo = int(cfg.window[0] * cfg.games)
    hi = max(lo, min(cfg.games - 1, int(cfg.window[1] * cfg.games)))
    draw = game_seed(cfg.seed, 2**31 - 1)  # a stream no game of the trial uses
    return lo + draw % (hi - lo + 1)


def _folder_identity(path: Path) -> dict[str, Any] | None:
    try:
        ident = json.loads(read_regular(path.parent / CONFIG_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return ident if isinstance(ident, dict) else None


def read_records(path: Path) -> list[dict[str, Any]]:
    """The checked records of a games.jsonl (`evaluation.store.records`): an incomplete last
    line and exact repeats are left out, anything else wrong raises a one-line
    TrialError naming the file and line (the digests are checked against the folder's
    trial.json)."""
    try:
        return games_file.load(path, _folder_identity(Path(path))).records
    except games_file.RecordsError as exc:
        raise TrialError(str(exc)) from None


def read_identity(path: Path) -> dict[str, Any] | None:
    """The trial configuration saved in `path` (`trial.json`); None when there is none
    or it was cut short; TrialError (one line) when it holds something else."""
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TrialError(f"cannot read {path}: {exc.strerror}") from None
    try:
        ident = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        ident = []  # (refused below)
    except json.JSONDecodeError:
        return None  # cut short by a kill: rewritten
    if not isinstance(ident, dict):
        raise TrialError(f"{path} is not a trial configuration (a JSON object) written by "
                         "this harness: delete it, or choose another hydra.run.dir")
    return ident


@contextlib.contextmanager
def trial_lock(out: Path) -> Iterator[None]:
    """Hold the run folder for this process (`evaluation.store.folder_lock`); a folder another
    run holds is refused with a one-line TrialError."""
    try:
        held = folder_lock(out, "trial")
        held.__enter__()
    except FolderRefused as exc:
        raise TrialError(str(exc)) from None
    except OSError as exc:
        raise TrialError(f"cannot write to the output directory {str(out)!r}: "
                         f"{exc.strerror}") from None
    try:
        yield
    finally:
        held.__exit__(None, None, None)


def _safe_report(agent: Any) -> tuple[dict[str, Any], str | None]:
    """The agent's novelty report checked at the boundary (`checked_report`); a report
    that raises or is malformed is recorded as none, with a `report_fault` saying why:
    what it hands over must not crash the report writer or put NaN into games.jsonl."""
    try:
        report = agent.novelty_report()
        raw = report.to_json() if hasattr(report, "to_json") else dict(report)
        return checked_report(raw), None
    except (Exception, SystemExit, DecisionTimeout) as exc:  # noqa: BLE001 - a misbehaving agent must not stop the trial
        return {"detected": False, "confidence": 0.0, "changes": []}, (
            f"novelty_report raised {type(exc).__name__}: {exc}".splitlines()[0][:300])


CHANGE_KEYS = ("entity", "attribute", "new_value", "old_value")


def checked_report(raw: Any) -> dict[str, Any]:
    """A report as games.jsonl keeps it: `detected` a bool, `confidence` a finite number
    in [0, 1], `changes` a list of {entity, attribute (strings), new_value, old_value
    (plain JSON)}, `evidence` finite numbers by name; ValueError naming the first
    problem otherwise."""
    if not isinstance(raw, dict):
        raise ValueError(f"a report is a mapping, got {type(raw).__name__}")
    confidence = raw.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0.0 <= confidence <= 1.0):  # (NaN fails this too)
        raise ValueError(f"confidence must be a number in [0, 1], got {confidence!r}")
    changes = raw.get("changes", [])
    if not isinstance(changes, (list, tuple)):
        raise ValueError(f"changes must be a list, got {type(changes).__name__}")
    kept = []
    for i, change in enumerate(changes):
        if not isinstance(change, dict) or not all(
                isinstance(change.get(k), str) for k in CHANGE_KEYS[:2]):
            raise ValueError(f"changes[{i}] must be an object with a string entity and "
                             f"attribute, got {change!r:.80}")
        kept.append({k: change[k] for k in CHANGE_KEYS if k in change})
    data: dict[str, Any] = {"detected": bool(raw.get("detected", False)),
                            "confidence": float(confidence), "changes": kept}
    if raw.get("evidence"):  # the detector's statistics, for offline re-scoring
        data["evidence"] = {str(k): float(v) for k, v in dict(raw["evidence"]).items()}
    json.dumps(data, allow_nan=False)  # ValueError on NaN or infinity anywhere
    return data


def _safe(agent: Any, method: str) -> None:
    fn = getattr(agent, method, None)
    if fn is not None:
        try:
            fn()
        except (Exception, SystemExit, DecisionTimeout):  # noqa: BLE001 - an agent's hook
            # stops nothing (DecisionTimeout: it ran past decision_budget)
            pass


def run_trial(cfg: TrialConfig, out_dir: str | os.PathLike[str],
              on_game: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play (or resume) a trial into `out_dir`; returns the summary dict."""
    cfg.validate()
    try:
        snapshot_key()
    except KeyProblem as exc:
        raise TrialError(str(exc)) from None
    out = Path(out_dir)
    with trial_lock(out):
        return _run_locked(cfg, out, on_game)


def _run_locked(cfg: TrialConfig, out: Path,
                on_game: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    try:
        probe = out / f".write_test.{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise TrialError(f"cannot write to the output directory {str(out)!r}: {exc.strerror}")
    base = rules_schema(cfg.rules)
    novelty: Applied | None = None
    if cfg.novelty is not None:
        novelty = prepare_novelty(cfg.novelty, cfg.difficulty, cfg.novelty_params, base,
                                  then=cfg.then)
    inject = injection_game(cfg)
    shown = None
    if novelty is not None and cfg.observability == "effects":
        from novelties.observability import shown_schema

        shown = shown_schema(base, novelty.schema)

    budget = cfg.isolate_budget
    limits = {"memory_mb": cfg.isolate_memory, "cpu_s": cfg.isolate_cpu}
    try:
        agent = build_seat(cfg.agent, told_rules(cfg.agent, cfg.agent_params, cfg.rules),
                           "agent" in cfg.isolate, budget, limits)
    except TypeError as exc:
        raise TrialError(f"bad parameters for agent {cfg.agent!r}: {exc}") from None
    except ValueError as exc:
        raise TrialError(str(exc).splitlines()[0]) from None
    opponents = make_agents(cfg.opponents, cfg.remote, isolate=[
        f"opponent{i + 1}" in cfg.isolate for i in range(len(cfg.opponents))],
        isolate_budget=budget, isolate_limits=limits)
    reference = (build_seat(cfg.reference, {}, "reference" in cfg.isolate, budget, limits)
                 if cfg.reference else None)
    seats = [agent, *opponents, *([reference] if reference is not None else [])]
    try:  # every child and listener is closed whatever happens (Ctrl-C included)
        try:
            open_remote_seats(seats)
        except RemoteError as exc:
            raise TrialError(str(exc)) from None
        watch = HookWatch(cfg.hook_budget, _hook_codes(novelty.hooks if novelty else None),
                          cfg.decision_budget, _act_codes(seats))
        run = RunContext(cfg, out, base, novelty, inject, shown, on_game)
        with watch:  # (a hook past its budget raises HookTimeout inside it)
            return _run(run, Seats(agent, tuple(opponents), reference))
    finally:
        close_remote_seats(seats)


@dataclass(frozen=True)
class RunContext:
    """One run of a trial, its configuration validated once: the trial's options, the
    folder it writes, the world it plays (the rules, the novelty and when it arrives,
    what agents are shown of it) and who hears of each finished game."""

    cfg: TrialConfig
    out: Path
    base: GameSchema
    novelty: Applied | None
    inject: int | None
    shown: GameSchema | None
    on_game: Callable[[dict[str, Any]], None] | None = None

    def world(self, g: int) -> tuple[GameSchema, Hooks, bool]:
        """(schema, hooks, novelty active) of game `g`."""
        active = self.inject is not None and g >= self.inject
        if active and self.novelty:
            return self.novelty.schema, self.novelty.hooks, active
        return self.base, NO_HOOKS, active


@dataclass(frozen=True)
class Seats:
    """The trial's players: the evaluated agent, its opponents and the reference agent
    (None without one); a resume may replace them with their snapshot."""

    agent: Any
    opponents: tuple[Any, ...]
    reference: Any

    def snapshot(self) -> tuple[Any, list[Any], Any]:
        """What `_save_agents` pickles (and `_resume` gives back)."""
        return self.agent, list(self.opponents), self.reference


def _run(run: RunContext, seats: Seats) -> dict[str, Any]:
    """Play the trial's missing games, appending each record as it finishes."""
    cfg, out, novelty, inject = run.cfg, run.out, run.novelty, run.inject
    identity = _check_same_trial(cfg, out)
    path = out / GAMES_FILE
    found = _recorded(cfg, path, identity)
    done = found.records
    start, restored = _resume(cfg, out, len(done), seats)
    if restored is not None:
        agent, opponents, reference = restored
        seats = Seats(agent, tuple(opponents), reference)
    agent, opponents, reference = seats.agent, list(seats.opponents), seats.reference
    bar = _progress(cfg, len(done))
    keep = kept_logs(cfg, inject)
    wins = sum(1 for r in done if r.get("won"))
    started = time.perf_counter()
    played = save_cost = 0.0
    records = list(done)
    head = found.head
    try:  # appended to, never through a link (`evaluation.store.atomic.open_regular`)
        fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        raise TrialError(f"cannot write {path}: {exc.strerror}") from None
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        for g in range(start, cfg.games):
            schema, hooks, active = run.world(g)
            if g == inject and cfg.detection == "given":
                _safe(agent, "novelty_announced")
            t0 = time.perf_counter()
            try:
                record = _play_one(cfg, g, agent, opponents, reference, schema, hooks, active,
                                   run.shown if active else None,
                                   out / "logs" / f"game-{g}.jsonl" if g in keep else None)
            except (Exception, HookTimeout, SystemExit) as exc:  # noqa: BLE001 - named, and
                # the trial stays resumable (sys.exit in a plugin too; not Ctrl-C)
                if bar is not None:
                    bar.close()
                raise _plugin_error(cfg, g, hooks if active else None, exc, len(done)) from exc
            if g < len(done):
                if games_file.line(record, found.before(g))[0] != found.lines[g]:
                    print(f"warning: replaying game {g} did not reproduce its record in "
                          f"{path}; keeping the recorded line", file=sys.stderr)
                continue
            text, head = games_file.line(record, head)
            fh.write(text)
            fh.flush()  # in the kernel's hands: a killed process loses no finished game
            records.append(record)
            played += time.perf_counter() - t0
            if played >= SAVE_RATIO * save_cost:
                # Snapshot the agents when playing since the last one took SAVE_RATIO times
                # what a snapshot costs: at most ~1/SAVE_RATIO slower, resume re-plays few.
                t1 = time.perf_counter()
                _save_agents(out, g + 1, seats.snapshot())
                save_cost, played = time.perf_counter() - t1, 0.0
            wins += record["won"]
            if bar is not None:
                bar.update(1)
                bar.set_postfix(wins=wins, novelty="on" if active else "off")
            if run.on_game is not None:
                run.on_game(record)
        os.fsync(fh.fileno())
    if bar is not None:
        bar.close()
    return _finish(cfg, out, records, inject, novelty, head, time.perf_counter() - started,
                   [agent, *opponents])


def _recorded(cfg: TrialConfig, path: Path, identity: dict[str, Any]) -> Any:
    """The trial's games.jsonl, checked and repaired (`evaluation.store.records`); `identity`
    is what its trial.json holds (the chain starts from it)."""
    try:
        found = games_file.load(path, identity)
    except games_file.RecordsError as exc:
        raise TrialError(str(exc)) from None
    if len(found.records) > cfg.games:
        raise TrialError(f"{path} already holds {len(found.records)} games, more than "
                         f"games={cfg.games}; use a new output directory")
    if found.repairs:
        # Atomically (temp file, fsync, rename): a kill now leaves the old file or the new.
        atomic_write(path, found.data())
        print(f"repaired {path}: {'; '.join(found.repairs)}", file=sys.stderr)
    if found.legacy:
        print(f"warning: {path} has no digests (written by an older openmono): its records "
              "are used as they are, unchecked, and new ones are added without digests",
              file=sys.stderr)
    return found


def _resume(cfg: TrialConfig, out: Path, done: int, seats: Seats) -> tuple[int, Any]:
    """(first game to play, the agents restored after it or None), and the message.

    A trial with a seat in another process (isolated or remote) never loads a snapshot:
    that process runs as this user, so it can read the key and seal a pickle of its own
    (issue 52, finding 5); such a trial never saves one either (its seats cannot be
    pickled), so nothing is lost."""
    if not done:
        return 0, None
    start, agents = 0, None
    if _other_process(seats):
        if (out / STATE_FILE).exists():
            _untrusted(out / STATE_FILE, "is never loaded in a trial with an isolated or "
                       "remote seat")
    else:
        restored = _load_agents(out, done, seats)
        if restored is not None:
            start, agents = restored
    how = (f"agents restored after game {start}" if start == done else
           f"agents restored after game {start}, re-playing {done - start} games"
           if start else "re-playing them to rebuild the agents' state")
    print(f"resuming: found {done} of {cfg.games} games in {out} ({how})", file=sys.stderr)
    return start, agents


def _other_process(seats: Seats) -> bool:
    """Whether a seat plays in another process (isolated, or a remote client)."""
    from agents.remote.seat import RemoteAgent

    return any(isinstance(s, RemoteAgent) for s in (seats.agent, *seats.opponents,
                                                     seats.reference))


def _shaped(saved: Any, seats: Seats) -> bool:
    """Whether an unpickled snapshot has the shape `Seats.snapshot` gives: (agent,
    [opponents], reference), each of the very class the trial built for that seat."""
    if not isinstance(saved, tuple) or len(saved) != 3 or not isinstance(saved[1], list):
        return False
    agent, opponents, reference = saved
    return (type(agent) is type(seats.agent) and len(opponents) == len(seats.opponents)
            and all(type(o) is type(b) for o, b in zip(opponents, seats.opponents))
            and type(reference) is type(seats.reference))


def _finish(cfg: TrialConfig, out: Path, records: list[dict[str, Any]], inject: int | None,
            novelty: Applied | None, head: str | None, seconds: float,
            seats: list[Any]) -> dict[str, Any]:
    """The trial's summary, written atomically beside its records."""
    summary = summarize(cfg, records, inject, novelty)
    if head is not None:  # ties the summary to the very lines it counts (evaluation.verify)
        summary["games_digest"] = head
    summary["seconds"] = round(seconds, 3)
    refusals: dict[str, int] = {}
    for seat in seats:
        for kind, n in (seat.refusals() if hasattr(seat, "refusals") else {}).items():
            refusals[kind] = max(refusals.get(kind, 0), n)  # one server counts for all
    if refusals:
        summary["remote_refused"] = dict(sorted(refusals.items()))
    atomic_write(out / SUMMARY_FILE, json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return summary


def complete_summary(cfg: TrialConfig, out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The summary of this very trial when `out_dir` already holds all its games."""
    out = Path(out_dir)
    try:
        ident = json.loads(read_regular(out / CONFIG_FILE).decode("utf-8"))
        summary = json.loads(read_regular(out / SUMMARY_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if ident != _identity_for(cfg, ident) or summary.get("games") != cfg.games:
        return None
    try:
        if len(read_records(out / GAMES_FILE)) != cfg.games:
            return None
    except TrialError:  # the run says what is wrong with the file, in one line
        return None
    return summary


def _read_only(data: dict[Any, Any]) -> MappingProxyType:
    return MappingProxyType(data)


class _StatePickler(pickle.Pickler):
    """Compiled rules hold closures: an agent's copy is pickled as the schema and hooks
    it was compiled from, and compiled again when loaded."""

    def reducer_override(self, obj: Any) -> Any:
        from openmono.compiled import Rules

        if type(obj) is Rules:
            return (Rules, (obj.schema, obj.hooks))
        if type(obj) is MappingProxyType:
            return (_read_only, (dict(obj),))
        if getattr(obj, "__qualname__", None) == "_fair_pair.<locals>.roll":
            from openmono.compiled import _fair_pair

            cells = dict(zip(obj.__code__.co_freevars,
                             (c.cell_contents for c in obj.__closure__)))
            return (_fair_pair, (cells["f0"], cells["f1"]))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """A snapshot taken before `evaluation/` had sub-packages names its functions and
    classes by their old module (`evaluation.runner._read_only`): read as the new one."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(new_home(module), name)


def _snapshot_binding(out: Path, games: int) -> bytes | None:
    """What a snapshot is sealed with besides the agents: the digest of this trial's
    configuration (`trial.json`, written before any game) and the game count it was
    taken at, so a snapshot of another trial or another point is never used."""
    try:
        ident = json.loads((out / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
    return json.dumps({"trial": digest, "games": games}, sort_keys=True).encode() + b"\n"


def _key() -> bytes | None:
    try:
        return snapshot_key()
    except KeyProblem:  # (refused in one line when the trial starts)
        return None


def _save_agents(out: Path, games: int, agents: Any) -> None:
    """Pickle the agents after `games` games (atomically, sealed with this user's key and
    bound to this trial and game count: `evaluation.store.seal`); agents that cannot be
    pickled are simply re-played on resume."""
    key = _key()
    head = _snapshot_binding(out, games)
    if key is None or head is None:  # no snapshot could be trusted on resume: keep none
        (out / STATE_FILE).unlink(missing_ok=True)
        return
    try:
        buf = io.BytesIO()
        _StatePickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(
            {"games": games, "agents": agents})
        # (an isolated seat cannot be pickled: its agent's state lives in its child)
        atomic_write(out / STATE_FILE, seal(head + buf.getvalue(), key))
    except Exception:  # noqa: BLE001 - an unpicklable agent only makes resuming slower
        (out / STATE_FILE).unlink(missing_ok=True)


def _load_agents(out: Path, games: int, seats: Seats | None = None) -> Any:
    """The snapshot's agents, only if this user's runs sealed it for this very trial at
    a game already recorded: unpickling runs code, and a results folder may come from
    anywhere (otherwise: one warning line, and re-play)."""
    path = out / STATE_FILE
    key = _key()
    if key is None or not path.exists():
        return None
    try:
        payload = unseal(read_regular(path), key)
    except OSError:
        return None
    if payload is None:
        return _untrusted(path, "was not sealed by this user's runs (copied or planted?)")
    head, _, body = payload.partition(b"\n")
    try:
        bound = json.loads(head)
        taken = bound["games"]
        trial = bound["trial"]
    except (ValueError, TypeError, KeyError):
        return _untrusted(path, "does not name the trial it was taken in (an older snapshot)")
    mine = _snapshot_binding(out, taken)
    if mine is None or json.loads(mine)["trial"] != trial:
        return _untrusted(path, "was taken in another trial")
    if isinstance(taken, bool) or not isinstance(taken, int) or not 0 < taken <= games:
        return _untrusted(path, f"was taken after game {taken}, but {games} games are "
                          "recorded")
    try:
        saved = _Unpickler(io.BytesIO(body)).load()
    except Exception:  # noqa: BLE001 - from other code: re-play
        return None
    if not isinstance(saved, dict) or "agents" not in saved or (
            seats is not None and not _shaped(saved["agents"], seats)):
        return _untrusted(path, "does not hold this trial's agents")
    return taken, saved["agents"]


def _untrusted(path: Path, why: str) -> None:
    print(f"warning: {path} {why}: ignoring it and re-playing the recorded games",
          file=sys.stderr)
    return None


def _hook_codes(hooks: Hooks | None) -> dict[Any, str]:
    """The code object of every installed hook -> the hook's name."""
    out: dict[Any, str] = {}
    if hooks is None:
        return out
    for name in hooks.installed():
        fn = getattr(hooks, name)
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None) or getattr(
            getattr(type(fn).__call__, "__func__", type(fn).__call__), "__code__", None)
        if code is not None:
            out[code] = name
    return out


def _plugin_error(cfg: TrialConfig, g: int, hooks: Hooks | None, exc: BaseException,
                  kept: int) -> TrialError:
    """One line: which plugin, which hook, which game; the trial stays resumable."""
    codes = _hook_codes(hooks)
    hook = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code in codes:
            hook = codes[frame.f_code]
        elif hook is None and hooks is not None:
            # Chained hooks run through closures: name the hook the engine called.
            line = linecache.getline(frame.f_code.co_filename, lineno)
            hook = next((h for h in hooks.installed() if f".{h}(" in line or
                         f".{h}\n" in line), None)
    kept_games = max(kept, g)
    what = f": {type(exc).__name__}: {exc}".splitlines()[0]
    did = "raised"
    if isinstance(exc, HookTimeout):
        hook = exc.hook or hook
        did, what = f"ran past the {exc.budget:g}s budget of a hook call", ""
    elif isinstance(exc, SystemExit):
        did, what = f"called sys.exit({exc.code!r})", ""
    if hooks is not None and cfg.novelty is not None:
        names = "+".join([cfg.novelty, *cfg.then])
        where = f"novelty plugin {names!r} {did}" + (f" in its {hook!r} hook" if hook else "")
    else:
        where = f"the game {did}"
    fix = ("fix it (or raise hook_budget)" if isinstance(exc, HookTimeout)
           else "fix it")
    return PluginError(f"{where} during game {g} (seed {game_seed(cfg.seed, g)}){what}; "
                       f"the {kept_games} recorded games are kept: {fix} and re-run the same "
                       "command to resume (--debug shows the traceback)")


def _trial_identity(cfg: TrialConfig) -> dict[str, Any]:
    """What `trial.json` holds: the options that name the trial (`trial_config.identity`)
    and, under a novelty, its parameters as played (presets get re-tuned)."""
    data = identity(cfg)
    if cfg.novelty is not None:
        data["novelty_preset"] = _preset_played(cfg)
    return data


def _preset_played(cfg: TrialConfig) -> dict[str, Any] | list[dict[str, Any]]:
    """The novelty's parameters after its preset and overrides (with `then`: one per
    novelty, in order)."""
    from novelties.registry import load_novelty

    played = [load_novelty(*spec)[1].model_dump(mode="json")
              for spec in novelty_specs(str(cfg.novelty), cfg.difficulty, cfg.novelty_params,
                                        cfg.then)]
    return played[0] if len(played) == 1 else played


def _identity_for(cfg: TrialConfig, old: dict[str, Any] | None) -> dict[str, Any]:
    """The identity to compare with a folder's `old` one: a folder from before presets
    were recorded is compared, and kept, without them."""
    ident = _trial_identity(cfg)
    if old is not None and "novelty_preset" not in old:
        ident.pop("novelty_preset", None)
    return ident


def _check_same_trial(cfg: TrialConfig, out: Path) -> dict[str, Any]:
    """A run directory holds one trial: resuming with another config would mix results.
    Returns the identity its trial.json holds (written now if missing)."""
    path = out / CONFIG_FILE
    old = read_identity(path)
    ident = _identity_for(cfg, old)
    if old is not None and old != ident:
        diff = sorted(k for k in ident if old.get(k) != ident[k])
        why = (" (the novelty's preset was re-tuned since it ran)"
               if diff == ["novelty_preset"] else "")
        raise TrialError(
            f"{out} holds a trial with a different configuration ({', '.join(diff)} "
            f"differ{why}); choose another hydra.run.dir or delete that directory")
    text = json.dumps(ident, indent=2, sort_keys=True) + "\n"
    try:
        same = path.read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    if not same:
        atomic_write(path, text)
    return json.loads(text)


def kept_logs(cfg: TrialConfig, inject: int | None) -> frozenset[int]:
    """The games whose log the trial keeps (`TrialConfig.keep_logs`)."""
    keep = cfg.keep_logs
    if keep in (True, "all"):
        return frozenset(range(cfg.games))
    if keep in (False, "none"):
        return frozenset()
    around = (0,) if inject is None else (inject - 1, inject, inject + 1)
    return frozenset(g for g in around if 0 <= g < cfg.games)


def _play_one(cfg: TrialConfig, g: int, agent: Any, opponents: list[Any], reference: Any,
              schema: GameSchema, hooks: Hooks, active: bool,
              shown: GameSchema | None = None, log_to: Path | None = None) -> dict[str, Any]:
    seed = game_seed(cfg.seed, g)
    players = [agent, *opponents]
    informed = range(1, len(players)) if cfg.opponents_view == "informed" else ()
    if log_to is None:
        result = play_game(schema, players, seed=seed, hooks=hooks, shown=shown,
                           informed=informed)
    else:  # the replay's log: written whole, then renamed (a kill leaves none or all of it)
        log = io.StringIO()
        result = play_game(schema, players, seed=seed, hooks=hooks, shown=shown, log=log,
                           informed=informed)
        log_to.parent.mkdir(exist_ok=True)
        atomic_write(log_to, log.getvalue())
    report, report_fault = _safe_report(agent)
    names = [cfg.agent, *cfg.opponents]
    record: dict[str, Any] = {
        "game": g,
        "seed": seed,
        "seats": [names[i] for i in result.seats],
        "agent_seat": result.seats.index(0),
        "winner": names[result.winner],
        "winner_seat": result.winner_seat,
        "won": result.winner == 0,
        "turns": result.turns,
        "end_reason": result.end_reason,
        "novelty_active": active,
        "report": report,
        "faults": result.agent_faults[0],
        "opponent_faults": sum(result.agent_faults[1:]),
    }
    if report_fault:
        record["report_fault"] = report_fault
    # Remote seats: their faults by kind (isolated seats only when they have some, so
    # that their records are those of the same agents in process).
    if _counts(agent):
        record["remote_faults"] = remote_faults([agent])
    if any(_counts(o) for o in opponents):
        record["opponent_remote_faults"] = remote_faults(opponents)
    if reference is not None and not active:
        # Same seed, same seats: the reference sits where the evaluated agent sat.
        ref = play_game(schema, [reference, *opponents], seed=seed, hooks=hooks,
                        seats=result.seats)
        record["reference_won"] = ref.winner == 0
    return record


def _counts(seat: Any) -> bool:
    """Whether the seat's record carries remote faults."""
    if not hasattr(seat, "game_faults"):
        return False
    return not getattr(seat, "isolated", False) or any(seat.game_faults.values())


def summarize(cfg: TrialConfig, records: list[dict[str, Any]], inject: int | None,
              novelty: Applied | None) -> dict[str, Any]:
    reference_records = [
        {"game": r["game"], "seed": r["seed"], "won": r["reference_won"], "novelty_active": False,
         "report": {"detected": False}}
        for r in records if "reference_won" in r
    ] or None
    truth = novelty.ground_truth if novelty is not None else None
    summary = metrics.summarize_trial(records, inject, reference_records=reference_records,
                                      ground_truth=truth)
    summary.update({
        "agent": cfg.agent,
        "agent_params": redact(cfg.agent_params),
        "agent_label": agent_label(cfg.agent, cfg.agent_params),
        "opponents": list(cfg.opponents),
        "novelty": (novelty.name if novelty is not None else cfg.novelty) or "none",
        "difficulty": cfg.difficulty if cfg.novelty else None,
        "observability": cfg.observability if cfg.novelty else None,
        "opponents_view": (cfg.opponents_view if cfg.novelty and cfg.observability == "effects"
                           else None),
        "category": novelty.category if novelty is not None else None,
        "injected_at": inject,
        "detection": cfg.detection,
        "reference": cfg.reference,
        "seed": cfg.seed,
        "wins": sum(1 for r in records if r["won"]),
        "turn_limit_games": sum(1 for r in records if r.get("end_reason") == "turn_limit"),
        "faults": sum(r.get("faults", 0) for r in records),
    })
    if truth:  # what the novelty changed, for the reports
        summary["ground_truth"] = [json.loads(json.dumps(dict(c), default=list))
                                   for c in truth]
    for key in ("remote_faults", "opponent_remote_faults"):
        if any(key in r for r in records):
            total: dict[str, int] = {}
            for r in records:
                for kind, n in r.get(key, {}).items():
                    total[kind] = total.get(kind, 0) + n
            summary[key] = dict(sorted(total.items()))
    return summary


NOT_FROM_RECORDS = ("seconds", "remote_refused")  # wall time; what remote servers refused


def config_of(identity: dict[str, Any]) -> TrialConfig:
    """The configuration a trial.json describes (tokens stay hidden: `redact`)."""
    names = {f.name for f in fields(TrialConfig)}
    data = {k: v for k, v in identity.items() if k in names}
    data.setdefault("opponents_view", "shown")  # left out: shown (`_trial_identity`)
    if isinstance(data.get("window"), list):
        data["window"] = tuple(data["window"])
    return TrialConfig(**data)


def expected_summary(identity: dict[str, Any], records: list[dict[str, Any]],
                     head: str | None) -> dict[str, Any]:
    """What `_finish` writes for these records of this trial, but the fields no record
    holds (`NOT_FROM_RECORDS`): `verify` compares summary.json with it field by field.
    The novelty is applied again as it was played (its recorded preset), for its name,
    category and ground truth; TrialError when it cannot be."""
    cfg = config_of(identity)
    novelty = None
    if cfg.novelty is not None:
        played = identity.get("novelty_preset")
        tries = ([played] if isinstance(played, dict) and not cfg.then else []) + [
            cfg.novelty_params]  # the parameters as played; else the overrides given
        for params in tries:
            try:
                novelty = prepare_novelty(cfg.novelty, cfg.difficulty, params,
                                          rules_schema(cfg.rules), then=cfg.then)
                break
            except Exception as exc:  # noqa: BLE001 - a plugin missing or changed here
                why = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:100]}"
        if novelty is None:
            raise TrialError(f"cannot apply novelty {cfg.novelty!r} here to recompute the "
                             f"measures ({why})")
    summary = summarize(cfg, records, injection_game(cfg), novelty)
    if head is not None:
        summary["games_digest"] = head
    return json.loads(json.dumps(summary))  # as read back from the file


def agent_label(name: str, params: dict[str, Any]) -> str:
    """The agent's name with the options that differ from its defaults, e.g.
    `planner(adapt=False)`, so sweeps over agent options stay apart in comparisons."""
    from agents.registry import AGENTS
    from evaluation.harness.config_store import agent_defaults

    defaults = agent_defaults(AGENTS[name]) if name in AGENTS else {}
    changed = {k: v for k, v in sorted(redact(params).items())
               if defaults.get(k, object()) != v}
    if not changed:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in changed.items())})"


def _progress(cfg: TrialConfig, done: int) -> Any:
    if not cfg.progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=cfg.games, initial=done, desc=f"{cfg.agent} vs {'/'.join(cfg.opponents)}",
                unit="game", file=sys.stderr, leave=False, mininterval=0.5)
