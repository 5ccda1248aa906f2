"""The palace family as data: ranks, the parameter array the kernels read, ``PalaceRules`` and the presets.

Nothing here imports numba: the engine's layout (``shedders.engine.palace.layout``) takes the vocabulary and the
parameter layout from this module, and ``PalaceRules.to_params`` writes the array the kernels read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedders.rules.common import CAP_RULES, DEFAULT_PLY_CAP

# Ranks. Index order is the rank order for "equal or higher" (R-RANK-ORDER: 2 < 3 < ... < K < A); JOKER is last.
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JOKER")
R = 14
R2, R3, R4, R5, R6, R7, R8, R9, R10, RJ, RQ, RK, RA, RJOKER = range(R)
N_PLAIN = R - 1  # the ranks without the Joker (2 .. A): what a Joker or fatality's 3s may stand for
CARDS_PER_RANK = 4  # in one deck

# Rule families: seed 003 (core, south_african, house), seed 000 (og), seed 002 (fatality).
FAM_003, FAM_OG, FAM_FAT = range(3)

# Parameter array layout (PalaceRules.to_params writes it; the kernels read params[P_*]).
(
    P_NPLAYERS,
    P_RESET_2,
    P_MIRROR_5,
    P_UNDER_7,
    P_BURN_10,
    P_SKIP_8,
    P_REVERSE_Q,
    P_NOMINATE_A,
    P_FOUR_BURN,
    P_VOLUNTARY_PICKUP,
    P_SLAP,
    P_REVERSE_ON_DOUBLES,
    P_SET_SIZE,
    P_MAX_SKIP,
    P_NDECKS,
    P_NJOKERS,
    P_PLY_CAP,
    P_SWAP_PHASE,
    P_FAMILY,  # FAM_003, FAM_OG, FAM_FAT
    P_UP_WITH_HAND,  # fatality*: face-up cards of rank r join a play of the last hand cards, all r
    P_PICKUP_WITH_UP,  # fatality*: with an empty hand, take face-up cards of one rank along with the pile
    P_THREES_AS_TOP,  # fatality*: a hand of only 3s is played at once as the top's rank
    P_CAP_RULE,  # CAP_TRUNCATE or CAP_MOST_CARDS: how a game at the ply cap ends
    N_PARAMS,
) = range(24)
CAP_TRUNCATE, CAP_MOST_CARDS = range(2)  # the order of CAP_RULES

#: Toggles a ``house`` table may set through ``rules=``. The first nine are seed 003's special cards, then
#: pickup and the prison rules, then ``swap_phase`` (an extra of shedders: turn the setup swap phase off).
HOUSE_TOGGLES = (
    "reset_2",
    "mirror_5",
    "under_7",
    "burn_10",
    "skip_8",
    "reverse_q",
    "nominate_a",
    "jokers",
    "four_burn",
    "voluntary_pickup",
    "slap",
    "reverse_on_doubles",
    "losers_tax",
    "shithead_shaming",
    "swap_phase",
)

#: fatality's starred tabletop rules (seed 002: "Some actions are not possible in the online version"), each on
#: by default: the swap phase, pickup with face-up cards, face-up cards joining the last hand cards, and a hand
#: of only 3s played as the top's rank.
FATALITY_TOGGLES = ("swap_phase", "pickup_with_up", "up_with_hand", "threes_as_top")



@dataclass(frozen=True)
class PalaceRules:
    """One palace-family ruleset. Every field is a rule of a seed (or a ruling) that the kernels read."""

    name: str
    num_players: int
    reset_2: bool = True  # 2 resets the pile; wild
    mirror_5: bool = True  # 5 copies the card beneath it; wild
    under_7: bool = True  # after a 7 the next play must be lower than 7, or a wild
    burn_10: bool = True  # 10 burns the pile and the player goes again; wild
    skip_8: bool = False  # k eights skip k players (at most max_skip)
    reverse_q: bool = False  # each queen flips the direction of play
    nominate_a: bool = False  # aces nominate a player who must answer with 2, 5, A or Joker, or eat
    jokers: bool = False  # two Jokers per deck, with the standoff power
    four_burn: bool = True  # four of a rank on top of the pile burn it, overriding powers
    voluntary_pickup: bool = True  # the pile may be picked up at any turn, not only when nothing is legal
    slap: bool = False  # prison: after a burn a random other player draws a penalty card
    reverse_on_doubles: bool = False  # prison: any play of exactly two cards reverses direction
    losers_tax: bool = False  # prison: across games of a Match, loser's best card <-> winner's worst
    shithead_shaming: bool = False  # prison: the renderer and the explanations call the last loser "Shithead"
    swap_phase: bool = True  # setup: swap hand <-> face-up, then ready
    up_with_hand: bool = False  # fatality*: face-up cards of rank r join a play of the last hand cards (all r)
    pickup_with_up: bool = False  # fatality*: with an empty hand, pick up face-up cards of one rank with the pile
    threes_as_top: bool = False  # fatality*: a hand of only 3s is played at once as the top's rank
    family: int = FAM_003  # which seed's rules: FAM_003, FAM_OG, FAM_FAT
    max_skip: int = 3
    set_size: int = 4
    num_decks: int = 1
    ply_cap: int = DEFAULT_PLY_CAP
    base: str | None = None  # house only: the ruleset it starts from
    cap_rule: str = "truncate"  # CAP_RULES: how a game at the ply cap ends

    @property
    def num_jokers(self) -> int:
        return 2 * self.num_decks if self.jokers else 0

    @property
    def num_cards(self) -> int:
        return CARDS_PER_RANK * N_PLAIN * self.num_decks + self.num_jokers

    def deck_counts(self) -> np.ndarray:
        """How many cards of each rank the deck holds."""
        c = np.full(R, CARDS_PER_RANK * self.num_decks, np.int64)
        c[RJOKER] = self.num_jokers
        return c

    def toggles(self) -> dict[str, bool]:
        return {t: getattr(self, t) for t in HOUSE_TOGGLES}

    def to_params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, np.int64)
        p[P_NPLAYERS] = self.num_players
        p[P_RESET_2] = self.reset_2
        p[P_MIRROR_5] = self.mirror_5
        p[P_UNDER_7] = self.under_7
        p[P_BURN_10] = self.burn_10
        p[P_SKIP_8] = self.skip_8
        p[P_REVERSE_Q] = self.reverse_q
        p[P_NOMINATE_A] = self.nominate_a
        p[P_FOUR_BURN] = self.four_burn
        p[P_VOLUNTARY_PICKUP] = self.voluntary_pickup
        p[P_SLAP] = self.slap
        p[P_REVERSE_ON_DOUBLES] = self.reverse_on_doubles
        p[P_SET_SIZE] = self.set_size
        p[P_MAX_SKIP] = self.max_skip
        p[P_NDECKS] = self.num_decks
        p[P_NJOKERS] = self.num_jokers
        p[P_PLY_CAP] = self.ply_cap
        p[P_SWAP_PHASE] = self.swap_phase
        p[P_FAMILY] = self.family
        p[P_UP_WITH_HAND] = self.up_with_hand
        p[P_PICKUP_WITH_UP] = self.pickup_with_up
        p[P_THREES_AS_TOP] = self.threes_as_top
        p[P_CAP_RULE] = CAP_RULES.index(self.cap_rule)
        return p


# Presets: the fields each seed sets over the defaults (seed 003's core).
SOUTH_AFRICAN = {"skip_8": True, "reverse_q": True, "nominate_a": True, "jokers": True}
# seed 000: 2 resets, 3 forces a pickup (family rule), 7 caps at 7, 10 burns, full sets burn, no voluntary pickup,
# no swap phase (the cover pick is og's setup).
OG = {"mirror_5": False, "voluntary_pickup": False, "swap_phase": False, "family": FAM_OG}
# seed 002: 2, 3 and Jokers wild (family rule; the 2 does not reset), 7 caps at 7, k eights skip k players with
# no cap, 10 must beat the top and burns, four or more burn, forced play, 2 Jokers.
FATALITY = {
    "reset_2": False,
    "mirror_5": False,
    "skip_8": True,
    "max_skip": 99,
    "jokers": True,
    "voluntary_pickup": False,
    "up_with_hand": True,
    "pickup_with_up": True,
    "threes_as_top": True,
    "family": FAM_FAT,
}
