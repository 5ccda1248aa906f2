"""The numba cache guard: a kernel compiled from one engine file is never loaded stale after another changed.

Numba's disk cache (``cache=True``) keys each kernel on the source of its own file only. A kernel in
``palace/play.py`` that calls a helper in ``palace/cards.py``, or reads a constant of ``shedders.rules.palace``,
has the helper and the constant compiled into it; when only ``cards.py`` changes, numba would load the old
machine code. So the engine keeps a stamp, the SHA-256 of every engine and rules source, in each cache folder it
uses; ``guard()`` runs when ``shedders.engine`` is imported, before any kernel compiles, and when the stamp
differs it deletes the engine's cached kernels there (numba's ``.nbi`` index and ``.nbc`` data files, nothing
else) and writes the new stamp. The next call of each kernel compiles it afresh and caches it again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parent
RULES_DIR = ENGINE_DIR.parent / "rules"
STAMP = "shedders-engine.sha256"


#: rules files no kernel reads (the ruleset records and their docs), left out of the stamp so that editing a
#: ruleset's docs or adding a record recompiles nothing (``tests/test_cache.py`` checks no engine module imports
#: them)
NOT_COMPILED = ("registry.py",)


def sources() -> list[Path]:
    """Every file whose contents a compiled kernel depends on: the engine's sources and the rules' constants."""
    rules = [p for p in sorted(RULES_DIR.glob("*.py")) if p.name not in NOT_COMPILED]
    return sorted(ENGINE_DIR.rglob("*.py")) + rules


def source_hash() -> str:
    h = hashlib.sha256()
    for p in sources():
        h.update(str(p.relative_to(ENGINE_DIR.parent)).encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _probe():  # a function for numba's cache locators to place (they read its first line number only)
    pass


def cache_dir(source_dir: Path) -> Path | None:
    """The folder numba caches the kernels of ``source_dir`` in: it asks numba's own locators, in numba's order
    (``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the source, the user-wide cache)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)  # numba >= 0.61, older
    locators = getattr(impl, "_locator_classes", None)
    if not locators:  # another numba layout: numba's default, the in-tree folder
        return source_dir / "__pycache__"
    probe = next(source_dir.glob("*.py"))
    for cls in locators:
        locator = cls.from_function(_probe, str(probe))
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def engine_dirs() -> list[Path]:
    return sorted({p.parent for p in ENGINE_DIR.rglob("*.py")})


def cached_kernels() -> int:
    """How many engine kernels numba has cached (index files in the engine's cache folders): 0 on first use, when
    every kernel compiles as it is first called (a few minutes in all on two cores)."""
    n = 0
    for src in engine_dirs():
        where = cache_dir(src)
        if where is not None and where.is_dir():
            stems = {p.stem for p in src.glob("*.py")}
            n += sum(1 for f in where.glob("*.nbi") if f.name.split(".")[0] in stems)
    return n


COMPILING = ("shedders: no numba kernel is cached yet, so each compiles on its first call (a few minutes in all "
             "on two cores, once; later runs load them from the cache)")


def notice_if_cold(stream) -> bool:
    """Print COMPILING to ``stream`` when nothing is cached; returns whether it did."""
    if cached_kernels():
        return False
    print(COMPILING, file=stream, flush=True)
    return True


def guard() -> bool:
    """Clear the engine's cached kernels wherever their stamp is not the current sources' hash.

    Returns True when something was cleared. Never raises for a cache folder it cannot write: numba then does
    not cache there either."""
    digest = source_hash()
    cleared = False
    for src in engine_dirs():
        where = cache_dir(src)
        if where is None:
            continue
        try:
            where.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        stamp = where / STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        stems = {p.stem for p in src.glob("*.py")}
        for f in where.iterdir():
            if f.suffix in (".nbi", ".nbc") and f.name.split(".")[0] in stems:
                try:
                    f.unlink()
                    cleared = True
                except OSError:
                    pass
        try:
            tmp = where / f"{STAMP}.{os.getpid()}"
            tmp.write_text(digest)
            os.replace(tmp, stamp)
        except OSError:
            pass
    return cleared
