"""omg scenarios: the scenario dict (the README's "Scenarios") <-> the engine arrays of one game.

Keys: ``ruleset``, ``current_player``, ``phase``, ``players`` (each ``{"hand": [...], "finished":
False, "skip_next": False}``), ``pile`` (bottom to top), ``deck`` (next card first), ``revealed`` (Apollo's
revealed card, or ``None``), ``placing``. Cards are written ``"Hera Fire 3*"`` (``*``: the card carries its god's
power).

shedders adds, for a power that is waiting for a decision:

- ``phase``: ``"play"`` at the start of a turn; ``"target"`` (Zeus, Aphrodite), ``"choose"`` (Artemis a number,
  Demeter a color, Poseidon a god, Apollo an attribute), ``"discard"``, ``"give"`` (Hera), ``"over"``;
- ``power``: the god whose power is resolving (for Hermes: the power it copies);
- ``chosen``: in ``"discard"`` after a choice, ``{"number": 3}``, ``{"color": "Fire"}`` or ``{"god": "Hera"}``;
- ``left``: discards left (``"discard"``), or Hera's penalty cards left to deal (``"give"``);
- ``winner``: the seat that won, when the game is over;
- ``plies``: decisions made so far (the ply cap counts them; default 0);
- ``truncated``: when the game is over, whether it ended at the ply cap (a capped game has no ``winner``, under
  either cap rule).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shedders.engine import omg as O
from shedders.envs.scenario import build_checked, card_list, flag, seat, small_int, unknown_key
from shedders.rules.omg import COLORS, GODS


def parse(rules, sc: dict) -> O.OmgState:
    """Scenario ``sc`` as a one-game engine state, checked completely; ``ValueError`` names what is wrong. Nothing
    else is written: ``shedders.scenario.commit`` copies it into a game."""
    deck = rules.deck
    t = build_checked(_build, O.alloc_state(1, rules.num_players, deck.num_types, deck.num_cards), rules, sc)
    if t.phase[0] != O.PH_OVER:
        mask = np.zeros(int(O.action_layout(deck.num_types)["n_actions"]), np.int8)
        ids = np.zeros(len(mask), np.int16)
        if O.legal_mask_nb(t, 0, rules.to_params(), deck.table(), O.layout_array(deck.num_types), mask, ids) == 0:
            raise ValueError(f"scenario leaves current_player {int(t.turn[0])} with no legal action in phase "
                             f"{O.PHASE_NAMES[t.phase[0]]!r}")
    return t


#: every key an omg scenario may hold (``state_dict()`` writes these); any other is refused, naming it
SCENARIO_KEYS = ("ruleset", "current_player", "phase", "players", "pile", "deck", "revealed", "placing", "plies",
                 "power", "left", "chosen", "winner", "truncated")


def _cards(s: O.OmgState, g: int, rules, sc: dict) -> tuple[list, dict, list]:
    """The seats' hands and lost turns, the pile and the deck written into row ``g``, no card more often than the
    deck holds it; returns the players, the card index by name and the deck's cards (its top first)."""
    deck = rules.deck
    names = deck.names()
    index = {name: t for t, name in enumerate(names)}
    n = rules.num_players
    used = np.zeros(deck.num_types, np.int64)

    def card(x: Any, where: str) -> int:
        if not isinstance(x, str) or x not in index:
            raise ValueError(f"unknown card {x!r} in {where}; cards look like {names[0]!r} (see the deck file)")
        used[index[x]] += 1
        return index[x]

    players = sc.get("players", [])
    if not isinstance(players, list) or len(players) != n:
        raise ValueError(f"players must list {n} seats, got "
                         f"{len(players) if isinstance(players, list) else players!r}")
    for q, pl in enumerate(players):
        if not isinstance(pl, dict):
            raise ValueError(f"players[{q}] must be a dict, got {pl!r}")
        unknown = set(pl) - {"hand", "finished", "skip_next"}
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)} for player {q}; allowed: hand, finished, skip_next")
        for c in card_list(pl.get("hand", []), f"players[{q}].hand"):
            s.hand[g, q, card(c, f"player {q}'s hand")] += 1
        s.hsize[g, q] = int(s.hand[g, q].sum())
        s.skip[g, q] = 1 if flag(pl.get("skip_next", False), f"players[{q}].skip_next") else 0
    pile = [card(c, "pile") for c in card_list(sc.get("pile", []), "pile")]
    if not pile:
        raise ValueError("the pile needs at least its top card")
    dk = [card(c, "deck") for c in card_list(sc.get("deck", []), "deck")]
    over = np.flatnonzero(used > np.asarray(deck.count))
    if len(over):
        t = int(over[0])
        raise ValueError(f"{int(used[t])} copies of {names[t]!r} in the scenario; the deck holds {deck.count[t]}")
    s.pile_len[g] = len(pile)
    s.pile[g, : len(pile)] = pile
    s.deck_len[g] = len(dk)
    s.deck[g, : len(dk)] = dk[::-1]  # the next card is the deck's top
    return players, index, dk


def _game_over(s: O.OmgState, g: int, sc: dict, placing: list, n: int) -> None:
    """A finished game: won by ``winner`` (terminated), or at the ply cap with no winner (truncated)."""
    winner = sc.get("winner", placing[0] if placing else None)
    capped = flag(sc.get("truncated", winner is None), "truncated")  # at the cap
    if capped and winner is not None:
        raise ValueError("a game over at the ply cap has no 'winner' (in omg, under either cap rule)")
    if winner is not None:
        s.winner[g] = seat(winner, n, "winner")
    s.truncated[g] = capped
    s.terminated[g] = not capped
    if not capped and winner is None:
        raise ValueError("a game over that was not truncated has a 'winner'")
    s.turn[g] = 0


def _pending_power(s: O.OmgState, g: int, sc: dict, ph: int, phase: str, power) -> None:
    """A power waiting for its player's decision: which god, and what it still needs (a target, a choice, the
    discards or Hera's cards left)."""
    if not isinstance(power, str) or power not in GODS:
        raise ValueError(f"phase {phase!r} needs 'power', one of {', '.join(GODS)}; got {power!r}")
    god = GODS.index(power)
    s.power[g] = god
    left = sc.get("left", 0)
    if ph == O.PH_TARGET:
        if god not in (O.ZEUS, O.APHRODITE):
            raise ValueError(f"phase 'target' is for Zeus or Aphrodite, not {power}")
    elif ph == O.PH_GIVE:
        if god != O.HERA:
            raise ValueError("phase 'give' is Hera's, with 'left' >= 1 penalty cards to deal")
        s.left[g] = small_int(left, 1, 127, "left (Hera's penalty cards left to deal)")
    elif ph == O.PH_CHOOSE:
        kinds = {O.ARTEMIS: O.F_NUMBER, O.DEMETER: O.F_COLOR, O.POSEIDON: O.F_GOD, O.APOLLO: O.F_ATTR}
        if god not in kinds:
            raise ValueError(f"phase 'choose' is for Artemis, Demeter, Poseidon or Apollo, not {power}")
        if god == O.APOLLO and s.revealed[g] < 0:
            raise ValueError("Apollo's 'choose' needs the revealed card ('revealed')")
        s.fkind[g] = kinds[god]
    elif ph == O.PH_DISCARD:
        if god not in (O.ATHENA, O.HEPHAESTUS, O.ARTEMIS, O.DEMETER, O.POSEIDON, O.APOLLO):
            raise ValueError(f"phase 'discard' is for a discarding power, not {power}")
        s.left[g] = small_int(left, 1, 127, "left (discards left)")
        chosen = sc.get("chosen")
        if god in (O.ATHENA, O.HEPHAESTUS):
            if chosen:
                raise ValueError(f"{power} discards any card: no 'chosen'")
        else:
            if not isinstance(chosen, dict) or len(chosen) != 1:
                raise ValueError("'chosen' must be one of {'number': 3}, {'color': 'Fire'}, {'god': 'Hera'}")
            (key, val), = chosen.items()
            if key == "number" and isinstance(val, int) and not isinstance(val, bool) and 1 <= val <= O.MAXN:
                s.fkind[g], s.fval[g] = O.F_NUMBER, val
            elif key == "color" and isinstance(val, str) and val in COLORS:
                s.fkind[g], s.fval[g] = O.F_COLOR, COLORS.index(val)
            elif key == "god" and isinstance(val, str) and val in GODS:
                s.fkind[g], s.fval[g] = O.F_GOD, GODS.index(val)
            else:
                raise ValueError(f"bad 'chosen' {chosen!r}")
            s.upto[g] = 1


def _build(s: O.OmgState, g: int, rules, sc: dict) -> None:
    """Check scenario ``sc`` and write it into row ``g`` of the scratch state ``s``."""
    if not isinstance(sc, dict):
        raise ValueError(f"a scenario is a dict, got {type(sc).__name__}")
    unknown_key(sc, SCENARIO_KEYS)
    if sc.get("ruleset", rules.name) != rules.name:
        raise ValueError(f"scenario ruleset {sc.get('ruleset')!r} does not match this env ({rules.name!r})")
    players, index, dk = _cards(s, g, rules, sc)
    n = rules.num_players
    phase = sc.get("phase", "play")
    if not isinstance(phase, str) or phase not in O.PHASE_NAMES:
        raise ValueError(f"unknown phase {phase!r}; allowed: {', '.join(O.PHASE_NAMES)}")
    ph = O.PHASE_NAMES.index(phase)
    s.phase[g] = ph
    s.power[g] = -1
    s.fkind[g] = O.F_NONE
    s.fval[g] = 0
    s.left[g] = 0
    s.upto[g] = 0
    s.revealed[g] = -1
    s.winner[g] = -1
    s.terminated[g] = False
    s.truncated[g] = False
    s.plies[g] = small_int(sc.get("plies", 0), 0, rules.ply_cap - 1, "plies")
    s.rewards[g] = 0.0
    revealed = sc.get("revealed")
    if revealed is not None:
        if not isinstance(revealed, str) or revealed not in index or not dk or index[revealed] != dk[0]:
            raise ValueError(f"revealed must be the deck's top card (the first of 'deck'), got {revealed!r}")
        s.revealed[g] = index[revealed]
    finished = [q for q, pl in enumerate(players) if flag(pl.get("finished", False), f"players[{q}].finished")]
    placing = sc.get("placing", finished)
    if not isinstance(placing, (list, tuple)):
        raise ValueError(f"placing must be a list of seats, got {placing!r}")
    placing = list(placing)
    if ph == O.PH_OVER:
        _game_over(s, g, sc, placing, n)
        return
    if finished or placing:
        raise ValueError("in omg the first player out wins and the game ends: a live game has no finished player")
    p = s.turn[g] = seat(sc.get("current_player", 0), n, "current_player")
    power = sc.get("power")
    for q in range(n):  # seed 001: "The winner of the game is the player who gets to empty his hand first!"
        if q != p and s.hsize[g, q] == 0:
            raise ValueError(f"players[{q}] has an empty hand: in omg that player has already won (only the "
                             f"player to act may have emptied it, during its own turn)")
    if s.hsize[g, p] == 0 and ph in (O.PH_PLAY, O.PH_CHOOSE, O.PH_DISCARD):
        raise ValueError(f"current_player {p} has an empty hand in phase {phase!r}: in omg a player whose hand "
                         f"empties wins at the end of that turn, and a choice or discard needs cards")
    if ph == O.PH_PLAY:
        if power is not None:
            raise ValueError("'power' is for a power waiting for a decision, not the 'play' phase")
        return
    _pending_power(s, g, sc, ph, phase, power)


def to_dict(s: O.OmgState, g: int, rules) -> dict:
    names = rules.deck.names()
    n = rules.num_players
    over = s.phase[g] == O.PH_OVER

    def cards_of(q):
        return [names[t] for t in range(len(names)) for _ in range(int(s.hand[g, q, t]))]

    winner = int(s.winner[g]) if s.winner[g] >= 0 else None
    d = {
        "ruleset": "omg",
        "current_player": None if over else int(s.turn[g]),
        "phase": O.PHASE_NAMES[s.phase[g]],
        "players": [{"hand": cards_of(q), "finished": winner == q, "skip_next": bool(s.skip[g, q])}
                    for q in range(n)],
        "pile": [names[t] for t in s.pile[g, : s.pile_len[g]]],
        "deck": [names[t] for t in s.deck[g, : s.deck_len[g]][::-1]],
        "revealed": names[s.revealed[g]] if s.revealed[g] >= 0 else None,
        "placing": [winner] if winner is not None else [],
        "plies": int(s.plies[g]),
    }
    if s.power[g] >= 0 and not over and s.phase[g] != O.PH_PLAY:
        d["power"] = GODS[s.power[g]]
        if s.phase[g] in (O.PH_DISCARD, O.PH_GIVE):
            d["left"] = int(s.left[g])
        if s.phase[g] == O.PH_DISCARD and s.fkind[g] != O.F_NONE:
            k = s.fkind[g]
            d["chosen"] = ({"number": int(s.fval[g])} if k == O.F_NUMBER else
                           {"color": COLORS[s.fval[g]]} if k == O.F_COLOR else {"god": GODS[s.fval[g]]})
    if over and winner is not None:
        d["winner"] = winner
    if over:
        d["truncated"] = bool(s.truncated[g])
    return d
