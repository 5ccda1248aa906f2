"""One command-line style for every script: a config dataclass is the command line.

Each field of the script's ``Config`` becomes a flag ``--field-name``; its help is the field's docstring (the
string literal under the field, as tyro reads it) or the comment on the field's line, and every help line ends
with the default. Lists are comma separated (``--agents random,greedy``: agent specs use ``:`` and ``+`` for their
options, never commas; a field's ``metadata={"items": "agent indices"}`` names its items in errors), booleans take
``--flag`` / ``--no-flag``, ``None`` defaults take nothing or a value.

    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--quiet", action="store_true", help="no progress bar")   # flags that are not settings
    args = ap.parse_args(argv)
    cfg = config_from(Config, args)

Why not tyro, which CleanRL uses and which reads the same docstrings: its list flags are space separated
(``--agents random greedy``), which would break every command written down in ``experiments/RESULTS.md`` (the
commands that made the committed checkpoints and reports); this module keeps those commands valid.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any


def field_docs(cls) -> dict[str, str]:
    """Each field's help text: the string literal right under it, else the comment on its line (with any comment
    lines right above it)."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    tree = ast.parse(inspect.cleandoc("\n" + source) if source[:1].isspace() else source)
    body = tree.body[0].body
    docs: dict[str, str] = {}
    for i, node in enumerate(body):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        name = node.target.id
        nxt = body[i + 1] if i + 1 < len(body) else None
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            docs[name] = " ".join(nxt.value.value.split())
            continue
        parts = []
        j = node.lineno - 2
        while j >= 0 and lines[j].strip().startswith("#"):
            parts.insert(0, lines[j].strip().lstrip("#").strip())
            j -= 1
        line = lines[node.end_lineno - 1]
        if "  # " in line:
            parts.append(line.split("  # ", 1)[1].strip())
        if parts:
            docs[name] = " ".join(parts)
    return docs


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _shown(value) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) if value else "(none)"
    return "none" if value is None else str(value)


def _kind(tp) -> tuple[str, type]:
    """("list", item type), ("bool", bool), ("optional", type) or ("plain", type) for a field's annotation."""
    origin = typing.get_origin(tp)
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        kind, inner = _kind(args[0])
        return ("list", inner) if kind == "list" else ("optional", inner)
    if origin is list:
        return "list", (typing.get_args(tp) or (str,))[0]
    if tp is bool:
        return "bool", bool
    return "plain", tp if isinstance(tp, type) else str


def _list_of(item: type, flag: str, what: str) -> Callable[[str], list]:
    def parse(text: str) -> list:
        try:
            return [item(x.strip()) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be {what} separated by commas, got {text!r}") from None
    return parse


def build_parser(cls, *, description: str = "", base=None, flags: dict[str, str] | None = None,
                 skip: tuple[str, ...] = (), epilog: str | None = None,
                 notes: dict[str, str] | None = None) -> argparse.ArgumentParser:
    """An argparse parser with one flag per field of ``cls`` (a dataclass). ``base``: an instance whose values are
    the defaults (a field whose value differs from the class default says so); ``flags`` renames a field's flag;
    ``skip`` leaves fields out (the script adds its own flags for them); ``notes`` appends text to a field's
    help."""
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    ap = argparse.ArgumentParser(description=description.strip().split("\n\n")[0] if description else None,
                                 epilog=epilog)
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        here = getattr(base, f.name) if base is not None else default
        kind, inner = _kind(hints[f.name])
        text = docs.get(f.name, "")
        shown = f"default: {_shown(default)}"
        if base is not None and here != default:
            shown += f"; here: {_shown(here)}"
        if notes and f.name in notes:
            text = f"{text} {notes[f.name]}".strip()
        help_text = f"{text} ({shown})" if text else f"({shown})"
        flag = (flags or {}).get(f.name, _flag(f.name))
        if kind == "bool":
            ap.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=here, help=help_text)
        elif kind == "list":
            what = f.metadata.get("items", f"{inner.__name__}s")  # how an error names the items
            ap.add_argument(flag, dest=f.name, type=_list_of(inner, flag, what), default=here, metavar="A,B,...",
                            help=help_text)
        else:
            ap.add_argument(flag, dest=f.name, type=inner, default=here, help=help_text)
    return ap


def config_from(cls, args: argparse.Namespace, **overrides: Any):
    """The ``cls`` instance of parsed ``args`` (fields absent from ``args`` keep their defaults)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)}
    values.update(overrides)
    return cls(**values)
