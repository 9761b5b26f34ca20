"""docs/agents.md, done in a fresh process: an agent in its own package registered
through the `openmono.agents` entry points, the `module:Class` form, and the one-line
errors for unknown and broken agents.

The package is "installed" the way pip lays it out - the module plus a `.dist-info`
folder with its entry points - on PYTHONPATH of the child process: a real `pip install`
would change the test environment (and needs the network or a wheel cache).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _page_files() -> dict[str, str]:
    """The files docs/agents.md shows: fenced blocks whose first line names the file."""
    text = (ROOT / "docs" / "agents.md").read_text()
    files = {}
    for body in re.findall(r"```(?:python|toml)\n(.*?)```", text, re.S):
        first, _, rest = body.partition("\n")
        if first.startswith("# my-agent/"):
            files[first[2:]] = rest
    assert set(files) == {"my-agent/my_agent/__init__.py", "my-agent/pyproject.toml"}
    return files


def _install(tmp: Path) -> Path:
    """The page's package, laid out as pip installs it (module + dist-info)."""
    import tomllib

    files = _page_files()
    site = tmp / "site"
    (site / "my_agent").mkdir(parents=True)
    (site / "my_agent" / "__init__.py").write_text(files["my-agent/my_agent/__init__.py"])
    project = tomllib.loads(files["my-agent/pyproject.toml"])["project"]
    info = site / "my_agent-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    eps = project["entry-points"]["openmono.agents"]
    (info / "entry_points.txt").write_text(
        "[openmono.agents]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
    return site


def _trial(tmp: Path, site: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args, "games=2",
                           "progress=false", "plots=false", "reference=null",
                           f"hydra.run.dir={tmp / 'run'}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


def test_entry_point_agent_from_its_own_package(tmp_path: Path) -> None:
    site = _install(tmp_path)
    done = _trial(tmp_path, site, "agent=cautious", "agent.max_price=150")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["agent"] == "cautious" and summary["agent_params"] == {"max_price": 150}


def test_module_class_form(tmp_path: Path) -> None:
    site = _install(tmp_path)
    done = _trial(tmp_path, site, "agent=my_agent:Cautious")
    assert done.returncode == 0, done.stderr
    records = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(records) == 2 and "my_agent:Cautious" in records[0]


def test_unknown_and_broken_agents_are_one_line_errors(tmp_path: Path) -> None:
    site = _install(tmp_path)
    (site / "broken_agent.py").write_text("raise ImportError('needs a GPU')\n")
    info = site / "broken_agent-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-agent\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[openmono.agents]\nbroken = broken_agent:Agent\n")
    for agent, says in (("agent=broken", "needs a GPU"),
                        ("agent=my_agent:Missing", "has no attribute")):
        done = _trial(tmp_path, site, agent)
        assert done.returncode == 2, (agent, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], (agent, lines)
        assert "available agents: baseline" in lines[0] and "cautious" in lines[0]
    assert not (tmp_path / "run").exists()


def test_unknown_agents_in_process() -> None:
    import pytest

    from agents.registry import UnknownAgentError, make_agent

    for name, says in (("cautios", "unknown agent"), ("no_such.module:Agent", "No module named"),
                       ("agents.base:NO_NOVELTY", "not a class")):
        with pytest.raises(UnknownAgentError, match=says) as info:
            make_agent(name)
        assert "available agents: baseline" in str(info.value)
        assert "\n" not in str(info.value)
