"""`python -m evaluation.replay`: the states a replay page shows are the engine's, step by
step; a trial keeps the logs around the injection and links their replays; the page
works in headless Chromium."""

from __future__ import annotations

import html
import io
import json
import re

import pytest
from test_html_report import CHROMIUM, _Cells, browser_dom

import openmono
from agents.baseline import BaselineAgent
from agents.random_agent import RandomAgent
from evaluation.reports import replay
from evaluation.harness.runner import TrialConfig, TrialError, run_trial
from openmono.actions import action_from_json
from openmono.engine import Game
from openmono.play import AgentFault
from openmono.schema import GameSchema



def _logged_game(schema, seed: int) -> list[str]:
    log = io.StringIO()
    openmono.play_game(schema, [BaselineAgent(), RandomAgent(), BaselineAgent(),
                                RandomAgent()], seed=seed, log=log)
    return log.getvalue().splitlines()


class _Recorder:
    """Plays a seat's logged actions and notes, at each decision, the engine's event
    count and the cash it shows."""

    def __init__(self, actions, game_box, seen) -> None:
        self.actions, self.box, self.seen, self.i = actions, game_box, seen, 0

    def act(self, obs):
        self.seen.append((len(self.box[0].events), tuple(obs.cash), tuple(obs.position)))
        a = self.actions[self.i]
        self.i += 1
        return a


def _engine_steps(lines: list[str]) -> tuple[list, object]:
    """The log re-run by the engine (as `openmono.replay` does), recording every decision."""
    recs = [json.loads(line) for line in lines]
    header = recs[0]
    per_seat: dict[int, list] = {}
    for r in recs:
        if r["type"] == "decision":
            a = r["action"]
            per_seat.setdefault(r["seat"], []).append(
                AgentFault(a["reason"]) if a["kind"] == "__fault__" else action_from_json(a))
    schema = GameSchema.model_validate(header["schema"])
    box, seen = [None], []
    agents = [None] * header["players"]
    for s, idx in enumerate(header["seats"]):
        agents[idx] = _Recorder(per_seat.get(s, []), box, seen)
    box[0] = Game(schema, players=header["players"], seed=header["seed"])
    result = openmono.play_game(schema, agents, seed=header["seed"], seats=header["seats"],
                                game=box[0])
    return seen, result


@pytest.mark.parametrize("novelty", [None, "board_shuffle"])
def test_the_folded_states_are_the_engines_at_every_decision(novelty) -> None:
    from agents.drl.train import world

    schema = openmono.standard_schema() if novelty is None else world(novelty, "hard")[0]
    lines = _logged_game(schema, seed=11)
    header, events, result = replay.read_log_lines(lines)
    states = replay.fold(header, events)
    seen, res = _engine_steps(lines)
    assert len(seen) > 100
    for k, cash, position in seen:
        assert tuple(states["cash"][k]) == cash
        assert tuple(states["position"][k]) == position
    _, same = openmono.replay(lines)  # the library's replay ends the same way
    assert same.to_json() == res.to_json() == result["result"]
    final = result["state"]
    assert states["cash"][-1] == final["cash"]
    board = states["board"][-1]
    assert board[1] == final["owner"] and board[2] == final["level"]


def _trial(tmp_path, **kw):
    from evaluation.reports.report import write_report

    out = tmp_path / "trial"
    cfg = TrialConfig(**{"agent": "random", "opponents": ["random"] * 3, "reference": None,
                         "progress": False, "games": 8, "seed": 2, "novelty": "board_shuffle",
                         "difficulty": "hard", "inject_at": 4, **kw})
    summary = run_trial(cfg, out)
    write_report(str(out), summary, plots=False)
    return out


def test_a_trial_keeps_the_logs_around_the_injection_and_links_their_replays(tmp_path) -> None:
    out = _trial(tmp_path)
    assert replay.kept_games(out) == [3, 4, 5]
    report = (out / "report.html").read_text()
    for g in (3, 4, 5):
        assert (out / f"replay-{g}.html").exists() and f'href="replay-{g}.html"' in report
    assert 'href="replay-2.html"' not in report
    page = (out / "replay-4.html").read_text()
    assert "novelty board_shuffle active in this game" in page
    assert page.count('class="square changed"') > 0  # the shuffled board against the rules'
    before = (out / "replay-3.html").read_text()
    assert 'class="square changed"' not in before and "before the novelty" in before
    none = _trial(tmp_path / "b", keep_logs="none")
    assert replay.kept_games(none) == [] and "replay-" not in (none / "report.html").read_text()
    with pytest.raises(TrialError, match="keep_logs"):
        TrialConfig(agent="random", opponents=["random"], keep_logs="some").validate()


def test_bad_requests_get_one_line(tmp_path, capsys) -> None:
    out = _trial(tmp_path)
    assert replay.main([str(out), "game=0"]) == 2
    assert "no log of game 0; kept: 3, 4, 5" in capsys.readouterr().err
    assert replay.main([]) == 2
    assert replay.main([str(out), "game=4"]) == 0


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_shows_the_state_of_the_step_in_the_address(tmp_path) -> None:
    out = _trial(tmp_path)
    header, events, _ = replay.read_log(replay.log_path(out, 4))
    states = replay.fold(header, events)
    # a step where a payment changed someone's cash, and the one before it
    k = next(i for i in range(1, len(events)) if states["cash"][i] != states["cash"][i - 1])
    shown = {}
    for step in (k - 1, k):
        url = (out / "replay-4.html").as_uri() + f"#step={step}"
        _, page, console = browser_dom(url)
        assert console == []
        table = _Cells("players")
        table.feed(page)
        shown[step] = [int(row[1]) for row in table.rows[1:]]
        names = [html.unescape(n) for n in re.findall(r'data-name="([^"]*)"', page)]
        assert names == [s["name"] for s in header["schema"]["squares"]]
    assert shown[k - 1] == states["cash"][k - 1] and shown[k] == states["cash"][k]
    assert shown[k - 1] != shown[k]


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_the_injection_games_replay_shows_the_board_before_and_after(tmp_path) -> None:
    out = _trial(tmp_path)  # board_shuffle hard, injected before game 4
    header, _, _ = replay.read_log(replay.log_path(out, 4))
    after = [s["name"] for s in header["schema"]["squares"]]
    before = [s.name for s in openmono.standard_schema().squares]
    assert after != before
    shown = {}
    for hash_ in ("#step=0", "#step=0&before=1"):
        _, page, console = browser_dom((out / "replay-4.html").as_uri() + hash_)
        assert console == []
        squares = re.findall(r'<g class="square[^"]*" id="sq\d+" ([^>]*)>', page)
        names = []
        for attrs in squares:
            got = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', attrs))
            names.append(html.unescape(got.get("data-shown", got["data-name"])))
        shown[hash_] = names
    assert shown["#step=0"] == after and shown["#step=0&before=1"] == before
