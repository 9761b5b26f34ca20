"""Agents over the network: `agent=remote` seats (server side, `agents.remote.seat`) and
the client that plays any agent object over the wire (`serve`, `python -m agents.remote
serve AGENT --port P --token T`). The protocol is in docs/protocol.md."""

from __future__ import annotations

from typing import Any


def serve(agent: Any, host: str = "127.0.0.1", port: int = 7300, token: str = "",
          **options: Any) -> int:
    """Play `agent` for the seat of `token` until the harness says goodbye; returns the
    number of games played (see `agents.remote.client.serve`)."""
    from agents.remote.client import serve as _serve

    return _serve(agent, host, port, token, **options)
