"""The house's layers, checked on the source (an AST walk of every import, function-local ones included):

    rules  <  engine  <  envs  <  vector  <  gym, match, replay, explain  <  shedders (the package)  <  agents
           <  demo, play, web, leaderboard  <  experiments, benchmarks, cli (the command that runs them all)

- no import cycle between modules;
- no import that points up a layer;
- above ``envs`` and ``vector`` nobody imports a kernel module: only ``shedders.engine.search`` (the single
  implementation of each rollout strategy) and the ``layout`` modules (constants, action ids, state layout);
- nobody reads another object's private attribute (``obj._name``; ``self._name`` is the object's own);
- above ``rules`` and ``engine`` no code compares with a ruleset or family name, or lists rulesets by hand: it
reads
  the ruleset's record (``shedders.rules.lookup``) or a table keyed by family (``shedders.envs.family``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shedders.rules.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("shedders", "agents", "experiments", "benchmarks")

LAYERS = [  # lowest first; a module belongs to the last prefix it matches
    ("shedders.rules",),
    ("shedders.engine",),
    ("shedders.envs",),
    ("shedders.vector",),
    ("shedders.gym", "shedders.match", "shedders.replay", "shedders.explain"),
    ("shedders",),
    ("agents",),
    ("shedders.demo", "shedders.play", "shedders.web", "shedders.leaderboard"),
    ("experiments", "benchmarks", "shedders.cli", "shedders.__main__"),
]
KERNEL_FREE_FROM = 4  # the first layer above envs and vector
NAMEDTUPLE_API = ("_fields", "_replace", "_asdict", "_make")  # public, underscored so as not to clash with fields
ALLOWED_ENGINE = ("shedders.engine.search", "shedders.engine.palace.layout", "shedders.engine.omg.layout")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if "__pycache__" not in p.parts:
                out[module_name(p)] = p
    return out


MODULES = modules()


def layer(mod: str) -> int:
    best, best_len = None, -1
    for i, prefixes in enumerate(LAYERS):
        for pre in prefixes:
            if (mod == pre or mod.startswith(pre + ".")) and len(pre) > best_len:
                best, best_len = i, len(pre)
    assert best is not None, f"{mod} is in no layer"
    return best


def imports(mod: str) -> list[tuple[str, int]]:
    """(imported module, line) for every import in ``mod`` that names one of our modules. ``from pkg import x``
    counts as importing ``pkg.x`` when that is a module, else ``pkg``. Imports under ``if TYPE_CHECKING`` count
    too."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((a.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub if sub in MODULES else target, node.lineno))
    return [(m, line) for m, line in out if m.split(".")[0] in PACKAGES and m in MODULES]


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_is_in_a_layer():
    for m in MODULES:
        layer(m)


def find_cycles(graph: dict) -> list[list[str]]:
    """Tarjan's strongly connected components of the module graph with more than one module: the cycles."""
    index, low, stack, on, cycles = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w, _ in graph.get(v, []):
            if w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return cycles


def test_no_import_cycles():
    assert not find_cycles(GRAPH), f"import cycles: {find_cycles(GRAPH)}"


def test_no_import_points_up_a_layer():
    up = [f"{m}:{line} imports {t}" for m, edges in GRAPH.items() for t, line in edges
          if layer(t) > layer(m) and not m.startswith(t + ".")]  # a package's own __init__ runs first anyway
    assert not up, "\n".join(up)


def test_only_the_search_package_and_layouts_of_the_engine_are_imported_above_envs():
    bad = [f"{m}:{line} imports {t}" for m, edges in GRAPH.items() if layer(m) >= KERNEL_FREE_FROM
           for t, line in edges
           if (t == "shedders.engine" or t.startswith("shedders.engine."))
           and not any(t == a or t.startswith(a + ".") for a in ALLOWED_ENGINE)]
    assert not bad, "\n".join(bad)


def private_reads(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls", "super"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if node.attr in NAMEDTUPLE_API:
                continue
            out.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return out


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_module_reads_another_objects_private_attributes(mod):
    assert not private_reads(MODULES[mod])


def test_the_layering_checks_can_fail(tmp_path):
    """The checks above see what they are meant to: a cycle, an upward import, a kernel import and a private read
    in a made-up module graph are all found."""
    src = tmp_path / "m.py"
    src.write_text("def f(env):\n    return env._state\n")
    assert private_reads_at(src, tmp_path) == ["m.py:2 ._state"]
    assert layer("shedders.envs.base") < layer("shedders.vector") < layer("agents.greedy")
    assert layer("shedders.engine.palace.play") < layer("shedders.envs.palace_env")
    edges = dict(GRAPH)
    edges["shedders.rules.common"] = [("shedders.envs.base", 1)]
    up = [t for m, es in edges.items() for t, _ in es if layer(t) > layer(m) and not m.startswith(t + ".")]
    assert up == ["shedders.envs.base"]
    edges["shedders.envs.base"] = GRAPH["shedders.envs.base"] + [("shedders.rules.common", 1)]
    assert any({"shedders.envs.base", "shedders.rules.common"} <= set(c) for c in find_cycles(edges))


def private_reads_at(path: Path, root: Path) -> list[str]:
    global ROOT
    old, ROOT = ROOT, root
    try:
        return private_reads(path)
    finally:
        ROOT = old


# --------------------------------------------------------------------------------------------------------------
# no code above the rules asks for a ruleset or a family by name: it reads the record (``shedders.rules.registry``)
# or looks the family up in a table keyed by family
# --------------------------------------------------------------------------------------------------------------
NAMES = frozenset(REGISTRY) | {r.family for r in REGISTRY.values()}
NAMED_FREELY = ("shedders.rules", "shedders.engine")  # where rulesets and families are defined


def _is_name(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in NAMES


def name_uses(tree: ast.AST, rel: str) -> list[str]:
    """Compares against a ruleset or family name (``x == "omg"``, ``x in ("og", "core")``, ``"house" != x``,
    ``x.startswith("omg")``) and hand-kept lists of two or more ruleset names."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(_is_name(s) or (isinstance(s, (ast.Tuple, ast.List, ast.Set))
                                        and any(map(_is_name, s.elts))) for s in sides)
            if named:
                out.append(f"{rel}:{node.lineno} compares with a ruleset or family name")
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and sum(map(_is_name, node.elts)) >= 2:
            out.append(f"{rel}:{node.lineno} lists rulesets by hand")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith") and any(map(_is_name, node.args))):
            out.append(f"{rel}:{node.lineno} matches a ruleset or family name")
    return sorted(set(out))


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if not m.startswith(NAMED_FREELY)))
def test_no_code_above_the_rules_asks_for_a_ruleset_by_name(mod):
    path = MODULES[mod]
    found = name_uses(ast.parse(path.read_text()), str(path.relative_to(ROOT)))
    assert not found, "\n".join(found) + "\nread the record (shedders.rules.lookup) or a table keyed by family"


def test_the_name_check_can_fail():
    src = ('if rules.name == "omg": pass\nok = ruleset in ("og", "core")\nfor r in ("og", "house"): pass\n'
           'x = name.startswith("omg")\nfine = {"palace": 1, "omg": 2}[family]\n')
    found = name_uses(ast.parse(src), "m.py")
    assert sorted({f.split(" ")[0] for f in found}) == ["m.py:1", "m.py:2", "m.py:3", "m.py:4"]
