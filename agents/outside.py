"""Agents written outside this package: a class named by a spec, or offered by an installed package.

Every place that takes an agent spec (``experiments.tournament``, ``experiments.skill_luck``, ``shedders play
--opponents``, ``shedders serve --agent``, ``shedders bench``) takes these forms besides the built-in names:

    my_pkg.my_module:MyAgent                       # an importable module and a class in it
    path/to/my_agent.py:MyAgent                    # a Python file (relative to the working directory, or absolute)
    path/to/my_agent.py:MyAgent:depth=3+temp=0.5   # options, as for built-in agents
    my_agent                                       # a name an installed package offers (entry points, see below)

The class is built as ``MyAgent(ruleset=R, num_players=N, seed=S, **options)`` and implements the batched
``act(observation, action_mask)`` of :class:`agents.Agent` (``(B, obs)`` and ``(B, A)`` in, ``(B,)`` integer
action ids out). A class that sets ``needs_state = True`` is given the engine state too, as the search agents are:
``act(observation, action_mask, state=..., games=...)``. Game options a table is built with (``base=`` for
``house``) are passed when the constructor takes them (by name or ``**kwargs``), and left out otherwise.

An installed package offers agents through the entry-point group ``shedders.agents``; in its ``pyproject.toml``:

    [project.entry-points."shedders.agents"]
    my_agent = "my_pkg.my_module:MyAgent"

A built-in name always wins over an entry point of the same name.

The outside class is wrapped in :class:`CheckedAgent`, which checks every answer before it goes anywhere: an
action that is not an integer id, is masked, or comes in the wrong shape raises :class:`AgentError` naming the
spec, the row and the legal actions, and nothing reaches the engine. Every failure (a missing file or module, a
missing class, a constructor that raises, an ``act`` that raises) is one :class:`AgentError` line naming the spec.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

from agents.base import Agent

ENTRY_POINT_GROUP = "shedders.agents"


class AgentError(ValueError):
    """An outside agent that cannot be loaded or built, or that answered wrongly: one line naming the spec.
    ``kind`` says what went wrong in words that tell nothing of the game (the message may list the legal actions
    of a seat, which a web client must not see before the game ends)."""

    def __init__(self, message: str, kind: str = "failed"):
        super().__init__(message)
        self.kind = kind

    def __reduce__(self):  # picklable with its kind (worker processes raise it)
        return type(self), (str(self), self.kind)


def split_target(name: str) -> tuple[str, str]:
    """``"pkg.mod:Cls"`` or ``"dir/file.py:Cls"`` -> (the module or file, the class name)."""
    target, _, cls = name.rpartition(":")
    return target, cls


def is_file_target(target: str) -> bool:
    """Whether a spec's target names a file (``x.py``, or a path with a separator) rather than a module."""
    return target.endswith(".py") or "/" in target or "\\" in target


def looks_outside(first: str, second: str) -> bool:
    """Whether a spec ``first:second...`` can name an outside class: ``second`` is a class name (no ``=``).
    ``agents.parse_agent`` asks only when ``first`` is no built-in agent (``search:budget`` stays the built-in's
    malformed option)."""
    return bool(first) and bool(second) and "=" not in second and second.isidentifier()


def offered() -> dict:
    """The agents installed packages offer: {name: entry point} of the group ``shedders.agents``."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _load_file(path: Path, spec: str):
    """The module of a Python file, imported once per content (under a name derived from the file's digest, kept in
    ``sys.modules`` so its classes pickle and its dataclasses work)."""
    if not path.is_file():
        raise AgentError(f"agent {spec!r}: no such file {str(path)!r}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    module_name = f"shedders_outside_{stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentError(f"agent {spec!r}: {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 (outside code may raise anything)
        del sys.modules[module_name]
        raise AgentError(f"agent {spec!r}: importing {str(path)!r} failed: {type(e).__name__}: {e}") from None
    return module


def load_class(name: str, spec: str | None = None):
    """The class an outside agent name (``pkg.mod:Cls``, ``file.py:Cls``) or an entry-point name refers to;
    :class:`AgentError` naming ``spec`` (default: ``name``) otherwise."""
    spec = spec or name
    if ":" not in name:
        eps = offered()
        if name not in eps:
            raise AgentError(f"agent {spec!r}: no built-in agent and no installed entry point "
                             f"({ENTRY_POINT_GROUP}) of that name")
        try:
            obj = eps[name].load()
        except Exception as e:  # noqa: BLE001 (outside code may raise anything)
            raise AgentError(f"agent {spec!r}: loading entry point {eps[name].value!r} failed: "
                             f"{type(e).__name__}: {e}") from None
        cls_name = eps[name].value
    else:
        target, cls_name = split_target(name)
        if is_file_target(target):
            module = _load_file(Path(target).expanduser(), spec)
        else:
            try:
                module = importlib.import_module(target)
            except Exception as e:  # noqa: BLE001 (ModuleNotFoundError, or the module's own import failing)
                raise AgentError(f"agent {spec!r}: importing module {target!r} failed: "
                                 f"{type(e).__name__}: {e}") from None
        obj = getattr(module, cls_name, None)
        if obj is None:
            raise AgentError(f"agent {spec!r}: {target!r} has no class {cls_name!r}")
    if not inspect.isclass(obj):
        raise AgentError(f"agent {spec!r}: {cls_name!r} is a {type(obj).__name__}, not a class")
    if not callable(getattr(obj, "act", None)):
        raise AgentError(f"agent {spec!r}: class {obj.__name__} has no act(observation, action_mask) method")
    return obj


def source_digest(name: str) -> str | None:
    """sha256 (16 hex digits) of the file an outside agent's code lives in, when there is one: a tournament or a
    bench keys its saved results by it, so an edited agent is another agent."""
    try:
        if ":" in name:
            target, _ = split_target(name)
            if is_file_target(target):
                path = Path(target).expanduser()
            else:
                found = importlib.util.find_spec(target)
                path = Path(found.origin) if found is not None and found.origin else None
        else:
            ep = offered().get(name)
            found = importlib.util.find_spec(ep.value.partition(":")[0]) if ep is not None else None
            path = Path(found.origin) if found is not None and found.origin else None
    except (ImportError, ValueError):
        return None
    if path is None or not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def constructor_takes(cls) -> tuple[set[str], bool]:
    """(keyword names ``cls(...)`` takes, whether it takes ``**kwargs``)."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return set(), True
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind is p.VAR_KEYWORD for p in params)


def build(name: str, ruleset: str, num_players: int, seed: int | None, options: dict,
          game_options: dict | None = None, spec: str | None = None) -> CheckedAgent:
    """The outside agent ``name`` built with ``ruleset``, ``num_players``, ``seed`` and ``options`` (and the game
    options its constructor takes), wrapped in :class:`CheckedAgent`."""
    spec = spec or name
    cls = load_class(name, spec)
    takes, any_kw = constructor_takes(cls)
    for key in options:
        if not any_kw and key not in takes:
            raise AgentError(f"agent {spec!r}: unknown option {key!r}; {cls.__name__} takes "
                             f"{', '.join(sorted(takes - {'ruleset', 'num_players', 'seed'})) or 'no options'}")
    extra = {k: v for k, v in (game_options or {}).items() if any_kw or k in takes}
    try:
        inner = cls(ruleset=ruleset, num_players=num_players, seed=seed, **options, **extra)
    except Exception as e:  # noqa: BLE001 (outside code may raise anything)
        raise AgentError(f"agent {spec!r}: building {cls.__name__} failed: {type(e).__name__}: {e}") from None
    return CheckedAgent(inner, spec, ruleset, num_players, seed, game_options or {})


class CheckedAgent(Agent):
    """An outside agent behind a check: every answer is a legal action id per row, or :class:`AgentError`."""

    def __init__(self, inner, spec: str, ruleset: str, num_players: int, seed: int | None, game_options: dict):
        super().__init__(ruleset, num_players, seed=seed, **game_options)
        self.inner, self.spec, self.name = inner, spec, spec
        self.needs_state = bool(getattr(inner, "needs_state", False))
        self._names = None

    def action_name(self, a: int) -> str:
        if self._names is None:
            from shedders.replay import action_names

            self._names = action_names(self.rules)
        return self._names[a] if 0 <= a < len(self._names) else str(a)

    def act(self, observation, action_mask, **state) -> np.ndarray:
        obs, mask = np.asarray(observation), np.asarray(action_mask)
        one = mask.ndim == 1
        if one:
            obs, mask = obs[None], mask[None]
        try:
            out = self.inner.act(obs, mask, **state) if self.needs_state else self.inner.act(obs, mask)
        except Exception as e:  # noqa: BLE001 (outside code may raise anything)
            raise AgentError(f"agent {self.spec!r}: act failed: {type(e).__name__}: {e}", "act raised") from None
        actions = self.check(out, mask)
        return actions[0] if one else actions

    def check(self, out, mask: np.ndarray) -> np.ndarray:
        """``out`` as an int64 array of legal ids, one per row of ``mask``; :class:`AgentError` otherwise."""
        arr = np.asarray(out)
        rows = mask.shape[0]
        if arr.shape != (rows,):
            raise AgentError(f"agent {self.spec!r}: act returned shape {arr.shape} for {rows} rows; expected "
                             f"({rows},), one action id per row", "wrong output shape")
        if arr.dtype.kind not in "iu":
            raise AgentError(f"agent {self.spec!r}: act returned {arr.dtype} values; expected integer action ids",
                             "not integer action ids")
        arr = arr.astype(np.int64)
        bad = (arr < 0) | (arr >= mask.shape[1])
        bad[~bad] = mask[np.flatnonzero(~bad), arr[~bad]] == 0
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            legal = ", ".join(f"{a} ({self.action_name(int(a))})" for a in np.flatnonzero(mask[r])[:12])
            raise AgentError(f"agent {self.spec!r}: illegal action {int(arr[r])} ({self.action_name(int(arr[r]))})"
                             f" in row {r}; legal there: {legal}", "illegal action")
        return arr

    def __repr__(self) -> str:
        return f"CheckedAgent({self.spec!r}, {self.ruleset!r}, num_players={self.num_players})"
