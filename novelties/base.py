"""The novelty plugin API: a `Novelty` subclass, its `Params`, presets and `apply`.

A plugin is a class with a `name`, a `category` ("class", "attribute" or
"representation"), a one-line `description` (which says what makes `hard` hard), a
pydantic `Params` model, `presets` for "easy", "medium" and "hard", and
`apply(schema, params)`. `apply` returns a NEW schema (schemas are frozen: build changed
copies with `replace`) or an `Applied` that also carries rule hooks and the changes
those hooks make, which no schema diff can see. The registry completes the same
`Applied` with the novelty's name, difficulty, parameters and ground truth: one type for
"a novelty applied to a schema" from the plugin to the trial. Anything registered with
`openmono.kinds` / `openmono.actions` must be registered inside `apply` (idempotently:
always the same handler object), so a schema using the kind validates afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import GameSchema

if TYPE_CHECKING:
    from novelties.ground_truth import Change

CATEGORIES = ("class", "attribute", "representation")
DIFFICULTIES = ("easy", "medium", "hard")

M = TypeVar("M", bound=BaseModel)


class NoveltyError(ValueError):
    """An unknown novelty, an invalid parameter or a plugin that fails: a short message."""


class NoveltyParams(BaseModel):
    """Base for a plugin's `Params`: frozen, and unknown keys are errors (typos fail)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class HookChange:
    """A change made by a rule hook or an observation transform, declared by the plugin.

    `entity` uses the ground-truth naming (`square:NAME`, `group:NAME`, `bank`, `dice`,
    `rule:HOOK`, `action:KIND`, `observation:FIELD`, ...); `visible` says whether an
    agent can read the change off its observation (not merely infer it from effects).
    """

    entity: str
    attribute: str
    description: str
    visible: bool = False
    old: Any = None
    new: Any = None


@dataclass(frozen=True)
class Applied:
    """A novelty applied to a schema: the new schema, its hooks, what they change.

    A plugin's `apply` fills the first four fields: `declared` lists the changes its
    hooks make, and `visibility` overrides whether schema changes under an entity prefix
    are visible (default: `openmono.schema.HIDDEN_FIELDS` - dice and decks hidden, the
    rest shown). `novelties.apply_novelty` and `novelties.compose` fill in the rest: the
    novelty's name, category, difficulty and validated parameters, and `changes`, its
    ground truth (a schema diff plus the declared changes).
    """

    schema: GameSchema
    hooks: Hooks = NO_HOOKS
    declared: tuple[HookChange, ...] = ()
    visibility: Mapping[str, bool] = field(default_factory=dict)
    name: str = ""
    category: str = ""
    difficulty: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    changes: tuple[Change, ...] = ()

    @property
    def ground_truth(self) -> list[dict[str, Any]]:
        """The ground-truth changes as JSON-ready dicts (what results files record)."""
        return [c.to_json() for c in self.changes]


class Novelty:
    """Subclass this; see the module docstring and docs/novelties.md."""

    name: ClassVar[str] = ""
    category: ClassVar[str] = ""
    description: ClassVar[str] = ""
    Params: ClassVar[type[NoveltyParams]] = NoveltyParams
    presets: ClassVar[dict[str, dict[str, Any]]] = {}

    def apply(self, schema: GameSchema, params: Any) -> Applied | GameSchema:
        """The world after the novelty: a new schema, or an `Applied` with rule hooks.

        `schema` is the world before (frozen: build changed copies with `replace`),
        `params` the validated `Params` of the preset (with any overrides). Keep it
        pure: the same inputs give the same schema, so trials can re-apply it.

        Examples:
            The Go salary becomes a parameter:

            >>> import openmono
            >>> from novelties.base import Novelty, NoveltyParams, replace
            >>> class GoPay(NoveltyParams):
            ...     salary: int = 400
            >>> class RicherGo(Novelty):
            ...     name, category = "richer_go", "attribute"
            ...     description = "The Go salary changes; hard: by little"
            ...     Params = GoPay
            ...     presets = {"easy": {"salary": 400}, "medium": {"salary": 300},
            ...                "hard": {"salary": 250}}
            ...     def apply(self, schema, params):
            ...         return replace(schema, bank=replace(schema.bank, go_salary=params.salary))
            >>> plugin = RicherGo()
            >>> plugin.run_apply(openmono.standard_schema(), plugin.make_params("hard")
            ...                  ).schema.bank.go_salary
            250

            A rule no schema holds is a hook: return `Applied(schema, hooks=Hooks(...),
            declared=(HookChange(...),))` (see `openmono.hooks.Hooks`).
        """
        raise NotImplementedError

    @classmethod
    def difficulties(cls) -> list[str]:
        """The presets this plugin has, in the order easy, medium, hard."""
        return [d for d in DIFFICULTIES if d in cls.presets]

    def make_params(self, difficulty: str = "medium",
                    overrides: Mapping[str, Any] | None = None) -> NoveltyParams:
        """The preset for `difficulty` with `overrides` on top, validated."""
        if difficulty not in self.presets:
            raise NoveltyError(
                f"novelty {self.name!r} has no difficulty {difficulty!r}; "
                f"choose one of: {', '.join(self.difficulties())}")
        values = {**self.presets[difficulty], **(overrides or {})}
        try:
            return self.Params.model_validate(values)
        except ValidationError as exc:
            raise NoveltyError(
                f"invalid parameter for novelty {self.name!r}: {_short(exc)}") from None

    def run_apply(self, schema: GameSchema, params: NoveltyParams) -> Applied:
        """`apply`, with a plugin failure turned into a short `NoveltyError`."""
        try:
            out = self.apply(schema, params)
        except NoveltyError:
            raise
        except ValidationError as exc:
            raise NoveltyError(
                f"novelty {self.name!r} made an invalid schema: {_short(exc)}") from None
        except ValueError as exc:  # a plugin's own message about its parameters
            raise NoveltyError(f"novelty {self.name!r} cannot apply: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not print a traceback
            raise NoveltyError(
                f"novelty {self.name!r} failed in apply: {type(exc).__name__}: {exc}") from None
        if isinstance(out, GameSchema):
            out = Applied(out)
        if not isinstance(out, Applied) or not isinstance(out.schema, GameSchema):
            raise NoveltyError(
                f"novelty {self.name!r}: apply must return a GameSchema or an Applied, "
                f"not {type(out).__name__}")
        return out


def replace(model: M, **changes: Any) -> M:
    """A validated copy of a frozen pydantic model with some fields changed.

    (`model_copy(update=...)` skips validation; this does not, so a bad value fails
    with pydantic's message naming the field.)
    """
    data = {k: getattr(model, k) for k in type(model).model_fields}
    data.update(changes)
    return type(model).model_validate(data)


def validate_class(cls: Any) -> str | None:
    """Why `cls` is not a usable plugin class (None when it is)."""
    if not isinstance(cls, type) or not issubclass(cls, Novelty):
        return "it is not a subclass of novelties.base.Novelty"
    if not cls.name:
        return "it has no name"
    if cls.category not in CATEGORIES:
        return f"its category {cls.category!r} is not one of {', '.join(CATEGORIES)}"
    if not cls.description:
        return "it has no description"
    if not (isinstance(cls.Params, type) and issubclass(cls.Params, BaseModel)):
        return "its Params is not a pydantic model"
    missing = [d for d in DIFFICULTIES if d not in cls.presets]
    if missing:
        return f"it has no preset for {', '.join(missing)}"
    return None


def _short(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(params)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)
