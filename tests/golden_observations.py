"""Golden observations: a digest of every seat's observation, and of every mask, at every step of seeded games.

    python tests/golden_observations.py   # regenerate tests/golden/observations.json after a deliberate change

Each case plays ``GAMES`` seeded games of random legal moves in a ``VectorGame`` and, after every step, hashes what
``observe`` writes for every seat and the action masks. A speed-up of the observation or mask kernels keeps this
file byte-identical; a change of what a seat sees is a change of the environment and bumps its version.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import shedders

GOLDEN = Path(__file__).resolve().parent / "golden" / "observations.json"
#: (ruleset, players, seed)
CASES = [("og", 4, 1), ("og", 6, 2), ("fatality", 4, 3), ("core", 3, 4), ("core", 4, 5), ("south_african", 4, 6),
         ("house", 5, 7), ("omg", 4, 8), ("omg", 2, 9)]
GAMES, STEPS = 16, 400


def key(ruleset: str, players: int, seed: int) -> str:
    return f"{ruleset}-{players}p-seed{seed}"


def digest(ruleset: str, players: int, seed: int) -> str:
    """The sha256 of every seat's observation and every mask over STEPS steps of GAMES games (auto-reset)."""
    vg = shedders.VectorGame(ruleset, GAMES, players, seed=seed)
    vg.reset()
    h = hashlib.sha256()
    for _ in range(STEPS):
        for seat in range(players):
            h.update(np.ascontiguousarray(vg.observe(np.full(GAMES, seat, np.int64))).tobytes())
        h.update(vg.action_mask.tobytes())
        vg.step(vg.sample_legal())
    return h.hexdigest()


def main() -> None:
    GOLDEN.write_text(json.dumps({key(*c): digest(*c) for c in CASES}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
