"""The shared command-line parser (openmono_cli): one syntax, one error style, --help."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import Field

from openmono_cli import Options, UsageError, cli, games_field, help_text, parse


class Demo(Options):
    """Rescore saved sweeps."""

    positional = ("dirs",)
    dirs: list[str] = Field(description="the sweep folders")
    games: int = games_field(10)
    progress: bool = Field(True, description="a bar")
    env: Literal["aec", "gym"] = Field("aec", description="which environment")
    window: list[float] = Field(default_factory=lambda: [0.2, 0.6], description="fractions")
    out: str | None = Field(None, description="output folder")
    novelty_params: dict[str, Any] = Field(default_factory=dict, alias="novelty.params",
                                           description="the plugin's parameters")


def test_key_value_words_and_positionals():
    o = parse(Demo, ["a", "b", "games=3", "progress=false", "out=2024", "window=[0.1,0.5]",
                     "novelty.params.factor=3"])
    assert o.dirs == ["a", "b"] and o.games == 3 and o.progress is False
    assert o.out == "2024" and o.window == [0.1, 0.5] and o.novelty_params == {"factor": 3}
    assert o["novelty.params"] == {"factor": 3}
    assert parse(Demo, ["dirs=[x,y]"]).dirs == ["x", "y"]


def test_old_flags_are_read_with_a_note(capsys):
    o = parse(Demo, ["a", "--games", "4", "--no-progress", "--window", "0.3", "0.6",
                     "--env=gym"])
    assert (o.games, o.progress, o.window, o.env) == (4, False, [0.3, 0.6], "gym")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "games=4" in err and "progress=false" in err


@pytest.mark.parametrize("argv, words", [
    (["a", "gmes=3"], ["unknown option 'gmes'", "did you mean games", "valid options"]),
    (["a", "games=0"], ["games:", "greater than or equal to 1"]),
    (["a", "env=x"], ["env:", "'aec' or 'gym'"]),
    ([], ["dirs is required"]),
    (["a", "-x"], ["unknown flag '-x'"]),
    (["a", "--bogus", "1"], ["unknown option '--bogus'"]),
])
def test_bad_input_is_one_line(argv, words):
    with pytest.raises(UsageError) as exc:
        parse(Demo, argv)
    text = str(exc.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_exit_codes_and_help(capsys):
    with pytest.raises(SystemExit) as exc:
        cli(Demo, ["games=x", "a"], "python -m demo")
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("error: games:")
    with pytest.raises(SystemExit) as exc:
        cli(Demo, ["--help"], "python -m demo")
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out == help_text(Demo, "python -m demo") + "\n"
    assert "usage: python -m demo DIRS..." in out and "games=10" in out
    assert "novelty.params.KEY=VALUE" in out
