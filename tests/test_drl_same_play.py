"""The DRL agents play exactly as the recorded reference (main at 824e764, before the
decision-speed work of issue 51): same winners, same event logs, same decisions, in
seeded games under the standard and GNOME rules, a shuffled board and renamed
properties. Regenerate the records only for a deliberate change of play:
`python tests/drl_same_play.py tests/drl_same_play.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drl_same_play import CASES, play_case

RECORDS = json.loads((Path(__file__).with_name("drl_same_play.json")).read_text())


def test_the_records_cover_every_case() -> None:
    assert [tuple(r["case"]) for r in RECORDS] == [tuple(c) for c in CASES]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: "-".join(map(str, r["case"])))
def test_seeded_games_are_played_as_recorded(record: dict) -> None:
    assert play_case(*record["case"]) == record
