"""The environment cards (docs/cards/envs/) are renderings of the environments and of
the measured speed file: a card edited by hand, or an environment changed without
re-rendering, fails here. Re-render with `python -m envs.cards` (`speed=true` to
measure again)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from envs import cards  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_committed_env_cards_are_current() -> None:
    assert cards.stale(ROOT / cards.CARDS_DIR, ROOT / cards.SPEED_FILE) == [], \
        "environment cards not current: run python -m envs.cards"


def test_a_card_reads_the_environment_and_the_speed_file() -> None:
    text = cards.gym_card(None)
    assert "Discrete(2922)" in text
    assert "Not measured: run `python -m envs.cards speed=true`" in text
    assert "`opponents` | `('baseline', 'baseline', 'baseline')`" in text
    speed = cards.read_speed(ROOT / cards.SPEED_FILE)
    text = cards.aec_card(speed)
    assert f"{round(speed['runs']['aec']['steps_per_second']):,} steps/s" in text
    assert "['player_0', 'player_1', 'player_2', 'player_3']" in text


def test_check_names_a_stale_card(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.makedirs(cards.CARDS_DIR)
    assert cards.main(["check=true"]) == 1
    assert cards.main([]) == 0 and cards.main(["check=true"]) == 0
    (cards.CARDS_DIR / "aec.md").write_text("edited", encoding="utf-8")
    assert cards.main(["check=true"]) == 1 and cards.main(["bogus=1"]) == 2
