"""The remote-agent protocol: every message, as pydantic models shared by both ends.

Newline-delimited JSON over TCP (docs/protocol.md). The harness is the server: a client
connects, says `hello` with its seat's token and the protocol version, and then
receives `begin_game`, `decide` (an observation, exactly `Observation.to_json()`, and
the decision's budget), `end_game`, `report_request` and `bye`; it answers `decide`
with `action` and `report_request` with `report`. The JSON Schema of every message is
generated from these models (`python -m openmono.protocol schema`) and shipped as
`openmono/data/protocol-v1.schema.json`.

The public rules (the `rules` member of an observation, a few kilobytes that change
only when a novelty arrives) travel beside the observation: `begin_game` and `decide`
carry `rules_id`, and `rules` (+ `deck_names`) only when that id is new to the client.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, TypeAdapter

from openmono.actions import CORE_ACTION_KINDS

PROTOCOL_VERSION = 1
DEFAULT_MAX_LINE = 1 << 20  # bytes per message, newline included
SCHEMA_FILE = f"protocol-v{PROTOCOL_VERSION}.schema.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- actions: every core kind with its parameters, and parameter-free plugin kinds ------------
class ConcludeAction(_Model):
    """End the phase; with `until_cash`, a standing order (see `openmono.actions.Conclude`)."""
    kind: Literal["conclude"]
    until_cash: int | None = None
    watch: Literal["mine", "board", "cash"] = "mine"


class BuyAction(_Model):
    """`buy` on the wire."""
    kind: Literal["buy"]


class DeclineAction(_Model):
    """`decline` on the wire."""
    kind: Literal["decline"]


class BidAction(_Model):
    """`bid` on the wire."""
    kind: Literal["bid"]
    amount: int


class DropOutAction(_Model):
    """`drop_out` on the wire."""
    kind: Literal["drop_out"]


class PayJailFineAction(_Model):
    """`pay_jail_fine` on the wire."""
    kind: Literal["pay_jail_fine"]


class UseJailCardAction(_Model):
    """`use_jail_card` on the wire."""
    kind: Literal["use_jail_card"]


class BuildAction(_Model):
    """`build` on the wire."""
    kind: Literal["build"]
    square: int


class SellBuildingAction(_Model):
    """`sell_building` on the wire."""
    kind: Literal["sell_building"]
    square: int


class MortgageAction(_Model):
    """`mortgage` on the wire."""
    kind: Literal["mortgage"]
    square: int


class UnmortgageAction(_Model):
    """`unmortgage` on the wire."""
    kind: Literal["unmortgage"]
    square: int


class SellPropertyAction(_Model):
    """`sell_property` on the wire."""
    kind: Literal["sell_property"]
    square: int


class OfferTradeAction(_Model):
    """Offer seat `to` properties (squares), cash and jail cards for theirs."""
    kind: Literal["offer_trade"]
    to: int
    give: list[int] = []
    get: list[int] = []
    give_cash: int = 0
    get_cash: int = 0
    give_jail_cards: int = 0
    get_jail_cards: int = 0


class AcceptTradeAction(_Model):
    """`accept_trade` on the wire."""
    kind: Literal["accept_trade"]


class RejectTradeAction(_Model):
    """`reject_trade` on the wire."""
    kind: Literal["reject_trade"]


class PluginAction(_Model):
    """A parameter-free action a novelty plugin adds (listed in `plugin_actions`)."""
    kind: str = Field(pattern=r"^[a-z][a-z0-9_]*$")


CORE_ACTION_MODELS: dict[str, type[_Model]] = {
    m.model_fields["kind"].annotation.__args__[0]: m  # type: ignore[union-attr]
    for m in (ConcludeAction, BuyAction, DeclineAction, BidAction, DropOutAction,
              PayJailFineAction, UseJailCardAction, BuildAction, SellBuildingAction,
              MortgageAction, UnmortgageAction, SellPropertyAction, OfferTradeAction,
              AcceptTradeAction, RejectTradeAction)
}
assert set(CORE_ACTION_MODELS) == set(CORE_ACTION_KINDS)


def _action_tag(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return kind if kind in CORE_ACTION_MODELS else "plugin"


WireAction = Annotated[
    Union[tuple(Annotated[m, Tag(k)] for k, m in CORE_ACTION_MODELS.items())  # type: ignore[misc]
          + (Annotated[PluginAction, Tag("plugin")],)],
    Discriminator(_action_tag),
]


# --- client -> server -----------------------------------------------------------------------
class Hello(_Model):
    """The first message: the seat's token, the protocol version, and (optionally) the
    answers the agent gives in some phases whatever it observes (`fixed_answers`)."""
    type: Literal["hello"]
    version: int
    token: str
    agent: str = ""
    fixed_answers: dict[str, WireAction] = {}


class ActionAnswer(_Model):
    """The action for request `id`. `error`: the agent failed (raised) and `action` is
    the default a client answers instead; the harness counts it as a fault, as it does
    an exception in process."""
    type: Literal["action"]
    id: int
    action: WireAction
    error: str | None = None


class ChangeModel(_Model):
    """One characterised change in a novelty report (`agents.base.NoveltyChange`)."""
    entity: str
    attribute: str
    new_value: Any = None
    old_value: Any = None


class ReportModel(_Model):
    """A novelty report on the wire (`agents.base.NoveltyReport`)."""
    detected: bool = False
    confidence: float = Field(0.0, ge=0.0, le=1.0)
    changes: list[ChangeModel] = []
    evidence: dict[str, float] = {}  # the detector's own statistics, kept with the record


class ReportAnswer(_Model):
    """A remote agent's answer to a report request."""
    type: Literal["report"]
    id: int
    report: ReportModel


ClientMessage = Annotated[Union[Hello, ActionAnswer, ReportAnswer], Field(discriminator="type")]


# --- server -> client -----------------------------------------------------------------------
class Welcome(_Model):
    """The harness's first message: the protocol version and the longest line it reads."""
    type: Literal["welcome"] = "welcome"
    version: int = PROTOCOL_VERSION
    max_line: int = DEFAULT_MAX_LINE


class Refused(_Model):
    """Sent before the server closes a connection it will not seat."""
    type: Literal["refused"] = "refused"
    version: int = PROTOCOL_VERSION
    reason: str


class BeginGame(_Model):
    """A game starts: the seat, the agent's own random seed (its own stream: it says
    nothing about dice or decks) and the opening observation."""
    type: Literal["begin_game"] = "begin_game"
    game: int
    seat: int
    players: int
    seed: int | None = None
    rules_id: int
    rules: dict[str, Any] | None = None
    deck_names: list[str] | None = None
    observation: dict[str, Any] = Field(description="Observation.to_json() without "
                                        "`rules` and `deck_names` (see rules_id)")


class Decide(_Model):
    """A decision: answer with `action` and the same `id` within `budget_ms`. `default`
    is the phase's default action: what the harness plays for a late, illegal or missing
    answer (and a fault is counted)."""
    type: Literal["decide"] = "decide"
    id: int
    budget_ms: float | None
    default: WireAction | None = None
    rules_id: int
    rules: dict[str, Any] | None = None
    deck_names: list[str] | None = None
    observation: dict[str, Any] = Field(description="Observation.to_json() without "
                                        "`rules` and `deck_names` (see rules_id)")


class GameEnd(_Model):
    """A finished game's result as the remote agent is told it."""
    winner_seat: int
    end_reason: str
    turns: int
    net_worths: list[int]
    cash: list[int]
    bankrupt_order: list[int]


class EndGame(_Model):
    """The harness tells a remote agent that a game ended, with its result and the seat's faults."""
    type: Literal["end_game"] = "end_game"
    game: int
    result: GameEnd
    faults: dict[str, int] = {}  # this seat's faults in the game, by kind


class ReportRequest(_Model):
    """After every game of a trial: answer with `report` and the same `id`."""
    type: Literal["report_request"] = "report_request"
    id: int
    budget_ms: float | None


class NoveltyAnnounced(_Model):
    """Given-detection trials: the novelty has arrived (nothing is said about it)."""
    type: Literal["novelty_announced"] = "novelty_announced"


class Bye(_Model):
    """The last message of a session, and why it ends."""
    type: Literal["bye"] = "bye"
    reason: str = "done"


ServerMessage = Annotated[Union[Welcome, Refused, BeginGame, Decide, EndGame, ReportRequest,
                                NoveltyAnnounced, Bye], Field(discriminator="type")]

CLIENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(ServerMessage)
ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(WireAction)
CLIENT_TYPES = ("hello", "action", "report")
SERVER_TYPES = ("welcome", "refused", "begin_game", "decide", "end_game", "report_request",
                "novelty_announced", "bye")


def encode(message: BaseModel) -> bytes:
    """One message as one line of UTF-8 JSON. (`warnings=False`: the harness builds its
    per-decision messages with `model_construct`, holding an action already in its wire
    form as a plain dict where the field is typed as the action's model; pydantic writes
    it as it is but warns.)"""
    return message.model_dump_json(exclude_none=False, warnings=False).encode() + b"\n"


def version_problem(version: Any) -> str | None:
    """Why a peer's protocol version cannot be spoken (None when it can)."""
    if version != PROTOCOL_VERSION:
        return (f"protocol version {version!r} is not supported: this harness speaks "
                f"version {PROTOCOL_VERSION} (docs/protocol.md)")
    return None


def json_schema() -> dict[str, Any]:
    """The versioned, machine-readable schema of every message."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "openmono remote-agent protocol",
        "version": PROTOCOL_VERSION,
        "max_line_default": DEFAULT_MAX_LINE,
        "client_to_server": CLIENT_ADAPTER.json_schema(),
        "server_to_client": SERVER_ADAPTER.json_schema(),
    }


def schema_text() -> str:
    """The JSON Schema of every message, as the text shipped in `openmono/data`."""
    return json.dumps(json_schema(), indent=1, sort_keys=True) + "\n"


def shipped_schema_text() -> str:
    """The JSON Schema shipped with the package (a test checks it equals `schema_text()`)."""
    from importlib import resources

    return resources.files("openmono.data").joinpath(SCHEMA_FILE).read_text()


def main(argv: list[str] | None = None) -> int:
    """`python -m openmono.protocol schema`: print the protocol's JSON Schema."""
    from openmono_cli import Options, read_options

    class SchemaOptions(Options):
        """Print the remote protocol's JSON Schema (what openmono/data ships)."""

        positional = ("what",)
        what: Literal["schema"] = Field(description="schema: print the JSON Schema")

    opts = read_options(SchemaOptions, argv, "python -m openmono.protocol")
    if isinstance(opts, int):
        return opts
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
