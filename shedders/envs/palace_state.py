"""Scenarios: a palace-family game state as a readable dict, and back (the README's "Scenarios").

Keys beyond the contract's (all optional when loading, always written by :func:`to_dict`):

- ``turn``: the seat whose turn it is (differs from ``current_player`` while a nomination is answered or a
  Joker window asks for counters); defaults to ``current_player``.
- ``target``: the nominated player (phase ``"answer"``) or the player a Joker punishes (``"counter"``, ``"eat"``).
- ``ask``, ``ask_left``: in a Joker window, the seat asked next and how many seats are still to be asked.
  When left out they are derived: the asking goes once round the table from ``target``.
- ``pile_by``: the seat that played each pile card, bottom to top (-1: unknown). A Joker's player decides who a
  counter punishes; a Joker of unknown player cannot be countered.
- ``plies``: decisions made so far (the ply cap counts them).
- ``players[i]["known"]``: hand cards everyone knows the player holds (picked up, not yet played).

og and fatality add (written by :func:`to_dict` for those rulesets only):

- ``sneak_rank``, ``sneak_by``: in an og sneak window, the rank that may be sneaked and the seat that played it
  (never asked); ``ask``, ``ask_left`` as for a Joker window (derived when left out).
- ``resume_player``, ``resume_phase``: og, who decides and in which phase (``"play"`` or ``"eat"``) when the
  sneak window closes; default: ``turn`` and ``"play"``.
- ``out_of_turn``: og, True while a sneaker opens a fresh pile out of turn.
- ``last_play``: the rank of the last play, as it stood for (None before the first).
- pile cards ``"JOKER:9"`` and ``"3:9"``: fatality's named Jokers and 3s standing for the top's rank.

Phases: ``"setup"`` (swapping, or og's cover pick; seats before ``current_player`` are done), ``"play"`` (a turn),
``"nominate"`` (the ace player names a victim), ``"answer"`` (the nominee answers or eats), ``"counter"`` (a
player may counter a Joker or pass), ``"eat"`` (the Joker's victim, or in og the player after a 3, must pick up),
``"sneak"`` (og: an out-of-turn offer to sneak), ``"name"`` (fatality: name a Joker flipped blind), ``"open"``
(og: the opening play of the start rank), ``"over"``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from shedders.engine import palace as K
from shedders.envs.scenario import build_checked, card_list, flag, seat, small_int, unknown_key
from shedders.rules import PalaceRules

RANK_INDEX = {name: i for i, name in enumerate(K.RANK_NAMES)}
PHASE_INDEX = {name: i for i, name in enumerate(K.PHASE_NAMES)}


def _rank(card: Any, where: str) -> int:
    if not isinstance(card, str) or card not in RANK_INDEX:
        raise ValueError(f"unknown card {card!r} in {where}; cards are {' '.join(K.RANK_NAMES)}")
    return RANK_INDEX[card]


def _counts(cards, where: str) -> np.ndarray:
    if not isinstance(cards, (list, tuple)):
        raise ValueError(f"{where} must be a list of cards, got {cards!r}")
    c = np.zeros(K.R, np.int64)
    for card in cards:
        c[_rank(card, where)] += 1
    return c


def _names(counts) -> list[str]:
    return [K.RANK_NAMES[r] for r in range(K.R) for _ in range(int(counts[r]))]


def parse(rules: PalaceRules, sc: dict) -> K.PalaceState:
    """Scenario ``sc`` as a one-game engine state, checked completely; ``ValueError`` names what is wrong. Nothing
    else is written: ``shedders.scenario.commit`` copies it into a game."""
    return build_checked(_build, K.alloc_state(1, rules.num_players, rules.num_cards), rules, sc)


#: every key a palace scenario may hold (``state_dict()`` writes these); any other is refused, naming it
SCENARIO_KEYS = ("ruleset", "current_player", "direction", "phase", "players", "pile", "pile_by", "deck",
                 "out_of_play", "placing", "plies", "turn", "target", "last_play", "out_of_turn", "sneak_rank",
                 "sneak_by", "resume_phase", "resume_player", "ask", "ask_left")


def _build(s: K.PalaceState, g: int, rules: PalaceRules, sc: dict) -> None:
    """Check scenario ``sc`` and write it into row ``g`` of the scratch state ``s``: the seats, the cards (no rank
    beyond the deck), the table (whose turn, direction, placing, plies), the phase's own conditions; then the row
    is written and the player to act must have a legal action. The first fault found is the ``ValueError``."""
    if not isinstance(sc, dict):
        raise ValueError(f"a scenario is a dict, got {type(sc).__name__}")
    unknown_key(sc, SCENARIO_KEYS)
    n = rules.num_players
    name = sc.get("ruleset", rules.name)
    if name != rules.name:
        raise ValueError(f"scenario is for ruleset {name!r}, but this env plays {rules.name!r}")
    players = sc.get("players")
    if not isinstance(players, (list, tuple)) or len(players) != n:
        raise ValueError(f"scenario needs 'players', a list of {n} seats")
    phase_name = sc.get("phase", "play")
    if not isinstance(phase_name, str) or phase_name not in PHASE_INDEX or phase_name == "over":
        allowed = [p for p in K.PHASE_NAMES if p != "over"]
        raise ValueError(f"unknown phase {phase_name!r}; allowed: {', '.join(allowed)}")
    seats = _seats(players)
    cards = _cards(sc, rules, seats)
    table = _table(sc, rules, seats, cards)
    window = _phase_rules(sc, rules, PHASE_INDEX[phase_name], phase_name, seats, cards, table)
    _write(s, g, rules, sc, PHASE_INDEX[phase_name], phase_name, seats, cards, table, window)


def _seats(players) -> SimpleNamespace:
    """Each seat's hand, face-up, face-down and known cards and whether it is out; ``total`` counts their cards."""
    out = SimpleNamespace(total=np.zeros(K.R, np.int64), hands=[], ups=[], downs=[], knowns=[], finished=[])
    for i, pl in enumerate(players):
        if not isinstance(pl, dict):
            raise ValueError(f"players[{i}] must be a dict")
        unknown = set(pl) - {"hand", "face_up", "face_down", "finished", "known"}
        if unknown:
            raise ValueError(f"players[{i}] has unknown keys {sorted(unknown)}")
        h = _counts(pl.get("hand", []), f"players[{i}].hand")
        u = _counts(pl.get("face_up", []), f"players[{i}].face_up")
        where = f"players[{i}].face_down"
        d = [_rank(c, where) for c in card_list(pl.get("face_down", []), where)]
        kn = _counts(pl.get("known", []), f"players[{i}].known")
        if len(d) > 3:
            raise ValueError(f"players[{i}].face_down holds at most 3 cards, got {len(d)}")
        if np.any(kn > h):
            raise ValueError(f"players[{i}].known must be cards of the hand")
        if h.sum() > 127 or u.sum() > 127:
            raise ValueError(f"players[{i}] holds too many cards")
        fin = flag(pl.get("finished", False), f"players[{i}].finished")
        if fin and (h.sum() or u.sum() or d):
            raise ValueError(f"players[{i}] is finished but still holds cards")
        out.total += h + u
        for r in d:
            out.total[r] += 1
        out.hands.append(h), out.ups.append(u), out.downs.append(d)
        out.knowns.append(kn), out.finished.append(fin)
    return out


def _cards(sc: dict, rules: PalaceRules, seats: SimpleNamespace) -> SimpleNamespace:
    """The pile (each card's rank and the rank it stands for, and who played it), the deck and the cards out of
    play, checked against the deck with the seats' cards."""
    pile_cards = sc.get("pile", [])
    if not isinstance(pile_cards, (list, tuple)):
        raise ValueError("pile must be a list of cards")
    pile, pile_as = [], []
    for c in pile_cards:
        if isinstance(c, str) and ":" in c:
            real, named = c.split(":", 1)
            r, a = _rank(real, "pile"), _rank(named, "pile")
            if rules.family != K.FAM_FAT or r not in (K.R3, K.RJOKER) or a == K.RJOKER:
                raise ValueError(f"pile card {c!r}: only fatality's JOKER or 3 may stand for a rank 2..A")
        else:
            r = a = _rank(c, "pile")
        pile.append(r)
        pile_as.append(a)
    deck = [_rank(c, "deck") for c in card_list(sc.get("deck", []), "deck")]
    out = _counts(sc.get("out_of_play", []), "out_of_play")
    total = seats.total.copy()
    for r in pile + deck:
        total[r] += 1
    total += out
    limit = rules.deck_counts()
    if np.any(total > limit):
        bad = [K.RANK_NAMES[r] for r in range(K.R) if total[r] > limit[r]]
        raise ValueError(
            f"scenario holds more cards of rank {', '.join(bad)} than the {rules.name} deck "
            f"({', '.join(f'{K.RANK_NAMES[r]}: {limit[r]}' for r in range(K.R) if total[r] > limit[r])})"
        )
    n = rules.num_players
    pile_by = sc.get("pile_by", [-1] * len(pile))
    if (not isinstance(pile_by, (list, tuple)) or len(pile_by) != len(pile)
            or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) and -1 <= b < n
                       for b in pile_by)):
        raise ValueError(f"pile_by must list a seat (or -1) for each of the {len(pile)} pile cards")
    return SimpleNamespace(pile=pile, pile_as=pile_as, pile_by=pile_by, deck=deck, out=out)


def _table(sc: dict, rules: PalaceRules, seats: SimpleNamespace, cards: SimpleNamespace) -> SimpleNamespace:
    """Who is in and who acts: at least two players in, the direction, the player to act, whose turn it is, the
    target, the finishing order so far and the decisions played."""
    n, finished = rules.num_players, seats.finished
    if sum(not f for f in finished) < 2:
        raise ValueError("a scenario needs at least two players still in the game")
    if cards.deck:
        # seed 003 "Draw back to 3 while the deck lasts"; seed 000 "Any time you have less than three cards in your
        # hand, you must immediately draw"; seed 002 "at least 3 cards in hand at the end of your turn". A short
        # hand is a convenient scenario (it draws after its next play), but an empty one could never play: while
        # the deck lasts its player may only use the hand.
        empty = [i for i in range(n) if not finished[i] and seats.hands[i].sum() == 0]
        if empty:
            raise ValueError(f"players[{empty[0]}].hand is empty while the deck holds {len(cards.deck)} cards: a "
                             f"player still in draws back to 3 while the deck lasts")
    direction = sc.get("direction", 1)
    if isinstance(direction, bool) or direction not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, got {direction!r}")
    cur = seat(sc.get("current_player", 0), n, "current_player")
    if finished[cur]:
        raise ValueError(f"current_player {cur} has already gone out")
    turn = seat(sc.get("turn", cur), n, "turn")
    target = seat(sc.get("target"), n, "target", allow_none=True)
    placing = sc.get("placing")
    if placing is None:
        placing = [i for i in range(n) if finished[i]]
    if (not isinstance(placing, (list, tuple))
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in placing)
            or sorted(placing) != [i for i in range(n) if finished[i]]):
        raise ValueError("placing must list exactly the finished seats")
    plies = sc.get("plies", 0)
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 0 <= plies < rules.ply_cap:
        raise ValueError(f"plies must be in 0..{rules.ply_cap - 1}, got {plies!r}")
    return SimpleNamespace(direction=direction, cur=cur, turn=turn, target=target, placing=placing, plies=plies)


def _phase_rules(sc: dict, rules: PalaceRules, phase: int, phase_name: str, seats: SimpleNamespace,
                 cards: SimpleNamespace, table: SimpleNamespace) -> SimpleNamespace:
    """The phase's own conditions (an impossible phase is refused) and its window: the sneak offer, the player to
    resume, the last play's rank; ``table.target`` is completed for the phases whose player is the target."""
    n, cur, turn, finished = rules.num_players, table.cur, table.turn, seats.finished
    og, fat = rules.family == K.FAM_OG, rules.family == K.FAM_FAT
    pile = cards.pile
    top_joker = bool(pile) and cards.pile_as[-1] == K.RJOKER
    if phase == K.PH_SETUP and not rules.swap_phase and not og:
        raise ValueError("phase 'setup' needs the swap phase (rule swap_phase)")
    if phase in (K.PH_SNEAK, K.PH_OPEN) and not og:
        raise ValueError(f"phase {phase_name!r} is og's only")
    if phase == K.PH_NAME and not (fat and top_joker):
        raise ValueError("phase 'name' is fatality's, with an unnamed JOKER on top of the pile")
    win_rank = win_by = -1
    if phase == K.PH_SNEAK:
        win_rank = _rank(sc.get("sneak_rank"), "sneak_rank")
        win_by = seat(sc.get("sneak_by"), n, "sneak_by")
        if win_by == cur:
            raise ValueError("sneak_by never sneaks on its own play")
        if seats.hands[cur][win_rank] == 0:
            raise ValueError(f"phase 'sneak': player {cur} holds no {K.RANK_NAMES[win_rank]} to sneak")
    if "resume_player" not in sc:
        resume = turn
    elif sc["resume_player"] is None:  # as state_dict() writes it when no sneak window is open: unset
        resume = -1
    else:
        resume = seat(sc["resume_player"], n, "resume_player")
    if phase == K.PH_SNEAK and (resume < 0 or finished[resume]):
        raise ValueError(f"phase 'sneak' needs 'resume_player', a seat still in the game who decides when the "
                         f"window closes; got {sc.get('resume_player')!r}")
    resume_phase = sc.get("resume_phase", "play")
    if not isinstance(resume_phase, str) or resume_phase not in ("play", "eat"):
        raise ValueError(f"resume_phase must be 'play' or 'eat', got {resume_phase!r}")
    if phase == K.PH_SETUP and og:
        _og_setup(seats, cur, n)
    last_play = sc.get("last_play")
    last_rank = -1 if last_play is None else _rank(last_play, "last_play")
    if phase in (K.PH_NOMINATE, K.PH_ANSWER) and not rules.nominate_a:
        raise ValueError(f"phase {phase_name!r} needs the nominate_a rule")
    if phase in (K.PH_NOMINATE, K.PH_ANSWER) and not (pile and pile[-1] == K.RA):
        raise ValueError(f"phase {phase_name!r} needs an ace on top of the pile")
    if phase == K.PH_COUNTER and not top_joker or phase == K.PH_EAT and not (top_joker or og):
        raise ValueError(f"phase {phase_name!r} needs a Joker on top of the pile")
    if phase == K.PH_PLAY and top_joker:
        raise ValueError("a Joker on top of the pile opens a window: use phase 'counter' or 'eat'")
    if phase in (K.PH_ANSWER, K.PH_EAT):
        if table.target < 0 and not (og and phase == K.PH_EAT and "target" in sc):  # og's eat after a 3: none
            table.target = cur
        if table.target >= 0 and table.target != cur:
            raise ValueError(f"in phase {phase_name!r} current_player must be the target")
    if phase == K.PH_COUNTER and (table.target < 0 or finished[table.target]):
        raise ValueError("phase 'counter' needs 'target', the seat the Joker punishes, still in the game")
    return SimpleNamespace(win_rank=win_rank, win_by=win_by, resume=resume, resume_phase=resume_phase,
                           last_rank=last_rank)


def _og_setup(seats: SimpleNamespace, cur: int, n: int) -> None:
    """seed 000 "Each player must choose three covers": seats before current_player have their three, the others
    pick theirs from the hand one at a time, and setup ends only when every seat has three."""
    for i in range(n):
        ups_i = int(seats.ups[i].sum())
        if seats.finished[i]:
            raise ValueError(f"og setup: players[{i}] cannot have gone out before play starts")
        if i < cur and ups_i != 3:
            raise ValueError(f"og setup: players[{i}] (before current_player) must have its 3 covers face up")
        if i >= cur and (ups_i >= 3 or ups_i + int(seats.hands[i].sum()) < 3):
            raise ValueError(f"og setup: players[{i}] must still need covers and hold enough cards for 3 "
                             f"(face_up {ups_i}, hand {int(seats.hands[i].sum())})")


def _write(s: K.PalaceState, g: int, rules: PalaceRules, sc: dict, phase: int, phase_name: str,
           seats: SimpleNamespace, cards: SimpleNamespace, table: SimpleNamespace,
           window: SimpleNamespace) -> None:
    """Write the checked scenario into row ``g``, open its window (who is asked next), and refuse it when the
    player to act has no legal action."""
    n, cur, target, direction = rules.num_players, table.cur, table.target, table.direction
    pile = cards.pile
    K.clear_game_nb(s, g, rules.to_params())
    for i in range(n):
        s.hand[g, i] = seats.hands[i]
        s.face_up[g, i] = seats.ups[i]
        s.known[g, i] = seats.knowns[i]
        for j, r in enumerate(seats.downs[i]):
            s.face_down[g, i, j] = r
        s.finished[g, i] = seats.finished[i]
    for j, q in enumerate(table.placing):
        s.placing[g, j] = q
    s.n_out[g] = len(table.placing)
    s.pile[g, : len(pile)] = pile
    s.pile_as[g, : len(pile)] = cards.pile_as
    s.pile_by[g, : len(pile)] = cards.pile_by
    s.pile_len[g] = len(pile)
    s.deck[g, : len(cards.deck)] = cards.deck[::-1]  # the next card is drawn from the end
    s.deck_len[g] = len(cards.deck)
    s.out[g] = cards.out
    s.phase[g] = phase
    s.actor[g] = cur
    s.turn[g] = table.turn
    s.direction[g] = direction
    s.target[g] = target
    s.plies[g] = table.plies
    s.win_rank[g] = window.win_rank
    s.win_by[g] = window.win_by
    s.resume[g] = window.resume
    s.resume_phase[g] = PHASE_INDEX[window.resume_phase]
    s.oot[g] = flag(sc.get("out_of_turn", False), "out_of_turn")
    s.last_rank[g] = window.last_rank
    if phase in (K.PH_SNEAK, K.PH_COUNTER):
        if "ask" in sc or "ask_left" in sc:
            s.ask[g] = seat(sc.get("ask"), n, "ask")
            s.ask_left[g] = small_int(sc.get("ask_left", 0), 0, n - 1, "ask_left")
        elif phase == K.PH_SNEAK:  # the window goes once round from the left of sneak_by; cur was asked just now
            j = (cur - window.win_by) % n
            s.ask[g] = (cur + 1) % n
            s.ask_left[g] = n - 1 - j
        else:  # the asking goes once round the table from the target; cur was asked just now
            j = ((cur - target) * direction) % n
            s.ask[g] = (cur + direction) % n
            s.ask_left[g] = n - j - 1
    mask = np.zeros(K.N_ACTIONS, np.int8)
    if K.legal_mask_nb(s, g, rules.to_params(), mask, np.zeros(K.N_ACTIONS, np.int16)) == 0:
        raise ValueError(f"scenario leaves current_player {cur} with no legal action in phase {phase_name!r}")
    if phase == K.PH_COUNTER and not K.can_counter_nb(s, g, cur):
        raise ValueError(f"phase 'counter': player {cur} holds no Joker to counter with")


def to_dict(s: K.PalaceState, g: int, rules: PalaceRules) -> dict:
    """Row ``g`` of ``s`` as a scenario dict; ``commit(s, g, parse(rules, it))`` continues the game exactly."""
    n = rules.num_players
    phase = K.PHASE_NAMES[s.phase[g]]
    players = []
    for i in range(n):
        players.append(
            {
                "hand": _names(s.hand[g, i]),
                "face_up": _names(s.face_up[g, i]),
                "face_down": [K.RANK_NAMES[r] for r in s.face_down[g, i] if r >= 0],
                "finished": bool(s.finished[g, i]),
                "known": _names(s.known[g, i]),
            }
        )
    over = phase == "over"
    d = {
        "ruleset": rules.name,
        "current_player": None if over else int(s.actor[g]),
        "turn": None if over else int(s.turn[g]),
        "direction": int(s.direction[g]),
        "phase": phase,
        "players": players,
        "pile": [_pile_name(r, a) for r, a in zip(s.pile[g, : s.pile_len[g]], s.pile_as[g, : s.pile_len[g]])],
        "pile_by": [int(b) for b in s.pile_by[g, : s.pile_len[g]]],
        "deck": [K.RANK_NAMES[r] for r in s.deck[g, : s.deck_len[g]][::-1]],
        "out_of_play": _names(s.out[g]),
        "placing": [int(p) for p in s.placing[g, : s.n_out[g]]],
        "target": None if s.target[g] < 0 else int(s.target[g]),
        "plies": int(s.plies[g]),
    }
    if phase in ("counter", "sneak"):
        d["ask"] = int(s.ask[g])
        d["ask_left"] = int(s.ask_left[g])
    d["last_play"] = None if s.last_rank[g] < 0 else K.RANK_NAMES[s.last_rank[g]]
    if rules.family == K.FAM_OG:
        d["sneak_rank"] = None if s.win_rank[g] < 0 else K.RANK_NAMES[s.win_rank[g]]
        d["sneak_by"] = None if s.win_by[g] < 0 else int(s.win_by[g])
        d["resume_player"] = None if over or s.resume[g] < 0 else int(s.resume[g])
        d["resume_phase"] = K.PHASE_NAMES[s.resume_phase[g]]
        d["out_of_turn"] = bool(s.oot[g])
    return d


def _pile_name(r: int, a: int) -> str:
    return K.RANK_NAMES[r] if r == a else f"{K.RANK_NAMES[r]}:{K.RANK_NAMES[a]}"
