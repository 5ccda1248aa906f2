"""The palace ``greedy`` and ``expert`` strategies, each written once, as numba kernels over what the deciding
seat sees: its action mask (greedy) and its observation (expert). ``agents/greedy.py`` and ``agents/expert.py``
wrap them for batches (and add the random ``break_cycles`` rule, which draws from the agent's own generator);
the search's rollouts call them at every decision. The rules themselves are documented in those agents.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.bits import lowest_bit_nb
from shedders.engine.palace.cards import (
    ANSWER_BITS,
    beat_bits_nb,
    is_wild_nb,
    pile_state_nb,
    wild_bits_nb,
    zone_count_nb,
    zone_held_nb,
)
from shedders.engine.palace.layout import (
    A_COVER,
    A_FLIP,
    A_NOMINATE,
    A_PASS,
    A_PICKUP,
    A_PICKUP_WITH,
    A_PLAY,
    A_PLAY_AS,
    A_PLAY_UP,
    A_READY,
    A_SNEAK,
    A_SWAP,
    AS_K,
    FAM_003,
    FAM_FAT,
    FAM_OG,
    MAXC,
    P_FAMILY,
    P_FOUR_BURN,
    P_NPLAYERS,
    P_SET_SIZE,
    PH_ANSWER,
    PH_EAT,
    PH_PLAY,
    PH_SNEAK,
    R2,
    R3,
    R5,
    R8,
    R10,
    RJOKER,
    ZONE_DOWN,
    ZONE_HAND,
    ZONE_UP,
    R,
)

WILD_KEY = 100  # greedy_key_nb: wilds rank after every plain rank, cheapest first
#: greedy's order of the wilds, cheapest first (``greedy_key_nb``)
WILD_ORDER = (R5, R3, R2, R10, RJOKER)
JOKER_10 = A_PLAY_AS + R10 * AS_K  # fatality: one Joker named 10 (a burn, and the player goes again)
ONE_JOKER = A_PLAY + RJOKER * MAXC  # seed 003: one Joker per play (also how a Joker is countered)
COUNTER_MIN_PLAIN = 2  # expert: counter a Joker only over a pile of this many other cards
NO_BURN = 10**6  # a set size no run reaches: four of a kind does not burn (four_burn off)
UNDECIDED = -1

# ``off[OFF_*]``: where the fields ``expert_choice_nb`` reads start in the observation, in the order of
# EXPERT_FIELDS (``expert_offsets`` builds ``off`` from the observation layout).
OFF_UP, OFF_DOWN, OFF_HSIZE, OFF_FIN, OFF_TOP, OFF_RUN, OFF_PILE, OFF_DIR, OFF_PILEC = range(9)
EXPERT_FIELDS = ("face_up", "face_down", "hand_size", "finished", "top", "run", "pile_size", "direction", "pile")
POLICY_GREEDY, POLICY_EXPERT, POLICY_RANDOM = range(3)  # rollout policies (random: uniform over legal actions)


def expert_offsets(slices: dict) -> np.ndarray:
    """``off`` for ``expert_choice_nb``: the start of each of EXPERT_FIELDS, from the observation's slices."""
    return np.array([slices[f].start for f in EXPERT_FIELDS], np.int64)


# ----------------------------------------------------------------------------------------------------------------
# greedy
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_key_nb(r, params):
    """Greedy's order of ranks: plain ranks low to high, then wilds from the cheapest (5, 3, 2, 10, Joker)."""
    if not is_wild_nb(r, params):
        return r
    if r == R5:
        return WILD_KEY
    if r == R3:
        return WILD_KEY + 1
    if r == R2:
        return WILD_KEY + 2
    if r == R10:
        return WILD_KEY + 3
    return WILD_KEY + 4


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def first_legal_nb(mask):
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return np.int64(a)
    return np.int64(-1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def lowest_play_nb(mask, params):
    """greedy's play: the legal rank lowest in greedy's order, with every copy it may play (legal counts run
    1..c, so c of them). Returns (action, key of its rank); (-1, a key above every rank) when nothing plays."""
    best, bk, bc = -1, 1 << 30, 0
    for r in range(R):
        c = 0
        for k in range(MAXC):
            c += mask[A_PLAY + r * MAXC + k]
        if c > 0 and greedy_key_nb(r, params) < bk:
            best, bk, bc = r, greedy_key_nb(r, params), c
    if best < 0:
        return np.int64(-1), np.int64(bk)
    return np.int64(A_PLAY + best * MAXC + bc - 1), np.int64(bk)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_choice_nb(mask, params):
    """greedy's rules 1-5 (agents/greedy.py) on one action mask; a choice that is not legal becomes the lowest
    legal id."""
    play, pk = lowest_play_nb(mask, params)
    out = np.int64(A_PICKUP)
    cover, ck = -1, -1
    for r in range(R):
        if mask[A_COVER + r] != 0 and greedy_key_nb(r, params) > ck:
            cover, ck = r, greedy_key_nb(r, params)
    s_rank, s_count = 0, 0  # og: the one rank on offer, and how many of it may go
    for r in range(R):
        c = 0
        for k in range(MAXC):
            c += mask[A_SNEAK + r * MAXC + k]
        if c > s_count:
            s_rank, s_count = r, c
    if mask[A_READY] != 0:  # rule 1: ready at once
        out = A_READY
    elif cover >= 0:  # rule 1, og: cover with the best card of the six
        out = A_COVER + cover
    elif s_count > 0 and greedy_key_nb(s_rank, params) < WILD_KEY:  # rule 2: sneak a plain rank
        out = A_SNEAK + s_rank * MAXC + s_count - 1
    elif play >= 0 and pk < WILD_KEY:  # rule 3: the lowest plain rank
        out = play
    elif mask[JOKER_10] != 0:  # rule 3, fatality: a Joker alone, named 10
        out = JOKER_10
    elif play >= 0:  # rule 3: the cheapest wild
        out = play
    elif mask[A_FLIP] != 0:  # rule 4
        out = A_FLIP
    elif mask[A_NOMINATE] != 0:
        out = A_NOMINATE
    elif mask[A_PASS] != 0:
        out = A_PASS
    if mask[out] == 0:  # rule 5 picks up; a row without that choice takes its lowest legal id
        out = first_legal_nb(mask)
    return out


# inlined: a call that passes the engine state costs more than the decision (the state's 32 arrays go along)
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def greedy_fast_nb(s, g, params):
    """greedy_choice_nb's action for game g's actor, read from the state without listing the legal actions, for
    the decisions most of a game is made of; -1 for any other decision (the caller lists the legal actions and
    asks greedy_choice_nb). Each case follows legal_mask_nb's list for its phase and zone, and greedy's rules
    over it:

    - in play or answering from the hand or face-up cards, the legal plays of a rank r that may go are
      1..min(count, MAXC) copies (one Joker outside fatality); no ready, cover or sneak is legal there. Rule 3
      plays the lowest plain rank (plain ranks come first in greedy's order, low to high) with every copy, else
      (fatality) a Joker named 10 where a Joker may go (its plays are the named ones, none of them a plain play),
      else the cheapest wild; with no play at all, rule 5 picks up (legal: the pile is not empty). fatality's
      starred plays (``play_up``, ``threes_as``) come after all of these in greedy's rules: they matter only when
      nothing else is legal, which is left to the caller;
    - from the face-down cards the plays are a flip (and perhaps a pickup): rule 4 flips;
    - in og's sneak window the legal actions are the sneaks of the window's rank and a pass: rule 2 sneaks every
      copy of a plain rank, and a wild one (or none) passes;
    - facing a Joker's punishment the one legal action is the pickup."""
    ph = s.phase[g]
    p = np.int64(s.actor[g])
    if ph == PH_EAT:
        return np.int64(A_PICKUP)
    if ph == PH_SNEAK:
        r = np.int64(s.win_rank[g])
        cnt = min(np.int64(s.hand[g, p, r]), MAXC)
        if cnt > 0 and not is_wild_nb(r, params):
            return np.int64(A_SNEAK + r * MAXC + cnt - 1)
        return np.int64(A_PASS)
    if ph != PH_PLAY and ph != PH_ANSWER:
        return np.int64(-1)
    z, held = zone_held_nb(s, g, p)
    if z == ZONE_DOWN:
        return np.int64(A_FLIP)
    if z != ZONE_HAND and z != ZONE_UP:
        return np.int64(-1)
    # the ranks held that may go, as bits (cards.held_bits_nb): greedy's plain ranks come first, low to high, so
    # its play is the lowest plain rank that may go; one word is tested, not each rank's count
    rule, top = pile_state_nb(s, g, params)
    ok = held & (np.int64(ANSWER_BITS) if ph == PH_ANSWER else beat_bits_nb(rule, top, params))
    wild = wild_bits_nb(params)
    plain = held & ~wild
    below = plain & ok & np.int64((1 << RJOKER) - 1)
    if below != 0:
        r = lowest_bit_nb(below)
        return np.int64(A_PLAY + r * MAXC + min(zone_count_nb(s, g, p, z, r), MAXC) - 1)
    if (plain >> RJOKER) & 1:
        return np.int64(-1)  # a plain Joker (no ruleset deals one): the caller decides
    ok_wild = ok & wild
    if params[P_FAMILY] == FAM_FAT:
        if (ok_wild >> RJOKER) & 1:
            return np.int64(JOKER_10)  # a wild, but its plays are the named ones
        ok_wild &= ~np.int64(1 << RJOKER)
    for r in WILD_ORDER:
        if (ok_wild >> r) & 1:
            # seed 003 "Jokers go one at a time"
            cnt = 1 if r == RJOKER else min(zone_count_nb(s, g, p, z, r), MAXC)
            return np.int64(A_PLAY + r * MAXC + cnt - 1)
    if s.pile_len[g] > 0:
        return np.int64(A_PICKUP)
    return np.int64(-1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_batch_nb(mask, params, out):
    for i in range(mask.shape[0]):
        out[i] = greedy_choice_nb(mask[i], params)


# ----------------------------------------------------------------------------------------------------------------
# expert: each rule returns its action, or UNDECIDED to leave the decision to the next rule
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def cards_left_nb(obs, off, j):
    """Cards relative seat j still holds (hand, face-up, face-down), from an observation."""
    c = np.int64(obs[off[OFF_HSIZE] + j]) + np.int64(obs[off[OFF_DOWN] + j])
    for r in range(R):
        c += obs[off[OFF_UP] + j * R + r]
    return c


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def swap_best_to_table_nb(mask, params):
    """In setup, swap the best hand card for the worst face-up card while that improves the table; else ready."""
    h, hk, u, uk, any_h = 0, -1e30, 0, 1e30, False
    for a in range(R):
        for b in range(R):
            if mask[A_SWAP + a * R + b] != 0:
                any_h = True
                if greedy_key_nb(a, params) > hk:
                    h, hk = a, greedy_key_nb(a, params)
                if greedy_key_nb(b, params) < uk:
                    u, uk = b, greedy_key_nb(b, params)
    if any_h and hk > uk and mask[A_SWAP + h * R + u] != 0:
        return np.int64(A_SWAP + h * R + u)
    return np.int64(A_READY)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def counter_a_joker_when_it_pays_nb(obs, off, mask):
    """Counter a Joker over a pile of at least COUNTER_MIN_PLAIN other cards; else let it pass."""
    plain = 0
    for r in range(R):
        if r != RJOKER:
            plain += np.int64(obs[off[OFF_PILEC] + r])
    if mask[ONE_JOKER] != 0 and plain >= COUNTER_MIN_PLAIN:
        return np.int64(ONE_JOKER)
    return np.int64(A_PASS)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def nominate_the_leader_nb(obs, off, params):
    """Nominate the opponent still in with the fewest cards left (the first of them in the direction of play)."""
    n = params[P_NPLAYERS]
    step = 1 if obs[off[OFF_DIR]] >= 0 else -1
    best, best_k, k, j = np.int64(-1), 1, 0, 0
    for _ in range(n - 1):
        j = (j + step) % n
        if obs[off[OFF_FIN] + j] != 0:
            continue
        k += 1
        left = cards_left_nb(obs, off, j)
        if best < 0 or left < best:
            best, best_k = left, k
    return np.int64(A_NOMINATE + best_k - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def complete_a_burn_nb(obs, off, mask, params):
    """Play every copy of the top's rank when that completes a burning set (the run counts the top's own rank; a
    5 mirrors but counts as 5, so only a plain top qualifies)."""
    top = 0
    for r in range(R + 1):
        if obs[off[OFF_TOP] + r] > obs[off[OFF_TOP] + top]:
            top = r
    if top < R and top != R5:
        cnt = 0
        for c in range(MAXC):
            cnt += mask[A_PLAY + top * MAXC + c]
        size = params[P_SET_SIZE] if params[P_FOUR_BURN] != 0 else NO_BURN
        if cnt > 0 and np.int64(obs[off[OFF_RUN]]) + cnt >= size:
            return np.int64(A_PLAY + top * MAXC + cnt - 1)
    return np.int64(UNDECIDED)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sabotage_with_a_3_nb(obs, off, mask, params):
    """og: a 3 makes the next player pick up, when they are down to 4 cards (pile of 2 or more) or lead the table
    (pile of 4 or more)."""
    three = A_PLAY + R3 * MAXC
    if mask[three] == 0:
        return np.int64(UNDECIDED)
    n = params[P_NPLAYERS]
    nxt = cards_left_nb(obs, off, 1)
    leader = True
    for j in range(1, n):
        if cards_left_nb(obs, off, j) < nxt:
            leader = False
    pile = np.int64(obs[off[OFF_PILE]])
    if (nxt <= 4 and pile >= 2) or (leader and pile >= 4):
        return np.int64(three)
    return np.int64(UNDECIDED)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def skip_the_leader_nb(obs, off, mask, params):
    """fatality: skip the next player with every 8 when they are closest to going out (5 cards or fewer)."""
    eights = 0
    for c in range(MAXC):
        eights += mask[A_PLAY + R8 * MAXC + c]
    if eights == 0 or obs[off[OFF_FIN] + 1] != 0:
        return np.int64(UNDECIDED)
    n = params[P_NPLAYERS]
    nxt = cards_left_nb(obs, off, 1)
    leader = nxt <= 5
    for j in range(2, n):
        if obs[off[OFF_FIN] + j] == 0 and cards_left_nb(obs, off, j) < nxt:
            leader = False
    return np.int64(A_PLAY + R8 * MAXC + eights - 1) if leader else np.int64(UNDECIDED)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def shed_face_up_along_nb(mask):
    """fatality: the play that sheds the most face-up cards along (the highest legal id from A_PLAY_UP on)."""
    for a in range(A_PICKUP_WITH - 1, A_PLAY_UP - 1, -1):
        if mask[a] != 0:
            return np.int64(a)
    return np.int64(UNDECIDED)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_choice_nb(obs, off, mask, params):
    """expert's rules (agents/expert.py), in its order for the ruleset's family, then greedy's."""
    fam = params[P_FAMILY]
    a = np.int64(UNDECIDED)
    if fam != FAM_OG and mask[A_READY] != 0:
        return swap_best_to_table_nb(mask, params)
    if fam == FAM_003 and mask[A_PASS] != 0:
        return counter_a_joker_when_it_pays_nb(obs, off, mask)
    if fam == FAM_003 and mask[A_NOMINATE] != 0:
        return nominate_the_leader_nb(obs, off, params)
    a = complete_a_burn_nb(obs, off, mask, params)
    if a == UNDECIDED and fam == FAM_OG:
        a = sabotage_with_a_3_nb(obs, off, mask, params)
    if a == UNDECIDED and fam == FAM_FAT:
        a = skip_the_leader_nb(obs, off, mask, params)
        if a == UNDECIDED:
            a = shed_face_up_along_nb(mask)
    if a == UNDECIDED:
        a = greedy_choice_nb(mask, params)
    return a


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_batch_nb(obs, off, mask, params, out):
    for i in range(mask.shape[0]):
        out[i] = expert_choice_nb(obs[i], off, mask[i], params)
