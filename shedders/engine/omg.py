"""The omg engine (seed 001): numba kernels over a struct-of-arrays state, batch first.

Cards are types t in 0..T-1 from the deck file (``shedders.omg_deck``); ``cards[t]`` = (god, color, number,
power). Hands are counts per type; the deck and the pile are stacks of types (the deck's top is its last entry,
the pile's top its last entry).

One decision at a time, always by the player whose turn it is (``turn``): the play, then each choice a power asks
for. ``step_nb`` applies a decision and resolves everything automatic until the next decision: penalties and
draws, rebuilding the deck, Ares, Hestia, Hera's own draw, lost turns, the end of the game.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

# gods (shedders.omg_deck.GODS order)
ZEUS, ARES, ATHENA, ARTEMIS, DEMETER, APOLLO, APHRODITE, HEPHAESTUS, HESTIA, POSEIDON, HERA, HERMES = range(12)
N_GODS = 12
N_COLORS = 4
MAXN = 9  # numbers 1..9 (shedders.omg_deck.MAX_NUMBER)
MAXP = 8
CGOD, CCOLOR, CNUM, CPOWER = 0, 1, 2, 3

# phases
PH_PLAY, PH_TARGET, PH_CHOOSE, PH_DISCARD, PH_GIVE, PH_OVER = range(6)
PHASE_NAMES = ("play", "target", "choose", "discard", "give", "over")
KIND_WAITING = 6
N_KINDS = 7

# what a CHOOSE phase or a discard filter is about
F_NONE, F_NUMBER, F_COLOR, F_GOD, F_ATTR = range(5)

# params
P_NPLAYERS, P_PLY_CAP, P_HAND, P_NTYPES, P_CAP_RULE = range(5)
N_PARAMS = 5
CAP_TRUNCATE, CAP_MOST_CARDS = range(2)  # the order of shedders.rules.CAP_RULES


def action_layout(num_types: int) -> dict[str, int]:
    """Base id of each action kind, for a deck of ``num_types`` card types."""
    out = {}
    o = 0
    for name, size in (("play", num_types), ("target", MAXP - 1), ("number", MAXN), ("color", N_COLORS),
                       ("god", N_GODS), ("attribute", 3), ("discard", num_types), ("stop", 1), ("give", MAXP - 1)):
        out[name] = o
        o += size
    out["n_actions"] = o
    return out


#: the order of ``layout_array``: the base ids the kernels take as ``lay[0]`` ... ``lay[8]``
LAYOUT_KINDS = ("play", "target", "number", "color", "god", "attribute", "discard", "stop", "give")


def layout_array(num_types: int) -> np.ndarray:
    """The action bases of ``action_layout`` as the int64 array the kernels read, in ``LAYOUT_KINDS`` order."""
    lay = action_layout(num_types)
    return np.array([lay[k] for k in LAYOUT_KINDS], np.int64)


OmgState = namedtuple(
    "OmgState",
    [
        "hand",  # int16 (B, P, T): counts per card type
        "hsize",  # int16 (B, P)
        "deck",  # int16 (B, C): types, top = deck[deck_len - 1]
        "deck_len",  # int16 (B,)
        "pile",  # int16 (B, C): types, top = pile[pile_len - 1]
        "pile_len",  # int16 (B,)
        "turn",  # int8 (B,): whose turn it is (and who decides)
        "phase",  # int8 (B,)
        "power",  # int8 (B,): the god whose power is resolving, -1 none
        "fkind",  # int8 (B,): F_* of the pending choice / discard filter
        "fval",  # int8 (B,): the chosen number / color / god
        "left",  # int8 (B,): discards left (or Hera's cards left to give)
        "upto",  # int8 (B,): 1 when the discards are "up to" (stop allowed)
        "skip",  # int8 (B, P): 1 = loses the next turn (Aphrodite)
        "revealed",  # int16 (B,): Apollo's revealed card type while it is the deck's top, else -1
        "winner",  # int8 (B,)
        "plies",  # int16 (B,)
        "terminated",  # bool (B,)
        "truncated",  # bool (B,)
        "rewards",  # float32 (B, P): the last step's rewards
        "rng",  # uint64 (B,)
    ],
)


def alloc_state(b: int, n: int, num_types: int, num_cards: int) -> OmgState:
    c = num_cards + 1
    return OmgState(
        hand=np.zeros((b, n, num_types), np.int16),
        hsize=np.zeros((b, n), np.int16),
        deck=np.zeros((b, c), np.int16),
        deck_len=np.zeros(b, np.int16),
        pile=np.zeros((b, c), np.int16),
        pile_len=np.zeros(b, np.int16),
        turn=np.zeros(b, np.int8),
        phase=np.zeros(b, np.int8),
        power=np.full(b, -1, np.int8),
        fkind=np.zeros(b, np.int8),
        fval=np.zeros(b, np.int8),
        left=np.zeros(b, np.int8),
        upto=np.zeros(b, np.int8),
        skip=np.zeros((b, n), np.int8),
        revealed=np.full(b, -1, np.int16),
        winner=np.full(b, -1, np.int8),
        plies=np.zeros(b, np.int16),
        terminated=np.zeros(b, np.bool_),
        truncated=np.zeros(b, np.bool_),
        rewards=np.zeros((b, n), np.float32),
        rng=np.zeros(b, np.uint64),
    )


# ----------------------------------------------------------------------------------------------------------------
# Random stream (splitmix64 per game, as the palace engine). Repeated here rather than imported: numba's disk cache
# checks only the source file of the function it caches, so a kernel calling into palace.py could load stale code
# after palace.py changed.
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def splitmix64_nb(x):
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rand_below_nb(s, g, n):
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    z = splitmix64_nb(s.rng[g])
    return np.int64((z >> np.uint64(11)) % np.uint64(n))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def next_game_seed_nb(s, g):
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    return splitmix64_nb(s.rng[g])


# ----------------------------------------------------------------------------------------------------------------
# Cards moving
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def shuffle_deck_nb(s, g, k):
    """Fisher-Yates over deck[g, :k], from the game's own stream."""
    for i in range(k - 1, 0, -1):
        j = rand_below_nb(s, g, i + 1)
        tmp = s.deck[g, i]
        s.deck[g, i] = s.deck[g, j]
        s.deck[g, j] = tmp


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rebuild_nb(s, g):
    """seed 001: "keep the last played card on the table and shuffle the rest of the cards to form a new deck"."""
    k = np.int64(s.pile_len[g]) - 1
    if k <= 0:
        return
    top = s.pile[g, k]
    for i in range(k):
        s.deck[g, i] = s.pile[g, i]
    shuffle_deck_nb(s, g, k)
    s.deck_len[g] = k
    s.pile[g, 0] = top
    s.pile_len[g] = 1
    s.revealed[g] = -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def take_nb(s, g):
    """The deck's top card (rebuilding an empty deck first), or -1 when no card is left anywhere."""
    if s.deck_len[g] == 0:
        rebuild_nb(s, g)
        if s.deck_len[g] == 0:
            return -1
    s.deck_len[g] -= 1
    s.revealed[g] = -1  # the revealed card, if any, has left the deck's top
    return np.int64(s.deck[g, s.deck_len[g]])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def draw_nb(s, g, q, k):
    """Player q draws k cards (when no card is left anywhere, what there is)."""
    for _ in range(k):
        t = take_nb(s, g)
        if t < 0:
            return
        s.hand[g, q, t] += 1
        s.hsize[g, q] += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def push_nb(s, g, t):
    s.pile[g, s.pile_len[g]] = t
    s.pile_len[g] += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def remove_nb(s, g, q, t):
    s.hand[g, q, t] -= 1
    s.hsize[g, q] -= 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def hermes_copy_nb(s, g, cards):
    """RULINGS: the power of the card nearest the top of the pile that has one, skipping Hermes cards; -1 none."""
    for i in range(np.int64(s.pile_len[g]) - 1, -1, -1):
        t = s.pile[g, i]
        if cards[t, CPOWER] != 0 and cards[t, CGOD] != HERMES:
            return np.int64(cards[t, CGOD])
    return np.int64(-1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def attr_nb(cards, t, kind):
    if kind == F_NUMBER:
        return cards[t, CNUM]
    if kind == F_COLOR:
        return cards[t, CCOLOR]
    return cards[t, CGOD]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def count_matching_nb(s, g, q, kind, val, cards):
    c = 0
    for t in range(s.hand.shape[2]):
        if s.hand[g, q, t] > 0 and attr_nb(cards, t, kind) == val:
            c += s.hand[g, q, t]
    return c


# ----------------------------------------------------------------------------------------------------------------
# Deal
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def deal_nb(s, g, seed, params, counts):
    n = params[P_NPLAYERS]
    s.rng[g] = splitmix64_nb(np.uint64(seed))
    k = 0
    for t in range(counts.shape[0]):
        for _ in range(counts[t]):
            s.deck[g, k] = t
            k += 1
    shuffle_deck_nb(s, g, k)
    s.deck_len[g] = k
    s.pile_len[g] = 0
    s.hand[g] = 0
    s.hsize[g] = 0
    s.skip[g] = 0
    for _ in range(params[P_HAND]):
        for q in range(n):
            draw_nb(s, g, q, 1)
    push_nb(s, g, take_nb(s, g))  # the opening card; its power does not fire
    s.turn[g] = rand_below_nb(s, g, n)  # RULINGS: the first player is drawn at random
    s.phase[g] = PH_PLAY
    s.power[g] = -1
    s.fkind[g] = F_NONE
    s.fval[g] = 0
    s.left[g] = 0
    s.upto[g] = 0
    s.revealed[g] = -1
    s.winner[g] = -1
    s.plies[g] = 0
    s.terminated[g] = False
    s.truncated[g] = False
    s.rewards[g] = 0.0


# ----------------------------------------------------------------------------------------------------------------
# Legal actions
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def legal_mask_nb(s, g, params, cards, lay, mask, ids):
    """Fill mask (0/1 per action) and ids[:k] with the legal action ids; returns k."""
    mask[:] = 0
    k = 0
    ph = s.phase[g]
    if ph == PH_OVER:
        return 0
    p = np.int64(s.turn[g])
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    if ph == PH_PLAY:
        for t in range(nt):
            if s.hand[g, p, t] > 0:
                mask[lay[0] + t] = 1
    elif ph == PH_TARGET:
        for j in range(1, n):
            mask[lay[1] + j - 1] = 1
    elif ph == PH_GIVE:
        for j in range(1, n):
            mask[lay[8] + j - 1] = 1
    elif ph == PH_CHOOSE:
        kind = s.fkind[g]
        if kind == F_ATTR:
            # Apollo: the attributes of the revealed card that some hand card shares
            r = np.int64(s.revealed[g])
            for a in range(3):
                kd = F_NUMBER + a
                if count_matching_nb(s, g, p, kd, attr_nb(cards, r, kd), cards) > 0:
                    mask[lay[5] + a] = 1
        else:
            for t in range(nt):
                if s.hand[g, p, t] > 0:
                    v = attr_nb(cards, t, kind)
                    if kind == F_NUMBER:
                        mask[lay[2] + v - 1] = 1
                    elif kind == F_COLOR:
                        mask[lay[3] + v] = 1
                    else:
                        mask[lay[4] + v] = 1
    elif ph == PH_DISCARD:
        for t in range(nt):
            if s.hand[g, p, t] > 0 and (s.fkind[g] == F_NONE or attr_nb(cards, t, s.fkind[g]) == s.fval[g]):
                mask[lay[6] + t] = 1
        if s.upto[g] != 0:
            mask[lay[7]] = 1
    for a in range(mask.shape[0]):
        if mask[a]:
            ids[k] = a
            k += 1
    return k


# ----------------------------------------------------------------------------------------------------------------
# Applying a decision
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def end_turn_nb(s, g, params):
    """seed 001: "The winner of the game is the player who gets to empty his hand first" (RULINGS: at the end of
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


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def after_discard_nb(s, g, params, cards):
    """A discard power goes on while it may: discards left, and (for "up to") a matching card in hand."""
    p = np.int64(s.turn[g])
    if s.left[g] <= 0 or s.hsize[g, p] == 0:
        end_turn_nb(s, g, params)
        return
    if s.fkind[g] != F_NONE and count_matching_nb(s, g, p, s.fkind[g], s.fval[g], cards) == 0:
        end_turn_nb(s, g, params)
        return
    s.phase[g] = PH_DISCARD


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def start_power_nb(s, g, p, god, params, cards):
    """Resolve the power of ``god`` for player p (after the penalty): automatic parts now, else the first
    decision. A power with nothing to choose from does nothing (RULINGS)."""
    n = params[P_NPLAYERS]
    s.power[g] = god
    if god == ZEUS or god == APHRODITE:
        s.phase[g] = PH_TARGET
        return
    if god == ARES:
        for j in range(1, n):  # "Each other player draws 1 card", clockwise from the left
            draw_nb(s, g, (p + j) % n, 1)
        end_turn_nb(s, g, params)
        return
    if god == ATHENA or god == HEPHAESTUS:
        k = s.hsize[g, p] // 2 if god == ATHENA else min(1, s.hsize[g, p])
        s.left[g] = k
        s.upto[g] = 0
        s.fkind[g] = F_NONE
        after_discard_nb(s, g, params, cards)
        return
    if god == ARTEMIS or god == DEMETER or god == POSEIDON:
        if s.hsize[g, p] == 0:
            end_turn_nb(s, g, params)
            return
        s.fkind[g] = F_NUMBER if god == ARTEMIS else (F_COLOR if god == DEMETER else F_GOD)
        s.phase[g] = PH_CHOOSE
        return
    if god == APOLLO:
        if s.deck_len[g] == 0:
            rebuild_nb(s, g)
        if s.deck_len[g] == 0:
            end_turn_nb(s, g, params)  # no card anywhere to reveal
            return
        r = np.int64(s.deck[g, s.deck_len[g] - 1])
        s.revealed[g] = r
        shared = 0
        for a in range(3):
            kd = F_NUMBER + a
            shared += count_matching_nb(s, g, p, kd, attr_nb(cards, r, kd), cards)
        if shared == 0:
            end_turn_nb(s, g, params)  # nothing matches: the power ends after the reveal
            return
        s.fkind[g] = F_ATTR
        s.phase[g] = PH_CHOOSE
        return
    end_turn_nb(s, g, params)  # Hestia (already applied), or no power


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def continue_give_nb(s, g, params):
    """Hera: each penalty card is its own decision while a card can be dealt; then she draws 1."""
    p = np.int64(s.turn[g])
    if s.left[g] > 0:
        if s.deck_len[g] == 0:
            rebuild_nb(s, g)
        if s.deck_len[g] > 0:
            s.phase[g] = PH_GIVE
            return
        s.left[g] = 0  # no card left anywhere: the rest are dropped
    draw_nb(s, g, p, 1)  # "Then draw 1 card."
    end_turn_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def apply_nb(s, g, a, params, cards, lay):
    n = params[P_NPLAYERS]
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph == PH_PLAY:
        t = a - lay[0]
        top = np.int64(s.pile[g, s.pile_len[g] - 1])
        remove_nb(s, g, p, t)
        god = np.int64(cards[t, CGOD])
        power = god if cards[t, CPOWER] != 0 else np.int64(-1)
        if power == HERMES:
            power = hermes_copy_nb(s, g, cards)  # the pile below the Hermes: it is not on the pile yet
        # the penalty is counted against the card that was on top before the play
        pen = 0
        if cards[t, CNUM] != cards[top, CNUM] and cards[t, CGOD] != cards[top, CGOD] and power != HESTIA:
            pen = abs(cards[t, CNUM] - cards[top, CNUM])
            if cards[t, CCOLOR] != cards[top, CCOLOR]:
                pen += 1
        push_nb(s, g, t)
        if power == HERA:
            s.power[g] = HERA
            s.left[g] = pen
            continue_give_nb(s, g, params)
            return
        draw_nb(s, g, p, pen)
        if power < 0:
            end_turn_nb(s, g, params)
        else:
            start_power_nb(s, g, p, power, params, cards)
        return
    if ph == PH_TARGET:
        q = (p + a - lay[1] + 1) % n
        if s.power[g] == ZEUS:
            draw_nb(s, g, q, 2)
        else:
            s.skip[g, q] = 1  # Aphrodite: does not stack
        end_turn_nb(s, g, params)
        return
    if ph == PH_GIVE:
        q = (p + a - lay[8] + 1) % n
        t = take_nb(s, g)
        if t >= 0:
            s.hand[g, q, t] += 1
            s.hsize[g, q] += 1
        s.left[g] -= 1
        continue_give_nb(s, g, params)
        return
    if ph == PH_CHOOSE:
        if s.fkind[g] == F_ATTR:
            kd = F_NUMBER + (a - lay[5])
            s.fkind[g] = kd
            s.fval[g] = attr_nb(cards, np.int64(s.revealed[g]), kd)
        elif s.fkind[g] == F_NUMBER:
            s.fval[g] = a - lay[2] + 1
        elif s.fkind[g] == F_COLOR:
            s.fval[g] = a - lay[3]
        else:
            s.fval[g] = a - lay[4]
        s.left[g] = 2
        s.upto[g] = 1
        s.phase[g] = PH_DISCARD
        return
    if ph == PH_DISCARD:
        if a == lay[7]:  # stop
            end_turn_nb(s, g, params)
            return
        t = a - lay[6]
        remove_nb(s, g, p, t)
        push_nb(s, g, t)  # face up onto the pile; its power does not fire
        s.left[g] -= 1
        after_discard_nb(s, g, params, cards)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_nb(s, g, a, params, cards, lay, mask, ids):
    """Apply action a if legal (else return -1 and change nothing); then refresh the mask. Returns the number of
    legal actions now (0 when the game is over)."""
    if a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return -1
    s.rewards[g] = 0.0
    apply_nb(s, g, a, params, cards, lay)
    s.plies[g] += 1
    if s.phase[g] != PH_OVER and s.plies[g] >= params[P_PLY_CAP]:
        s.phase[g] = PH_OVER
        # A truncated game gives every player 0. With most_cards too: the public contract says that in omg a game
        # decided by cards left has no winner (RULINGS would have the fewest cards win; the contract keeps it out)
        s.truncated[g] = True
    return legal_mask_nb(s, g, params, cards, lay, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_one_nb(s, g, seed, params, counts, cards, lay, mask, ids):
    deal_nb(s, g, seed, params, counts)
    return legal_mask_nb(s, g, params, cards, lay, mask, ids)


# ----------------------------------------------------------------------------------------------------------------
# Observation
# ----------------------------------------------------------------------------------------------------------------
def observation_layout(num_players: int, num_types: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each slice of the observation vector; seats are relative to the observer."""
    n, t = num_players, num_types
    return [
        ("kind", N_KINDS, "decision kind: play, target, choose, discard, give, over, or waiting (not the observer's)"),
        ("power", N_GODS, "the god whose power is resolving (one-hot; all 0: none)"),
        ("choice", 5, "what the pending choice or discard filter is about: none, number, color, god, attribute"),
        ("chosen_number", MAXN, "the chosen number, 1..9 (one-hot)"),
        ("chosen_color", N_COLORS, "the chosen color (one-hot)"),
        ("chosen_god", N_GODS, "the chosen god (one-hot)"),
        ("left", 1, "discards left, or Hera's penalty cards left to give"),
        ("may_stop", 1, "1 when the discards are 'up to' (stop is legal)"),
        ("hand", t, "own hand: count per card type"),
        ("top", t, "the pile's top card (one-hot by type)"),
        ("top_god", N_GODS, "the top card's god"),
        ("top_color", N_COLORS, "the top card's color"),
        ("top_number", MAXN, "the top card's number"),
        ("pile", t, "the pile: count per card type (every card in it is face up)"),
        ("pile_powers", N_GODS, "powered cards in the pile, per god"),
        ("hermes_copies", N_GODS + 1, "the power a Hermes would copy now (one-hot; last entry: none)"),
        ("hand_sizes", n, "hand size per seat, relative (0 = observer)"),
        ("deck_size", 1, "cards in the deck"),
        ("pile_size", 1, "cards in the pile"),
        ("revealed", t, "Apollo's revealed card while it is the deck's top (one-hot by type)"),
        ("skips", n, "seats that lose their next turn, relative"),
        ("turn", n, "whose turn it is, relative (one-hot)"),
    ]


def observation_size(num_players: int, num_types: int) -> int:
    return sum(size for _, size, _ in observation_layout(num_players, num_types))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_nb(s, g, seat, params, cards, out):
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    out[:] = 0
    o = 0
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph != PH_OVER and p != seat:
        out[o + KIND_WAITING] = 1
    else:
        out[o + ph] = 1
    o += N_KINDS
    if s.power[g] >= 0:
        out[o + s.power[g]] = 1
    o += N_GODS
    out[o + s.fkind[g]] = 1
    o += 5
    kind = s.fkind[g]
    if ph == PH_DISCARD and kind == F_NUMBER:
        out[o + s.fval[g] - 1] = 1
    o += MAXN
    if ph == PH_DISCARD and kind == F_COLOR:
        out[o + s.fval[g]] = 1
    o += N_COLORS
    if ph == PH_DISCARD and kind == F_GOD:
        out[o + s.fval[g]] = 1
    o += N_GODS
    out[o] = s.left[g]
    out[o + 1] = s.upto[g]
    o += 2
    for t in range(nt):
        out[o + t] = s.hand[g, seat, t]
    o += nt
    top = np.int64(s.pile[g, s.pile_len[g] - 1])
    out[o + top] = 1
    o += nt
    out[o + cards[top, CGOD]] = 1
    o += N_GODS
    out[o + cards[top, CCOLOR]] = 1
    o += N_COLORS
    out[o + cards[top, CNUM] - 1] = 1
    o += MAXN
    for i in range(s.pile_len[g]):
        t = s.pile[g, i]
        out[o + t] += 1
        if cards[t, CPOWER] != 0:
            out[o + nt + cards[t, CGOD]] += 1
    o += nt + N_GODS
    h = hermes_copy_nb(s, g, cards)
    out[o + (h if h >= 0 else N_GODS)] = 1
    o += N_GODS + 1
    for j in range(n):
        out[o + j] = s.hsize[g, (seat + j) % n]
    o += n
    out[o] = s.deck_len[g]
    out[o + 1] = s.pile_len[g]
    o += 2
    if s.revealed[g] >= 0:
        out[o + s.revealed[g]] = 1
    o += nt
    for j in range(n):
        out[o + j] = s.skip[g, (seat + j) % n]
    o += n
    if ph != PH_OVER:
        out[o + (p - seat) % n] = 1


# ----------------------------------------------------------------------------------------------------------------
# The batched engine
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_reset_nb(nthreads, s, seeds, params, counts, cards, lay, obs, mask, cur, nlegal, ids):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        for g in range(c * chunk, min(b, (c + 1) * chunk)):
            deal_nb(s, g, seeds[g], params, counts)
            nlegal[g] = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
            cur[g] = s.turn[g]
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_step_nb(nthreads, s, actions, params, counts, cards, lay, obs, mask, cur, nlegal, ids, rewards, term,
                  trunc, final_placing, final_plies, autoreset):
    b = s.turn.shape[0]
    n = params[P_NPLAYERS]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        for g in range(c * chunk, min(b, (c + 1) * chunk)):
            term[g] = False
            trunc[g] = False
            final_placing[g] = -1
            final_plies[g] = 0
            for q in range(n):
                rewards[g, q] = 0.0
            a = actions[g]
            if a < 0 or s.phase[g] == PH_OVER:
                continue
            k = step_nb(s, g, a, params, cards, lay, mask[g], ids[g])
            for q in range(n):
                rewards[g, q] = s.rewards[g, q]
            if s.phase[g] == PH_OVER:
                term[g] = s.terminated[g]
                trunc[g] = s.truncated[g]
                if s.winner[g] >= 0:  # won (a capped game has no winner)
                    final_placing[g, 0] = s.winner[g]
                final_plies[g] = s.plies[g]
                if autoreset:
                    deal_nb(s, g, next_game_seed_nb(s, g), params, counts)
                    k = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
                else:
                    cur[g] = -1
                    nlegal[g] = 0
                    continue
            nlegal[g] = k
            cur[g] = s.turn[g]
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_sample_nb(nthreads, s, ids, nlegal, out):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        for g in range(c * chunk, min(b, (c + 1) * chunk)):
            out[g] = ids[g, rand_below_nb(s, g, nlegal[g])] if nlegal[g] > 0 else -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def redeal_over_nb(s, params, counts, cards, lay, obs, mask, cur, nlegal, ids):
    k = 0
    for g in range(s.turn.shape[0]):
        if s.phase[g] == PH_OVER:
            deal_nb(s, g, next_game_seed_nb(s, g), params, counts)
            nlegal[g] = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
            cur[g] = s.turn[g]
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])
            k += 1
    return k


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_observe_nb(nthreads, s, seats, params, cards, out):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        for g in range(c * chunk, min(b, (c + 1) * chunk)):
            observe_nb(s, g, seats[g], params, cards, out[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def first_illegal_nb(mask, actions):
    for g in range(actions.shape[0]):
        a = actions[g]
        if a >= 0 and (a >= mask.shape[1] or mask[g, a] == 0):
            return g
    return -1


# ----------------------------------------------------------------------------------------------------------------
# Search (agents/omg_search.py): copying a game, resampling what a seat cannot see, expert rollouts. Kept in this
# file so that numba's cache, which checks only the cached function's own source file, never mixes versions.
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def copy_game_nb(src, g, dst, d):
    """Row g of ``src`` into row d of ``dst`` (same shapes but the batch)."""
    n = src.hand.shape[1]
    for q in range(n):
        for t in range(src.hand.shape[2]):
            dst.hand[d, q, t] = src.hand[g, q, t]
        dst.hsize[d, q] = src.hsize[g, q]
        dst.skip[d, q] = src.skip[g, q]
        dst.rewards[d, q] = src.rewards[g, q]
    for i in range(src.deck_len[g]):
        dst.deck[d, i] = src.deck[g, i]
    for i in range(src.pile_len[g]):
        dst.pile[d, i] = src.pile[g, i]
    dst.deck_len[d] = src.deck_len[g]
    dst.pile_len[d] = src.pile_len[g]
    dst.turn[d] = src.turn[g]
    dst.phase[d] = src.phase[g]
    dst.power[d] = src.power[g]
    dst.fkind[d] = src.fkind[g]
    dst.fval[d] = src.fval[g]
    dst.left[d] = src.left[g]
    dst.upto[d] = src.upto[g]
    dst.revealed[d] = src.revealed[g]
    dst.winner[d] = src.winner[g]
    dst.plies[d] = src.plies[g]
    dst.terminated[d] = src.terminated[g]
    dst.truncated[d] = src.truncated[g]
    dst.rng[d] = src.rng[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def determinize_nb(s, d, viewer, params, cnt):
    """Resample, in row d, every card seat ``viewer`` cannot see: the other hands (sizes kept) and the deck's order,
    except Apollo's revealed card while it is the deck's top. The pile is face up and the viewer's hand is known.
    Hera's penalty cards are dealt unseen (seed 001), so no other card is public. ``cnt`` is scratch (int16, T)."""
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    for t in range(nt):
        cnt[t] = 0
    for q in range(n):
        if q != viewer:
            for t in range(nt):
                cnt[t] += s.hand[d, q, t]
                s.hand[d, q, t] = 0
    kd = np.int64(s.deck_len[d])
    if s.revealed[d] >= 0 and kd > 0:
        kd -= 1  # the revealed card stays on top
    for i in range(kd):
        cnt[s.deck[d, i]] += 1
    # lay the unseen cards out in type order (so the sample depends only on what the viewer cannot tell apart),
    # shuffle them with the row's stream, then deal the other hands and the deck back at their sizes
    m = 0
    for t in range(nt):
        for _ in range(cnt[t]):
            s.deck[d, m] = t
            m += 1
    for i in range(m - 1, 0, -1):
        j = rand_below_nb(s, d, i + 1)
        tmp = s.deck[d, i]
        s.deck[d, i] = s.deck[d, j]
        s.deck[d, j] = tmp
    # the deck keeps its first kd entries; the rest go to the other hands (the revealed top is rewritten after)
    m = kd
    for q in range(n):
        if q != viewer:
            for _ in range(s.hsize[d, q]):
                s.hand[d, q, s.deck[d, m]] += 1
                m += 1
    if s.revealed[d] >= 0 and s.deck_len[d] > 0:
        s.deck[d, kd] = s.revealed[d]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def penalty_nb(cards, t, top):
    """The penalty for playing type t on type top (without powers)."""
    if cards[t, CNUM] == cards[top, CNUM] or cards[t, CGOD] == cards[top, CGOD]:
        return np.int64(0)
    pen = abs(np.int64(cards[t, CNUM]) - np.int64(cards[top, CNUM]))
    if cards[t, CCOLOR] != cards[top, CCOLOR]:
        pen += 1
    return pen


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_action_nb(s, g, params, cards, lay, mask):
    """omg's ``greedy`` (agents/omg_greedy.py) from the state, for rollouts: the smallest penalty (powers, then
    higher numbers, first among equals), the fewest-cards player as target, the most-held number / color / god,
    the highest-numbered discard."""
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph == PH_PLAY:
        top = np.int64(s.pile[g, s.pile_len[g] - 1])
        best, bk = np.int64(-1), 1e30
        for t in range(nt):
            if mask[lay[0] + t] != 0:
                pen = penalty_nb(cards, t, top)
                if cards[t, CPOWER] != 0 and cards[t, CGOD] == HESTIA:
                    pen = 0
                key = pen * 100.0 - cards[t, CPOWER] * 10.0 - cards[t, CNUM]
                if key < bk:
                    best, bk = t, key
        return lay[0] + best
    if ph == PH_TARGET or ph == PH_GIVE:
        base = lay[1] if ph == PH_TARGET else lay[8]
        best, bs = np.int64(1), np.int64(1 << 30)
        for j in range(1, n):
            h = np.int64(s.hsize[g, (p + j) % n])
            if h < bs:
                best, bs = j, h
        return base + best - 1
    if ph == PH_CHOOSE:
        kind = s.fkind[g]
        if kind == F_ATTR:
            r = np.int64(s.revealed[g])
            best, bc = np.int64(-1), np.int64(-1)
            for a in range(3):
                if mask[lay[5] + a] != 0:
                    c = count_matching_nb(s, g, p, F_NUMBER + a, attr_nb(cards, r, F_NUMBER + a), cards)
                    if c > bc:
                        best, bc = a, c
            return lay[5] + best
        base = lay[2] if kind == F_NUMBER else (lay[3] if kind == F_COLOR else lay[4])
        size = MAXN if kind == F_NUMBER else (N_COLORS if kind == F_COLOR else N_GODS)
        best, bc = np.int64(-1), np.int64(-1)
        for v in range(size):
            if mask[base + v] != 0:
                c = count_matching_nb(s, g, p, kind, v + 1 if kind == F_NUMBER else v, cards)
                if c > bc:
                    best, bc = v, c
        return base + best
    # discard: the highest number; stop only when nothing may go
    best, bn = np.int64(-1), np.int64(-1)
    for t in range(nt):
        if mask[lay[6] + t] != 0 and cards[t, CNUM] > bn:
            best, bn = t, np.int64(cards[t, CNUM])
    return lay[6] + best if best >= 0 else lay[7]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def most_held_nb(s, g, p, kind, t, cards):
    """The most cards of one number / color / god in p's hand once one card of type t has left it."""
    best = 0
    size = MAXN if kind == F_NUMBER else (N_COLORS if kind == F_COLOR else N_GODS)
    for v0 in range(size):
        v = v0 + 1 if kind == F_NUMBER else v0
        c = count_matching_nb(s, g, p, kind, v, cards)
        if attr_nb(cards, t, kind) == v:
            c -= 1
        if c > best:
            best = c
    return np.int64(best)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_action_nb(s, g, params, cards, lay, mask):
    """omg's ``expert`` (agents/omg_expert.py) from the state, for rollouts: plays scored in net cards (penalty in,
    power sheds out, a third of a card per card forced on others, a Hestia kept in reserve), greedy's choices and
    targets, discards that keep powers and middle numbers."""
    ph = s.phase[g]
    nt = params[P_NTYPES]
    n = params[P_NPLAYERS]
    if ph == PH_DISCARD:
        best, bk = np.int64(-1), 1e30
        for t in range(nt):
            if mask[lay[6] + t] != 0:
                keep = 0.0
                if cards[t, CPOWER] != 0:
                    gd = cards[t, CGOD]
                    keep = 3.0 if gd == HESTIA else (2.0 if gd == ATHENA or gd == HERA else 1.0)
                key = keep * 10.0 - abs(np.int64(cards[t, CNUM]) - 5)
                if key < bk:
                    best, bk = t, key
        return lay[6] + best if best >= 0 else lay[7]
    if ph != PH_PLAY:
        return greedy_action_nb(s, g, params, cards, lay, mask)
    p = np.int64(s.turn[g])
    top = np.int64(s.pile[g, s.pile_len[g] - 1])
    copy = hermes_copy_nb(s, g, cards)
    h = np.int64(s.hsize[g, p])
    best, bk = np.int64(-1), 1e30
    for t in range(nt):
        if mask[lay[0] + t] == 0:
            continue
        eff = np.int64(-1)
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
            sheds = min(2, most_held_nb(s, g, p, F_NUMBER, t, cards))
        elif eff == DEMETER:
            sheds = min(2, most_held_nb(s, g, p, F_COLOR, t, cards))
        elif eff == POSEIDON:
            sheds = min(2, most_held_nb(s, g, p, F_GOD, t, cards))
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
        reserve = 1.5 if eff == HESTIA and h > 2 else 0.0
        key = own - harm / 3.0 + reserve - 0.01 * cards[t, CNUM]
        if key < bk:
            best, bk = t, key
    return lay[0] + best


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def leaf_value_nb(s, d, viewer, params):
    """The viewer's value of an unfinished game: +1 / -1/(n-1) shaded by hand sizes (a softmin over seats, 2 cards
    per e-fold), on the scale of the real rewards."""
    n = params[P_NPLAYERS]
    z = 0.0
    for q in range(n):
        z += np.exp(-0.5 * s.hsize[d, q])
    pw = np.exp(-0.5 * s.hsize[d, viewer]) / z
    return pw * (1.0 + 1.0 / (n - 1)) - 1.0 / (n - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rollout_nb(s, d, viewer, params, cards, lay, eps_milli, max_plies, mask, ids):
    """Play row d to its end, or ``max_plies`` more decisions (then the leaf value): expert, with a uniformly
    random legal action with probability eps_milli / 1000. Returns the viewer's value."""
    for _ in range(max_plies):
        if s.phase[d] == PH_OVER:
            return np.float64(s.rewards[d, viewer]) if s.terminated[d] else 0.0
        nl = legal_mask_nb(s, d, params, cards, lay, mask, ids)
        if eps_milli > 0 and rand_below_nb(s, d, 1000) < eps_milli:
            a = np.int64(ids[rand_below_nb(s, d, nl)])
        else:
            a = expert_action_nb(s, d, params, cards, lay, mask)
        s.rewards[d] = 0.0
        apply_nb(s, d, a, params, cards, lay)
    if s.phase[d] == PH_OVER:
        return np.float64(s.rewards[d, viewer]) if s.terminated[d] else 0.0
    return leaf_value_nb(s, d, viewer, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_one_nb(src, g, params, cards, lay, work, w0, budget, oracle, seed, eps_milli, max_plies, mask, ids, mask2,
                  ids2, cnt):
    """Determinized Monte Carlo for game g's player: every legal action is tried in the same ``budget // legal``
    sampled worlds (common random numbers), each followed by an expert rollout; the action of highest mean value.
    ``oracle`` skips the resampling: its rollouts see every hand and the deck's order."""
    viewer = np.int64(src.turn[g])
    nl = legal_mask_nb(src, g, params, cards, lay, mask, ids)
    if nl == 1:
        return np.int64(ids[0])
    n_det = max(1, budget // nl)
    best_a, best_v = np.int64(ids[0]), -1e30
    for i in range(nl):
        a = np.int64(ids[i])
        v = 0.0
        for k in range(n_det):
            copy_game_nb(src, g, work, w0)
            work.rng[w0] = splitmix64_nb(np.uint64(seed) + np.uint64(k) * np.uint64(7919))
            if not oracle:
                determinize_nb(work, w0, viewer, params, cnt)
            work.rewards[w0] = 0.0
            apply_nb(work, w0, a, params, cards, lay)
            v += rollout_nb(work, w0, viewer, params, cards, lay, eps_milli, max_plies, mask2, ids2)
        if v > best_v:
            best_a, best_v = a, v
    return best_a


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_range_nb(src, games, lo, hi, params, cards, lay, work, budget, oracle, seeds, eps_milli, max_plies, mask,
                    ids, mask2, ids2, cnt, out):
    for j in range(lo, hi):
        out[j] = search_one_nb(src, games[j], params, cards, lay, work, j, budget, oracle, seeds[j], eps_milli,
                               max_plies, mask[j], ids[j], mask2[j], ids2[j], cnt[j])


@nb.njit(cache=True, parallel=True)
def batch_search_nb(nchunks, src, games, params, cards, lay, work, budget, oracle, seeds, eps_milli, max_plies, mask,
                    ids, mask2, ids2, cnt, out):
    """Search the decisions of games[j] (one work row each), in chunks over the threads."""
    b = games.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        search_range_nb(src, games, c * size, min(b, (c + 1) * size), params, cards, lay, work, budget, oracle, seeds,
                        eps_milli, max_plies, mask, ids, mask2, ids2, cnt, out)
