"""Docs point only inside the repository, and every ruling the code cites is written down in docs/rulings.md."""

import pydoc
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULINGS = ROOT / "docs" / "rulings.md"
RULING_ID = re.compile(r"\bR-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")
SOURCES = sorted(
    [p for d in ("shedders", "agents", "experiments", "benchmarks", "tests", "notebooks", "docs")
     for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md", ".ipynb") and "__pycache__" not in p.parts]
    + [ROOT / "README.md"] + list((ROOT / "experiments").glob("*.md"))
)
OUTSIDE = ("../shared", "shared/", "RULINGS.md", "seeds/", "CONTRACT.md", "781c3d44b8f7997b", "98be5b198499e36d",
           "d67eb7e5362ade96", "60428f49f3a2539e")


def defined_rulings() -> set[str]:
    return set(re.findall(r"^- \*\*(R-[A-Z0-9-]+)\*\*", RULINGS.read_text(), re.MULTILINE))


def test_every_ruling_the_code_cites_is_in_docs_rulings():
    defined = defined_rulings()
    assert len(defined) > 50
    cited = {}
    for p in SOURCES:
        if p == RULINGS:
            continue
        for rid in RULING_ID.findall(p.read_text()):
            cited.setdefault(rid, str(p.relative_to(ROOT)))
    assert len(cited) > 25
    missing = {rid: where for rid, where in cited.items() if rid not in defined}
    assert not missing, f"cited but not in docs/rulings.md: {missing}"


def test_no_doc_or_source_points_outside_the_repository():
    bad = [f"{p.relative_to(ROOT)}: {word}" for p in SOURCES if p.name != "test_docs.py"
           for word in OUTSIDE if word in p.read_text()]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", ["og_v0", "fatality_v0", "core_v0", "south_african_v0", "house_v1", "omg_v0"])
def test_help_prints_each_docs_page_once(module):
    mod = __import__(f"shedders.envs.{module}", fromlist=["env"])
    text = pydoc.render_doc(mod, renderer=pydoc.plaintext)
    assert text.count("## Rewards") == 1
