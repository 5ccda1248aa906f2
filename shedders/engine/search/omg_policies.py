"""The omg ``greedy`` and ``expert`` strategies, each written once, as numba kernels over what the deciding seat
sees: its hand, every seat's hand size, the pile's top, Apollo's revealed card, the power a Hermes would copy,
and its action mask. ``agents/omg_greedy.py`` and ``agents/omg_expert.py`` read these from the observation and
run the kernels over a batch; the search's rollouts read them from the engine state (``choice_from_state_nb``).
The rules themselves are documented in those agents.

Arguments shared by the kernels: ``hand`` (counts per card type), ``hsize`` (hand size per seat) and ``me`` (the
deciding seat in ``hsize``: relative seats are ``(me + j) % n``), ``top`` (the pile's top card type),
``revealed`` (Apollo's revealed card type, -1 none), ``copy`` (the god a Hermes would copy, -1 none).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import attr_nb, held_type_nb, held_words_nb, hermes_copy_nb, penalty_nb
from shedders.engine.omg.layout import (
    APHRODITE,
    APOLLO,
    ARES,
    ARTEMIS,
    ATHENA,
    CGOD,
    CNUM,
    CPOWER,
    DEMETER,
    F_COLOR,
    F_GOD,
    F_NUMBER,
    HEPHAESTUS,
    HERA,
    HERMES,
    HESTIA,
    L_ATTRIBUTE,
    L_COLOR,
    L_DISCARD,
    L_GIVE,
    L_GOD,
    L_NUMBER,
    L_PLAY,
    L_STOP,
    L_TARGET,
    MAXN,
    N_ATTRS,
    N_COLORS,
    N_GODS,
    P_NPLAYERS,
    P_NTYPES,
    POSEIDON,
    ZEUS,
)

HARM = 1.0 / 3.0  # expert: a card forced on others is worth a third of a card shed
HESTIA_RESERVE = 1.5  # expert: what playing a Hestia costs while the hand holds more than 2 cards
POWER_BONUS = 10.0  # greedy's tie-break: among equal penalties a card with a power first ...
PENALTY_WEIGHT = 100.0  # ... then the higher number; the penalty counts first


# The kernels read the legal actions from ``ids[:nl]``, the legal action ids in increasing order (legal_mask_nb's
# list, or the mask's nonzero entries), instead of scanning every card type: a hand holds a few of omg's 96. Where
# a hand's counts are needed, its card types are read from a list ``held[lo:hi] - off``: the legal plays during a
# play (a play is legal for every type the hand holds), else written by ``held_nb`` past the legal ids (``ids`` has
# room: nl + T entries at most, fewer than the A actions, whose plays and discards take T each). Every loop still
# visits the card types in increasing order, so each decision is the one a scan of every type makes.
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def count_in_hand_nb(hand, held, lo, hi, off, kind, val, cards):
    """Cards in ``hand`` whose number / color / god (``kind``) is ``val`` (its types: ``held[lo:hi] - off``)."""
    c = 0
    for i in range(lo, hi):
        t = np.int64(held[i]) - off
        if attr_nb(cards, t, kind) == val:
            c += hand[t]
    return np.int64(c)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def held_nb(hand, nt, out, at):
    """Write the card types ``hand`` holds, in increasing order, to ``out[at:]``; returns where the list ends."""
    lo, hi = held_words_nb(hand, nt)
    while lo != 0 or hi != 0:
        t, lo, hi = held_type_nb(lo, hi)
        out[at] = t
        at += 1
    return at


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def most_held_nb(hand, held, lo, hi, off, kind, t, cards):
    """The most cards of one number / color / god in ``hand`` once one card of type t has left it."""
    best = 0
    size = MAXN if kind == F_NUMBER else (N_COLORS if kind == F_COLOR else N_GODS)
    for v0 in range(size):
        v = v0 + 1 if kind == F_NUMBER else v0
        c = count_in_hand_nb(hand, held, lo, hi, off, kind, v, cards)
        if attr_nb(cards, t, kind) == v:
            c -= 1
        best = max(best, c)
    return np.int64(best)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def in_block_nb(a, lo, size):
    return lo <= a < lo + size


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_play_nb(top, ids, nl, params, cards, lay):
    """greedy rule 1: the legal play of smallest penalty (0 for a match or a Hestia); among equals a card with a
    power, then the higher number. Returns the card type, -1 when no play is legal."""
    best, bk = np.int64(-1), np.inf
    for i in range(nl):
        if not in_block_nb(ids[i], lay[L_PLAY], params[P_NTYPES]):
            continue
        t = np.int64(ids[i]) - lay[L_PLAY]
        pen = penalty_nb(cards, t, top)
        if cards[t, CPOWER] != 0 and cards[t, CGOD] == HESTIA:
            pen = 0
        key = pen * PENALTY_WEIGHT - cards[t, CPOWER] * POWER_BONUS - cards[t, CNUM]
        if key < bk:
            best, bk = t, key
    return best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_play_nb(hand, hsize, me, top, copy, ids, nl, params, cards, lay):
    """expert rules 1-3: the legal play that leaves the fewest cards (penalty in, the power's sheds out), less a
    third of a card per card forced on others, a Hestia kept in reserve. Returns the card type, -1 when none. The
    hand's types are the legal plays (``ids[:nl]``, read only when some play is legal)."""
    n = params[P_NPLAYERS]
    h = np.int64(hsize[me])
    p0 = lay[L_PLAY]
    best, bk = np.int64(-1), np.inf
    for i in range(nl):
        if not in_block_nb(ids[i], p0, params[P_NTYPES]):
            continue
        t = np.int64(ids[i]) - p0
        eff = np.int64(-1)  # the power that acts: the card's, or for a Hermes the one it copies
        if cards[t, CPOWER] != 0:
            eff = copy if cards[t, CGOD] == HERMES else np.int64(cards[t, CGOD])
        pen = 0 if eff == HESTIA else penalty_nb(cards, t, top)
        after = h - 1 + pen
        sheds = 0
        if eff == ATHENA:
            sheds = after // 2
        elif eff == HEPHAESTUS:
            sheds = min(1, after)
        elif eff == ARTEMIS:
            sheds = min(2, most_held_nb(hand, ids, 0, nl, p0, F_NUMBER, t, cards))
        elif eff == DEMETER:
            sheds = min(2, most_held_nb(hand, ids, 0, nl, p0, F_COLOR, t, cards))
        elif eff == POSEIDON:
            sheds = min(2, most_held_nb(hand, ids, 0, nl, p0, F_GOD, t, cards))
        elif eff == APOLLO:
            sheds = min(1, h - 1)
        own = (0 if eff == HERA else pen - 1) - sheds
        harm = 0.0
        if eff == ZEUS:
            harm = 2.0
        elif eff == ARES:
            harm = 1.0 + 0.25 * (n - 2)
        elif eff == HERA:
            harm = pen
        elif eff == APHRODITE:
            harm = 1.0
        reserve = HESTIA_RESERVE if eff == HESTIA and h > 2 else 0.0
        key = own - HARM * harm + reserve - 0.01 * cards[t, CNUM]
        if key < bk:
            best, bk = t, key
    return best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_discard_nb(ids, nl, params, cards, lay):
    """greedy rule 4: the highest-numbered legal discard; -1 when none (then ``stop``)."""
    best, bn = np.int64(-1), np.int64(-1)
    for i in range(nl):
        if not in_block_nb(ids[i], lay[L_DISCARD], params[P_NTYPES]):
            continue
        t = np.int64(ids[i]) - lay[L_DISCARD]
        if cards[t, CNUM] > bn:
            best, bn = t, np.int64(cards[t, CNUM])
    return best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_discard_nb(ids, nl, params, cards, lay):
    """expert rule 5: plain cards first, extreme numbers before middle ones; Hestia, Athena and Hera last."""
    best, bk = np.int64(-1), np.inf
    for i in range(nl):
        if not in_block_nb(ids[i], lay[L_DISCARD], params[P_NTYPES]):
            continue
        t = np.int64(ids[i]) - lay[L_DISCARD]
        keep = 0.0
        if cards[t, CPOWER] != 0:
            gd = cards[t, CGOD]
            keep = 3.0 if gd == HESTIA else (2.0 if gd == ATHENA or gd == HERA else 1.0)
        key = keep * 10.0 - abs(np.int64(cards[t, CNUM]) - 5)
        if key < bk:
            best, bk = t, key
    return best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def most_matching_nb(hand, held, lo, hi, base, size, kind, mask, cards):
    """Artemis, Demeter, Poseidon: the legal number / color / god (``kind``) with the most cards in hand (its types
    ``held[lo:hi]``)."""
    best, bc = np.int64(-1), np.int64(-1)
    for v in range(size):
        if mask[base + v] != 0:
            c = count_in_hand_nb(hand, held, lo, hi, 0, kind, v + 1 if kind == F_NUMBER else v, cards)
            if c > bc:
                best, bc = v, c
    return base + best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def any_legal_nb(mask, base, size):
    for a in range(base, base + size):
        if mask[a] != 0:
            return True
    return False


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def choice_nb(play, discard, hand, hsize, me, revealed, mask, ids, nl, params, cards, lay):
    """The decision, given the strategy's play and discard (card types, -1 none): the play; a target or Hera's
    gift for the player with the fewest cards; the number, color or god most held; Apollo's attribute most hand
    cards share; the discard; else ``stop``. A choice that is not legal becomes the lowest legal id."""
    n = params[P_NPLAYERS]
    leader, ls = np.int64(1), np.int64(1 << 30)  # the first seat, from the next one on, with the fewest cards
    for j in range(1, n):
        if hsize[(me + j) % n] < ls:
            leader, ls = j, np.int64(hsize[(me + j) % n])
    out = np.int64(lay[L_STOP])
    if play >= 0:
        out = lay[L_PLAY] + play
    elif mask[lay[L_TARGET]] != 0:
        out = lay[L_TARGET] + leader - 1
    elif mask[lay[L_GIVE]] != 0:
        out = lay[L_GIVE] + leader - 1
    elif any_legal_nb(mask, lay[L_NUMBER], MAXN):
        out = most_matching_nb(hand, ids, nl, held_nb(hand, params[P_NTYPES], ids, nl), lay[L_NUMBER], MAXN,
                               F_NUMBER, mask, cards)
    elif any_legal_nb(mask, lay[L_COLOR], N_COLORS):
        out = most_matching_nb(hand, ids, nl, held_nb(hand, params[P_NTYPES], ids, nl), lay[L_COLOR], N_COLORS,
                               F_COLOR, mask, cards)
    elif any_legal_nb(mask, lay[L_GOD], N_GODS):
        out = most_matching_nb(hand, ids, nl, held_nb(hand, params[P_NTYPES], ids, nl), lay[L_GOD], N_GODS,
                               F_GOD, mask, cards)
    elif any_legal_nb(mask, lay[L_ATTRIBUTE], N_ATTRS):
        hi = held_nb(hand, params[P_NTYPES], ids, nl)
        best, bc = np.int64(0), np.int64(-1)
        for a in range(N_ATTRS):
            if mask[lay[L_ATTRIBUTE] + a] != 0:
                c = count_in_hand_nb(hand, ids, nl, hi, 0, F_NUMBER + a,
                                     attr_nb(cards, max(revealed, 0), F_NUMBER + a), cards)
                if c > bc:
                    best, bc = a, c
        out = lay[L_ATTRIBUTE] + best
    elif discard >= 0:
        out = lay[L_DISCARD] + discard
    if mask[out] == 0 and nl > 0:
        return np.int64(ids[0])  # the lowest legal id
    return out


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def strategy_nb(expert, hand, hsize, me, top, revealed, copy, mask, ids, nl, params, cards, lay):
    """greedy's (``expert`` False) or expert's decision for the deciding seat, given its legal actions (the mask,
    and ``ids[:nl]``: see above)."""
    play = np.int64(-1)
    if nl > 0 and in_block_nb(ids[0], lay[L_PLAY], params[P_NTYPES]):  # a play phase: only plays are legal
        play = (expert_play_nb(hand, hsize, me, top, copy, ids, nl, params, cards, lay) if expert
                else greedy_play_nb(top, ids, nl, params, cards, lay))
    discard = np.int64(-1)  # choice_nb reads the discard only when nothing plays: looked for only then
    if play < 0:
        discard = (expert_discard_nb(ids, nl, params, cards, lay) if expert
                   else greedy_discard_nb(ids, nl, params, cards, lay))
    return choice_nb(play, discard, hand, hsize, me, revealed, mask, ids, nl, params, cards, lay)


# inlined: a call that passes the engine state costs a good part of a decision (the state's arrays go along)
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def choice_from_state_nb(expert, s, g, mask, ids, nl, params, cards, lay):
    """The strategy's decision in game g of the engine state (rollouts), given its legal actions (``mask`` and
    ``ids[:nl]`` as legal_mask_nb fills them): what the player to act sees."""
    p = np.int64(s.turn[g])
    top = np.int64(s.pile[g, s.pile_len[g] - 1])
    return strategy_nb(expert, s.hand[g, p], s.hsize[g], p, top, np.int64(s.revealed[g]),
                       hermes_copy_nb(s, g, cards), mask, ids, nl, params, cards, lay)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def one_hot_nb(v):
    """The index of the first largest entry (an observation's one-hot field)."""
    best = 0
    for i in range(v.shape[0]):
        if v[i] > v[best]:
            best = i
    return np.int64(best)


# ``off`` for ``choice_from_obs_nb``: where these observation fields start, in this order
OBS_FIELDS = ("hand", "top", "hand_sizes", "revealed", "hermes_copies")


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def choice_from_obs_nb(expert, obs, off, mask, ids, params, cards, lay):
    """The strategy's decision from the deciding seat's observation (the agents): the same inputs, read there.
    ``ids`` is scratch for the legal ids and the hand's types (A + T entries)."""
    nt = params[P_NTYPES]
    nl = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            ids[nl] = a
            nl += 1
    n = params[P_NPLAYERS]
    hand = obs[off[0]: off[0] + nt]
    top = one_hot_nb(obs[off[1]: off[1] + nt])
    rev = obs[off[3]: off[3] + nt]
    revealed = one_hot_nb(rev)
    if rev[revealed] == 0:
        revealed = -1
    copy = one_hot_nb(obs[off[4]: off[4] + N_GODS + 1])
    if copy == N_GODS:  # the last entry: nothing to copy
        copy = -1
    return strategy_nb(expert, hand, obs[off[2]: off[2] + n], np.int64(0), top, revealed, copy, mask, ids, nl,
                       params, cards, lay)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def batch_choice_nb(expert, obs, off, mask, params, cards, lay, ids, out):
    """Each row's decision; ``ids`` is scratch (int16, A + T)."""
    for i in range(mask.shape[0]):
        out[i] = choice_from_obs_nb(expert, obs[i], off, mask[i], ids, params, cards, lay)
