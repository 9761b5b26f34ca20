"""The one command-line parser of every non-Hydra entry point.

A command declares its options once, as a pydantic model whose fields are the options
(name, type, default, and a one-line `description`); `parse` turns `key=value` words
(the syntax of Hydra's overrides: `games=500 agents=[a,b] progress=false`) into that
model, validated once. Bare words fill the command's `positional` fields in order (a
list field takes the rest), so `python -m evaluation.rescore A B` is `dirs=[A,B]`; a
word is an option only when what stands before its `=` is an option's name.
Bad input is one `UsageError` line naming the option and what is valid; `--help`
(`-h`, `help`) lists the options from the model. The old argparse spelling
(`--per-cell 20`, `--fresh`) is still read, with one note on stderr saying what to
write instead, so recorded commands keep working.

It is a package of its own, beside the engine and not in it, that imports nothing of the
project: every layer's commands (the engine's protocol tool, agents' tools, evaluation,
envs) may use it, and the engine does not carry it (`tests/test_layers.py`).
"""

from __future__ import annotations

import re
import sys
import types
from difflib import get_close_matches
from pathlib import Path
from typing import (Any, ClassVar, Literal, Sequence, TypeVar, Union, get_args,
                    get_origin)

from pydantic import BaseModel, ConfigDict, Field, ValidationError

HELP_WORDS = ("--help", "-h", "help")
# What may stand before `=` in an option; any other word (`runs/a=label`) is positional.
OPTION_NAME = re.compile(r"[+~]?[A-Za-z_][\w.]*")


class UsageError(ValueError):
    """Bad command-line input; the message says what is wrong and what is valid."""


class HelpRequested(Exception):
    """`--help` was asked for; the message is the help text."""


class Options(BaseModel):
    """Base of a command's options: unknown keys are refused, values are final."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    # Fields filled, in order, by the words without `=` (the last may be a list).
    positional: ClassVar[tuple[str, ...]] = ()

    def __getitem__(self, key: str) -> Any:
        """`opts["novelty.difficulty"]`: an option read by the name the user types."""
        return getattr(self, _field_of(type(self), key))

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


M = TypeVar("M", bound=Options)


# --- values -------------------------------------------------------------------------------
def parse_value(text: str) -> Any:
    """A Hydra-style value: [a,b] lists, true/false, null, numbers, else the text."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_value(p) for p in inner.split(",")] if inner else []
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip("'\"")


def _text(raw: str) -> Any:
    """A value for a text field: kept as typed (`out=2024` is the folder "2024")."""
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        return [p.strip().strip("'\"") for p in inner.split(",")] if inner else []
    return None if raw.lower() in ("null", "none") else raw.strip("'\"")


def _parts(annotation: Any) -> list[Any]:
    """The types an annotation allows, Optional and unions unwrapped."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [p for a in get_args(annotation) for p in _parts(a)]
    return [annotation]


def _is_list(annotation: Any) -> bool:
    return any(get_origin(p) in (list, tuple) or p in (list, tuple) for p in _parts(annotation))


def _is_dict(annotation: Any) -> bool:
    return any(get_origin(p) is dict or p is dict for p in _parts(annotation))


def _is_bool(annotation: Any) -> bool:
    return bool in _parts(annotation)


def _wants_text(annotation: Any) -> bool:
    """Only text (or paths) fits, so a value like `2024` stays the text "2024"."""
    parts = [p for p in _parts(annotation) if p is not type(None)]
    for p in list(parts):
        if get_origin(p) in (list, tuple):
            parts.remove(p)
            parts += [a for a in get_args(p) if a is not Ellipsis]
    return bool(parts) and all(p in (str, Path) for p in parts)


def _value(annotation: Any, raw: str) -> Any:
    value = _text(raw) if _wants_text(annotation) else parse_value(raw)
    if _is_list(annotation) and value is not None and not isinstance(value, list):
        value = [value]
    return value


# --- names --------------------------------------------------------------------------------
def option_names(model: type[Options]) -> dict[str, str]:
    """{the name the user types: the field}; a field's alias is its option name."""
    return {(f.alias or name): name for name, f in model.model_fields.items()}


def _field_of(model: type[Options], key: str) -> str:
    names = option_names(model)
    if key in names:
        return names[key]
    if key in model.model_fields:
        return key
    raise KeyError(key)


def group_prefix(model: type[Options], field: str) -> str | None:
    """What a dict option's keys are written under (`agent.planner.adapt=false`): its
    option name, or the `prefix` it declares (`Field(..., json_schema_extra={"prefix":
    "agent"})`) when that name is taken by another option (`agent=planner`)."""
    info = model.model_fields[field]
    if not _is_dict(info.annotation):
        return None
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return str(extra.get("prefix") or info.alias or field)


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _unknown(model: type[Options], key: str) -> UsageError:
    names = list(option_names(model))
    return UsageError(f"unknown option {key!r}{did_you_mean(key, names)}; valid options: "
                      f"{', '.join(names)}")


# --- the old argparse spelling -------------------------------------------------------------
def _from_flags(model: type[Options], argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """`--per-cell 20 --fresh --window 0.3 0.6` as `per_cell=20 fresh=true
    window=[0.3,0.6]`; returns the words and the rewritten flags (for the note)."""
    names = option_names(model)
    out: list[str] = []
    said: list[str] = []
    repeated: dict[str, str] = {}
    words = list(argv)
    i = 0
    while i < len(words):
        arg = words[i]
        i += 1
        if not arg.startswith("--") or arg in HELP_WORDS:
            out.append(arg)
            continue
        flag, eq, given = arg[2:].partition("=")
        key = flag.replace("-", "_")
        if not eq and key not in names and _is_choice(model, flag):
            out.append(flag)  # `--check` for the word `check` of a positional choice
            said.append(flag)
            continue
        negated = key.startswith("no_") and key not in names and key[3:] in names
        if negated:
            key = key[3:]
        if key not in names:
            raise UsageError(f"unknown option {arg!r}{did_you_mean(key, list(names))}; options "
                             f"are key=value: {', '.join(names)}")
        annotation = model.model_fields[names[key]].annotation
        if negated or (_is_bool(annotation) and not eq):
            text = "false" if negated else "true"
        elif eq:
            text = given
        elif _is_list(annotation):
            taken = []
            while i < len(words) and not words[i].startswith("--") and "=" not in words[i]:
                taken.append(words[i])
                i += 1
            text = f"[{','.join(taken)}]"
        elif i < len(words):
            text = words[i]
            i += 1
        else:
            raise UsageError(f"{arg} needs a value: write {key}=VALUE")
        if _is_list(annotation) and key in repeated:  # `--plugin a --plugin b`
            text = f"[{repeated[key][1:-1]},{text[1:-1] if text.startswith('[') else text}]"
            out[out.index(f"{key}={repeated[key]}")] = f"{key}={text}"
            said[said.index(f"{key}={repeated[key]}")] = f"{key}={text}"
            repeated[key] = text
            continue
        if _is_list(annotation):
            text = text if text.startswith("[") else f"[{text}]"
            repeated[key] = text
        out.append(f"{key}={text}")
        said.append(f"{key}={text}")
    return out, said


def _is_choice(model: type[Options], word: str) -> bool:
    """`word` is one of the fixed values (a Literal) of a positional option."""
    for field in model.positional:
        for part in _parts(model.model_fields[field].annotation):
            if get_origin(part) is Literal and word in get_args(part):
                return True
    return False


# --- parsing ------------------------------------------------------------------------------
def parse(model: type[M], argv: Sequence[str], prog: str = "") -> M:
    """The command's options from its words, validated once.

    Raises HelpRequested (its text lists the options) or UsageError (one line)."""
    if any(a in HELP_WORDS for a in argv):
        raise HelpRequested(help_text(model, prog))
    argv, said = _from_flags(model, argv)
    if said:
        print(f"note: --flags are the old spelling; write {' '.join(said)}", file=sys.stderr)
    names = option_names(model)
    data: dict[str, Any] = {}
    bare: list[str] = []
    for arg in argv:
        if arg.startswith("-") and "=" not in arg:
            raise UsageError(f"unknown flag {arg!r}; options are key=value: "
                             f"{', '.join(names)} (--help lists them)")
        key, eq, raw = arg.partition("=")
        if not eq or not OPTION_NAME.fullmatch(key):  # a word, e.g. a path (`run/a=label`)
            bare.append(arg)
            continue
        key = key.lstrip("+")
        _set(model, data, key, raw)
    _fill_positional(model, data, bare)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(_one_line(model, exc)) from None


def _set(model: type[Options], data: dict[str, Any], key: str, raw: str) -> None:
    names = option_names(model)
    if key in names:
        field = names[key]
        prefix = group_prefix(model, field)
        if prefix is not None:  # a group is written key by key
            others = [n for n in names if n != key]
            raise UsageError(f"{key} is a group of options: write {prefix}."
                             f"{'NAME.' if _nested(model.model_fields[field].annotation) else ''}"
                             f"KEY=VALUE{did_you_mean(key, others)}")
        data[field] = _value(model.model_fields[field].annotation, raw)
        return
    for field in model.model_fields:  # `agent.planner.adapt=false` into a dict option
        option = group_prefix(model, field)
        if option is not None and key.startswith(option + "."):
            path = key[len(option) + 1:].split(".")
            if not all(path):
                break
            node = data.setdefault(field, {})
            for part in path[:-1]:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise UsageError(f"{key}: {'.'.join(path[:-1])} is not a group of options")
            node[path[-1]] = parse_value(raw)
            return
    raise _unknown(model, key)


def _fill_positional(model: type[Options], data: dict[str, Any], bare: list[str]) -> None:
    fields = list(model.positional)
    while bare:
        if not fields:
            names = ", ".join(option_names(model))
            raise UsageError(f"unexpected argument {bare[0]!r}: options are key=value "
                             f"({names})")
        field = fields.pop(0)
        annotation = model.model_fields[field].annotation
        if field in data:
            raise UsageError(f"{_option(model, field)} is given twice (as a word and as "
                             f"{_option(model, field)}=)")
        if _is_list(annotation):
            data[field] = [_value(_element(annotation), w) for w in bare]
            bare = []
        else:
            data[field] = _value(annotation, bare.pop(0))


def _element(annotation: Any) -> Any:
    for p in _parts(annotation):
        if get_origin(p) in (list, tuple) and get_args(p):
            return get_args(p)[0]
    return Any


def _option(model: type[Options], field: str) -> str:
    return model.model_fields[field].alias or field


def _one_line(model: type[Options], exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = [str(x) for x in err.get("loc", ())]
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if not loc:
        return msg
    field = loc[0]
    name = _option(model, field) if field in model.model_fields else field
    where = ".".join([name, *loc[1:]])
    if err.get("type") == "missing":
        about = model.model_fields[field].description if field in model.model_fields else ""
        return f"{where} is required" + (f": {about}" if about else "")
    got = err.get("input")
    shown = "" if isinstance(got, dict) else f", got {got!r}"
    return f"{where}: {msg[:1].lower()}{msg[1:]}{shown}"


# --- the options every command spells the same way ------------------------------------------
def games_field(default: int, what: str = "games to play") -> Any:
    return Field(default, ge=1, description=what)


def seed_field(default: int = 0, what: str = "the first game's seed") -> Any:
    return Field(default, ge=0, description=what)


def workers_field(default: int = 1, what: str = "processes that play in parallel") -> Any:
    return Field(default, ge=1, description=what)


def progress_field(default: bool = True) -> Any:
    return Field(default, description="show a progress bar")


def out_field(default: str | None = None, what: str = "where the results are written") -> Any:
    return Field(default, description=what)


# --- help ---------------------------------------------------------------------------------
def _default(field: Any) -> str:
    if field.is_required():
        return "(required)"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "VALUE"
    return str(value)


def _nested(annotation: Any) -> bool:
    """A dict of dicts (`agent.NAME.KEY`)."""
    return any(get_origin(p) is dict and _is_dict(get_args(p)[-1]) for p in _parts(annotation)
               if get_args(p))


def help_text(model: type[Options], prog: str = "") -> str:
    """Usage, the command's one-line purpose, and every option with its default."""
    words = " ".join(f"{model.positional[i].upper()}..." if _is_list(
        model.model_fields[f].annotation) else f.upper() for i, f in enumerate(model.positional))
    lines = [f"usage: {prog or 'python -m ...'} {words + ' ' if words else ''}[key=value ...]"]
    purpose = (model.__doc__ or "").strip().splitlines()
    if purpose:
        lines += ["", purpose[0]]
    lines += ["", "options (key=value; lists as [a,b]; true/false; null):"]
    rows = []
    # The command's own options first, then those it shares (novelty, remote, ...).
    own = model.__dict__.get("__annotations__", {})
    fields = sorted(model.model_fields.items(), key=lambda kv: kv[0] not in own)
    for name, field in fields:
        option = field.alias or name
        if _is_dict(field.annotation):
            group = "NAME." if _nested(field.annotation) else ""
            option = f"{group_prefix(model, name)}.{group}KEY"
        rows.append((f"{option}={_default(field)}", field.description or ""))
    width = min(34, max(len(r[0]) for r in rows) + 2) if rows else 0
    for left, right in rows:
        pad = left.ljust(width) if len(left) < width else left + "  "
        lines.append(f"  {pad}{right}")
    return "\n".join(lines)


def resolve_model(model: type[BaseModel], namespace: dict[str, Any]) -> None:
    """Finish a model whose postponed annotations pydantic could not resolve. Why: run as
    `python -m cProfile -m pkg.cmd`, the command's module is not `sys.modules['__main__']`,
    where pydantic looks for the names; `namespace` is the globals of its `main`."""
    if not getattr(model, "__pydantic_complete__", True):
        model.model_rebuild(_types_namespace=namespace)


def cli(model: type[M], argv: Sequence[str] | None = None, prog: str = "") -> M:
    """`parse` for a command's `main`: help printed (exit 0), bad input one line (exit 2)."""
    resolve_model(model, sys._getframe(1).f_globals)
    try:
        return parse(model, sys.argv[1:] if argv is None else argv, prog)
    except HelpRequested as exc:
        print(str(exc))
        raise SystemExit(0) from None
    except UsageError as exc:
        fail(str(exc))
        raise  # (fail exits)


def read_options(model: type[M], argv: Sequence[str] | None, prog: str = "") -> M | int:
    """`parse` for a `main` that returns its exit code: the options, or the code after
    printing the help (0) or the one-line error (2)."""
    resolve_model(model, sys._getframe(1).f_globals)
    try:
        return parse(model, sys.argv[1:] if argv is None else argv, prog)
    except HelpRequested as exc:
        print(str(exc))
        return 0
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def respell(argv: Sequence[str], renames: dict[str, str]) -> tuple[list[str], list[str]]:
    """`argv` with every option renamed since (`renames`: old name -> new name) written
    under its new name, Hydra's `+`/`~` prefixes kept; and the old words found, so that a
    command can say once how they are written now (`respelled_note`). Old commands, and
    those recorded beside results, keep working.

    >>> respell(["+out_dir=x", "games=2"], {"out_dir": "out"})
    (['+out=x', 'games=2'], ['+out_dir=x'])
    """
    out, old = [], []
    for arg in argv:
        body = arg.lstrip("+~")
        prefix = arg[: len(arg) - len(body)]
        key, eq, value = body.partition("=")
        if key in renames and not arg.startswith("-"):
            old.append(arg)
            arg = f"{prefix}{renames[key]}{eq}{value}"
        out.append(arg)
    return out, old


def respelled_note(old: Sequence[str], renames: dict[str, str]) -> str:
    """One line for stderr: what was read, and how it is written now."""
    new, _ = respell(old, renames)
    return f"note: {' '.join(old)} is the old spelling; now: {' '.join(new)}"


def fail(message: str, code: int = 2) -> None:
    """Print a short error (no traceback) and exit."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)
