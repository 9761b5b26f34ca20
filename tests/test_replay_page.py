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
from evaluation.reports import replay, replay_board, replay_states
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError
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
    header, events, result = replay_states.read_log_lines(lines)
    states = replay_states.fold(header, events)
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
    header, events, _ = replay_states.read_log(replay.log_path(out, 4))
    states = replay_states.fold(header, events)
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
    header, _, _ = replay_states.read_log(replay.log_path(out, 4))
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


def _rent_hike(tmp_path):
    """A rent_hike trial: the novelty changes rents as charged, which no schema shows."""
    return _trial(tmp_path, novelty="rent_hike", difficulty="medium", inject_at=3, games=5,
                  agent="baseline", opponents=["baseline"] * 3)


def test_a_rent_hike_replay_outlines_the_squares_its_ground_truth_names(tmp_path) -> None:
    out = _rent_hike(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    named = {c["entity"].split(":", 1)[1] for c in summary["ground_truth"]}
    page = (out / "replay-3.html").read_text()
    changed = re.findall(r'<g class="square changed" id="sq\d+" data-name="([^"]*)"', page)
    assert {html.unescape(n) for n in changed} == named and len(named) > 20
    assert f"the {len(named)} squares it changed are outlined in red" in page
    assert "<button id=before>" in page  # the board before the novelty: its rents
    before = (out / "replay-2.html").read_text()
    assert 'class="square changed"' not in before and "<button id=before>" not in before


def test_square_names_are_wrapped_whole_and_never_overflow(tmp_path) -> None:
    out = _rent_hike(tmp_path)
    page = (out / "replay-3.html").read_text()
    header, _, _ = replay_states.read_log(replay.log_path(out, 3))
    for i, sq in enumerate(header["schema"]["squares"]):
        g = re.search(rf'<g class="square[^"]*" id="sq{i}" .*?<g class="face now"(.*?)</g>',
                      page).group(1)
        lines = re.findall(r'<text class="t\d" ([^>]*)>([^<]*)</text>', g)
        assert " ".join(html.unescape(t) for _, t in lines) == sq["name"]  # nothing cut
        for attrs, text in lines:  # a long line is squeezed into the square
            if len(text) > replay_board.LINE_CHARS:
                assert f'textLength="{replay_board.TEXT_WIDTH}"' in attrs


def test_events_read_as_text_with_square_names() -> None:
    from evaluation.reports.event_text import describe

    names = [f"Square {i}" for i in range(40)]
    offer = {"kind": "offer_trade", "to": 2, "give": [19], "get": [], "give_cash": 0,
             "get_cash": 187, "give_jail_cards": 0, "get_jail_cards": 0}
    said = [describe(e, names) for e in (
        {"kind": "trade_offered", "offer": offer, "from_seat": 0},
        {"kind": "trade_answered", "offer": offer, "from_seat": 0, "accepted": True},
        {"kind": "auction_ended", "square": 23, "winner": 3, "price": 220},
        {"kind": "bid_made", "seat": 1, "square": 23, "amount": 110},
        {"kind": "jailed", "seat": 1, "reason": "go_to_jail"},
        {"kind": "released", "seat": 1, "how": "fine"},
        {"kind": "jail_card_moved", "seat": 2, "to_seat": -1, "deck": "chance"},
        {"kind": "plugin_thing", "square": 5, "seat": 1, "extra": {"amount": 3}})]
    assert said[0] == "P0 offered P2: Square 19 for $187"
    assert said[1] == "P2 accepted P0's offer: Square 19 for $187"
    assert said[2] == "auction of Square 23: P3 won it for $220"
    assert "Square 23" in said[3] and "jail" in said[4] and "fine" in said[5]
    assert said[7] == "plugin thing: square Square 5, seat P1, extra (amount 3)"
    for text in said:
        assert not re.search(r'[{}"\[\]]', text), text  # no JSON


def test_every_event_of_a_kept_game_reads_without_json(tmp_path) -> None:
    out = _rent_hike(tmp_path)
    page = (out / "replay-3.html").read_text()
    items = [html.unescape(t) for t in re.findall(r"<li>(.*?)</li>", page)]
    assert items and not [t for t in items if re.search(r'[{}"]', t)]


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_shows_the_rents_before_the_novelty(tmp_path) -> None:
    out = _rent_hike(tmp_path)
    shown = {}
    for hash_ in ("#step=0", "#step=0&before=1"):
        _, page, console = browser_dom((out / "replay-3.html").as_uri() + hash_)
        assert console == []
        square = re.search(r'<g class="square changed".*?<rect class="own"', page).group(0)
        visible = re.findall(r'<g class="face (now|was)"( style="display: ?none;?")?', square)
        shown[hash_] = [face for face, hidden in visible if not hidden]
        notes = re.findall(r'<text class="tn"[^>]*>([^<]*)<', square)
        assert len(notes) == 2 and notes[0] != notes[1]  # rent as charged, rent as printed
        events = [html.unescape(t) for t in re.findall(r"<li[^>]*>(.*?)</li>", page)]
        assert events and not [t for t in events if re.search(r'[{}"]', t)]  # words
    assert shown == {"#step=0": ["now"], "#step=0&before=1": ["was"]}
