"""The end of an omg turn: the winner, lost turns (Aphrodite), the next player, the ply cap."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.layout import F_NONE, P_NPLAYERS, PH_OVER, PH_PLAY


# ----------------------------------------------------------------------------------------------------------------
# Applying a decision
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def end_turn_nb(s, g, params):
    """seed 001: "The winner of the game is the player who gets to empty his hand first" (R-OMG-WIN: at the end of
    their own turn); else the next player on the left, passing over a lost turn (Aphrodite)."""
    n = params[P_NPLAYERS]
    p = np.int64(s.turn[g])
    s.power[g] = -1
    s.fkind[g] = F_NONE
    s.fval[g] = 0
    s.left[g] = 0
    s.upto[g] = 0
    if s.hsize[g, p] == 0:
        s.phase[g] = PH_OVER
        s.winner[g] = p
        s.terminated[g] = True
        for q in range(n):
            s.rewards[g, q] = 1.0 if q == p else -1.0 / (n - 1)
        return
    q = (p + 1) % n
    for _ in range(2 * n):
        if s.skip[g, q] != 0:
            s.skip[g, q] = 0  # "When your turn comes up, do not play a card but take the cards back"
            q = (q + 1) % n
        else:
            break
    s.turn[g] = q
    s.phase[g] = PH_PLAY
