"""The observation vector of one seat: what that seat may know, in the layout of ``observation_layout``."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.cards import (
    down_count_nb,
    hand_count_nb,
    pile_state_nb,
    run_len_nb,
    seat_from_nb,
    step_seat_nb,
    zone_nb,
)
from shedders.engine.palace.layout import KIND_WAITING, N_KINDS, N_RULES, ONE, P_NPLAYERS, PH_OVER, PH_SETUP, R


# Long on purpose (80 lines): the observation is written field by field in the order of observation_layout, so
# reading it beside the layout checks it; it runs at every step (inlined into the entry points).
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def observe_nb(s, g, viewer, params, obs):
    """Write what seat ``viewer`` may know of game g into ``obs`` (int8), following observation_layout."""
    n = params[P_NPLAYERS]
    obs[:] = 0
    ph = s.phase[g]
    o = 0
    if ph == PH_OVER:
        obs[o + PH_OVER] = 1
    elif s.actor[g] == viewer:
        obs[o + ph] = 1
    else:
        obs[o + KIND_WAITING] = 1
    o += N_KINDS
    for r in range(R):
        obs[o + r] = s.hand[g, viewer, r]
    o += R
    z = zone_nb(s, g, viewer)
    if z < 3:
        obs[o + z] = 1
    o += 3
    setup = ph == PH_SETUP
    # the seats in the viewer's order, relative seat j being q = (viewer + j) % n, stepped with a wrap (a division
    # per seat and field cost about a third of this kernel)
    q = np.int64(viewer)
    for j in range(n):
        if j == 0 or not setup:  # R-SETUP-ORDER: what a player does in setup is hidden until setup ends
            for r in range(R):
                obs[o + j * R + r] = s.face_up[g, q, r]
        obs[o + n * R + j] = down_count_nb(s, g, q)
        obs[o + n * R + n + j] = hand_count_nb(s, g, q)
        for r in range(R):
            obs[o + n * R + 2 * n + j * R + r] = s.known[g, q, r]
        obs[o + 2 * n * R + 2 * n + j] = s.finished[g, q]
        q = step_seat_nb(q, ONE, n)
    o += 2 * n * R + 3 * n
    rule, top = pile_state_nb(s, g, params)
    if top >= 0:
        obs[o + top] = 1
    else:
        obs[o + R] = 1
    o += R + 1
    obs[o + rule] = 1
    o += N_RULES
    obs[o] = run_len_nb(s, g)
    o += 1
    for i in range(s.pile_len[g]):
        obs[o + s.pile[g, i]] += 1
    o += R
    obs[o] = s.pile_len[g]
    o += 1
    obs[o] = s.deck_len[g]
    o += 1
    for r in range(R):
        obs[o + r] = s.out[g, r]
    o += R
    obs[o] = s.direction[g]
    o += 1
    if ph != PH_OVER and ph != PH_SETUP:
        obs[o + seat_from_nb(s.turn[g], viewer, n)] = 1
    o += n
    if s.target[g] >= 0:
        obs[o + seat_from_nb(s.target[g], viewer, n)] = 1
    o += n
    if s.pile_len[g] > 0 and s.pile_by[g, s.pile_len[g] - 1] >= 0:
        obs[o + seat_from_nb(s.pile_by[g, s.pile_len[g] - 1], viewer, n)] = 1
    o += n
    if s.last_rank[g] >= 0:
        obs[o + s.last_rank[g]] = 1
    else:
        obs[o + R] = 1
    o += R + 1
    obs[o] = s.oot[g]
    o += 1
    return o
