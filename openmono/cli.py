"""Moved to `openmono_cli`: the command-line layer is no part of the engine (issue 53).
This name forwards to it for one release, for code outside the project that imports it;
nothing in the project does."""

from openmono_cli import *  # noqa: F401,F403
from openmono_cli import (HELP_WORDS, HelpRequested, Options, UsageError,  # noqa: F401
                          cli, fail, help_text, parse, read_options, respell, respelled_note)
