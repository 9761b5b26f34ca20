"""The difficulty tool measures into a file of the user's own unless told otherwise, and
`python -m novelties list measured=FILE` reads such a file.

Why: a user measuring their own plugin must not rewrite the data shipped with openmono
(and the catalogue table generated from it) without saying so.
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.sweeps.difficulty import DEFAULT_OUT, main
from novelties.__main__ import main as novelties_main
from novelties.measured import DATA_FILE


def test_the_default_file_is_in_the_working_folder_not_the_package() -> None:
    assert not DEFAULT_OUT.is_absolute() and Path.cwd().joinpath(DEFAULT_OUT) != DATA_FILE


def test_a_run_without_out_leaves_the_shipped_file_alone(tmp_path, monkeypatch, capsys) -> None:
    shipped = DATA_FILE.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["plugin=[go_salary]", "preset=[hard]", "games=2", "progress=false"]) == 0
    assert DATA_FILE.read_bytes() == shipped
    mine = json.loads((tmp_path / DEFAULT_OUT).read_text())
    assert set(mine["plugins"]) == {"go_salary"}
    assert str(DEFAULT_OUT) in capsys.readouterr().out


def test_write_docs_needs_the_shipped_file(tmp_path, capsys) -> None:
    assert main(["plugin=[go_salary]", "games=2", f"out={tmp_path / 'm.json'}",
                 "write_docs=true", "progress=false"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "out=novelties/data/measured.json" in err
    assert not (tmp_path / "m.json").exists()


def test_novelties_list_reads_another_measured_file(tmp_path, capsys) -> None:
    out = tmp_path / "m.json"
    assert main(["plugin=[go_salary]", "games=2", f"out={out}", "progress=false"]) == 0
    capsys.readouterr()
    assert novelties_main(["list", "--json", f"measured={out}"]) == 0
    rows = {r["name"]: r["measured"] for r in json.loads(capsys.readouterr().out)}
    assert rows["go_salary"]["note"] is None and rows["rent_hike"]["note"].startswith(
        "not measured")
    assert novelties_main(["list", "--json"]) == 0  # the shipped file by default
    rows = {r["name"]: r["measured"] for r in json.loads(capsys.readouterr().out)}
    assert rows["rent_hike"]["note"] is None


def test_novelties_list_refuses_a_missing_or_broken_file_in_one_line(tmp_path, capsys) -> None:
    assert novelties_main(["list", f"measured={tmp_path / 'none.json'}"]) == 2
    (tmp_path / "bad.json").write_text("{not json")
    assert novelties_main(["list", f"measured={tmp_path / 'bad.json'}"]) == 2
    assert novelties_main(["list", "colour=red"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("error:") for line in err)
