"""The guides' examples run as written.

A fenced `bash` or `python` block preceded by `<!-- run -->` is executed here, in a
fresh process in an empty folder; `<!-- run: OLD => NEW | ... -->` first replaces text
in the block (to shorten a trial, say; `\n` is a newline) - the comment is invisible on
the site and on GitHub. Blocks that need a cluster, the network or minutes of play stay unmarked, and
the pages' own tests (`test_novelties_docs`, `test_agent_packages`, `test_envs`) check
the longer walkthroughs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ["README.md", "docs/evaluation.md", "docs/novelties.md", "docs/agents.md",
          "docs/drl.md", "docs/engine.md", "docs/detection.md"]
# Guides whose examples other tests run: the set-up commands (.ci/run runs the README's),
# the environments' loops with short games (tests/test_envs.py), a Ray sweep
# (tests/test_cluster.py).
ELSEWHERE = {"docs/index.md", "docs/env.md", "docs/scaling.md"}
MARK = re.compile(r"^<!-- run(?::\s*(.*?))? -->\n```(bash|python)\n(.*?)^```", re.S | re.M)


def _examples() -> list[tuple[str, str, str]]:
    out = []
    for page in GUIDES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for n, m in enumerate(MARK.finditer(text)):
            edits, lang, body = m.groups()
            for edit in filter(None, (e.strip() for e in (edits or "").split(" | "))):
                old, sep, new = (part.strip().replace("\\n", "\n")
                                 for part in edit.partition("=>"))
                assert sep and old in body, f"{page}: edit {edit!r} finds nothing"
                body = body.replace(old, new)
            out.append((f"{page}#{n}", lang, body))
    return out


EXAMPLES = _examples()


def test_every_guide_with_commands_runs_some():
    """A guide that shows commands has at least one of them run here."""
    run = {name.split("#")[0] for name, _, _ in EXAMPLES}
    for page in GUIDES:
        text = (ROOT / page).read_text(encoding="utf-8")
        if re.search(r"^```(bash|python)\n(python|import|from)", text, re.M):
            assert page in run, f"{page} shows commands but marks none <!-- run -->"


@pytest.mark.parametrize("name, lang, body", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(name, lang, body, tmp_path):
    if "gymnasium" in body or "pettingzoo" in body or "envs" in body:
        pytest.importorskip("gymnasium")
        pytest.importorskip("pettingzoo")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
           "HYDRA_FULL_ERROR": "1"}
    cmd = ["bash", "-e", "-o", "pipefail", "-c", body] if lang == "bash" \
        else [sys.executable, "-c", body]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, f"{name} failed:\n{body}\n--- stderr:\n{done.stderr[-3000:]}"
