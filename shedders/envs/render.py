"""Text rendering: the table as one player sees it (never a hidden card)."""

from __future__ import annotations

import numpy as np

from shedders.engine import omg as O
from shedders.engine import palace as K
from shedders.engine.palace.deal import open_rank_nb
from shedders.envs.actions import ACTION_NAMES, omg_action_names
from shedders.rules.omg import COLORS, GODS


def _cards(counts) -> str:
    cards = [K.RANK_NAMES[r] for r in range(K.R) for _ in range(int(counts[r]))]
    return " ".join(cards) if cards else "-"


def palace_constraint(s, rules, params, g: int = 0) -> str:
    """What the pile asks of the player deciding now, in words: "play 9 or higher (or a wild)", "anything goes",
    or, in the phases where the pile does not decide, what the decision is (an og 3 or a Joker: pick up)."""
    phase = s.phase[g]
    if phase == K.PH_OVER:
        return "the game is over"
    if phase == K.PH_SETUP:
        if rules.family == K.FAM_OG:
            return "setup: choose your covers (face-up cards)"
        return "setup: swap cards between your hand and your face-up cards, then ready"
    if phase == K.PH_EAT:
        why = "a 3 was played" if rules.family == K.FAM_OG else "the Joker punishes you"
        return f"pick up the pile ({why})"
    if phase == K.PH_NOMINATE:
        return "an ace: nominate a player, who must answer it"
    if phase == K.PH_ANSWER:
        return "you are nominated: answer with a 2, 5, A or Joker, or pick up the pile"
    if phase == K.PH_COUNTER:
        return "a Joker punishes a player: counter it with your own Joker, or pass"
    if phase == K.PH_SNEAK:
        return f"not your turn: you may sneak {K.RANK_NAMES[s.win_rank[g]]} onto the pile, or pass"
    if phase == K.PH_NAME:
        return "you flipped a Joker blind: name the rank it stands for"
    if phase == K.PH_OPEN:
        return f"open the game: play one or more {K.RANK_NAMES[open_rank_nb(s, g, params)]}s"
    rule, top = K.pile_state_nb(s, g, params)
    if rule == K.RULE_ANY:
        return "anything goes"
    if rule == K.RULE_LT7:
        return "play under 7 (or a wild)"
    if rule == K.RULE_LE7:
        return "play 7 or lower (or a wild)"
    return f"play {K.RANK_NAMES[top]} or higher (or a wild)"


def render_palace(s, rules, params, seat: int | None = None, last_loser: int | None = None) -> str:
    """Render game 0 of state ``s`` from ``seat``'s point of view; default: the player deciding now.

    Shows the viewer's hand, every face-up card, face-down counts, hand sizes and the cards each opponent is
    publicly known to hold, the pile with its effective top and constraint, the draw pile size and what left play.
    With the ``shithead_shaming`` prison rule on (house; seed 003's "Shithead shaming"), the last game's loser is
    named "Shithead" and so is this game's; otherwise the last player is only "last".
    """
    g = 0
    n = rules.num_players
    over = s.phase[g] == K.PH_OVER
    if seat is None:
        seat = 0 if over else int(s.actor[g])
    shithead = last_loser if rules.shithead_shaming else None
    _rule, _top = K.pile_state_nb(s, g, params)
    lines = []
    phase = K.PHASE_NAMES[s.phase[g]]
    arrow = "clockwise" if s.direction[g] == 1 else "counter-clockwise"
    lines.append(f"== shedders {rules.name}: {phase}, ply {s.plies[g]}, {arrow} ==")
    pile = [
        K.RANK_NAMES[r] if r == a else f"{K.RANK_NAMES[r]}:{K.RANK_NAMES[a]}"
        for r, a in zip(s.pile[g, : s.pile_len[g]], s.pile_as[g, : s.pile_len[g]])
    ]
    constraint = palace_constraint(s, rules, params)
    shown = " ".join(pile[-8:]) if pile else "empty"
    if len(pile) > 8:
        shown = "... " + shown
    lines.append(f"pile ({len(pile)}): {shown}  -> {constraint}")
    lines.append(f"draw pile: {s.deck_len[g]}   out of play: {int(s.out[g].sum())}")
    setup = s.phase[g] == K.PH_SETUP
    for q in range(n):
        name = f"player_{q}"
        if shithead == q:
            name += ' "Shithead"'
        tags = []
        if q == seat:
            tags.append("you")
        if not over and s.actor[g] == q:
            tags.append("to act")
        if s.finished[g, q]:
            place = list(s.placing[g, : s.n_out[g]]).index(q) + 1
            tags.append(f"out #{place}")
        tag = f" ({', '.join(tags)})" if tags else ""
        if q == seat:
            hand = _cards(s.hand[g, q])
        else:
            known = _cards(s.known[g, q]) if s.known[g, q].sum() else "nothing"
            hand = f"{int(s.hand[g, q].sum())} cards, known: {known}"
        up = _cards(s.face_up[g, q]) if (q == seat or not setup) else "(hidden during setup)"
        down = K.down_count_nb(s, g, q)
        lines.append(f"  {name}{tag}: hand [{hand}]  face-up [{up}]  face-down {down}")
    if s.phase[g] == K.PH_SNEAK:
        lines.append(
            f"sneak window: player_{s.actor[g]} may sneak {K.RANK_NAMES[s.win_rank[g]]} "
            f"(played by player_{s.win_by[g]}); it is player_{s.turn[g]}'s turn"
        )
    elif s.oot[g] and not over:
        lines.append(f"player_{s.actor[g]} opens a fresh pile out of turn; then it is player_{s.turn[g]}'s turn")
    if s.target[g] >= 0 and not over:
        what = "nominated" if s.phase[g] == K.PH_ANSWER else "punished by the Joker"
        lines.append(f"player_{s.target[g]} is {what}")
    if over:
        placing = [int(p) for p in s.placing[g, : s.n_out[g]]]
        if s.truncated[g]:
            lines.append(f"truncated at the ply cap; out so far: {placing}")
        else:
            if rules.family == K.FAM_OG:
                lines.append(f"game over; player_{placing[0]} wins")
            else:
                left = [q for q in range(n) if not s.finished[g, q]]
                last = "Shithead" if rules.shithead_shaming else "last"
                lines.append(f"game over; out in order: {placing}; {last}: player_{left[0] if left else None}")
    elif s.actor[g] == seat:
        mask = np.zeros(K.N_ACTIONS, np.int8)
        K.legal_mask_nb(s, g, params, mask, np.zeros(K.N_ACTIONS, np.int16))
        lines.append("legal: " + ", ".join(ACTION_NAMES[a] for a in np.flatnonzero(mask)))
    return "\n".join(lines)


def omg_constraint(s, rules, g: int = 0) -> str:
    """What the pile's top asks, in words: "match Zeus Fire 2 by number or god" (any card may be played; one that
    does not match costs a penalty)."""
    if s.phase[g] == O.PH_OVER:
        return "the game is over"
    return f"match {rules.deck.names()[s.pile[g, s.pile_len[g] - 1]]} by number or god (or take a penalty)"


def render_omg(s, rules, params, cards, lay, seat: int | None = None) -> str:
    """Render omg game 0 from ``seat``'s view (default: the player deciding now): own hand, hand sizes, the pile's
    top and the powered cards below it, deck size, Apollo's revealed card, lost turns, the pending choice."""
    g = 0
    n = rules.num_players
    names = rules.deck.names()
    over = s.phase[g] == O.PH_OVER
    if seat is None:
        seat = 0 if over else int(s.turn[g])
    lines = [f"== shedders omg: {O.PHASE_NAMES[s.phase[g]]}, ply {s.plies[g]} =="]
    pile = [names[t] for t in s.pile[g, : s.pile_len[g]]]
    shown = ", ".join(pile[-4:])
    if len(pile) > 4:
        shown = "..., " + shown
    lines.append(f"pile ({len(pile)}): {shown}  <- {omg_constraint(s, rules)}")
    h = O.hermes_copy_nb(s, g, cards)
    extra = f"; a Hermes would copy {GODS[h]}" if h >= 0 else "; a Hermes would copy nothing"
    lines.append(f"deck: {s.deck_len[g]}{extra}")
    if s.revealed[g] >= 0:
        lines.append(f"revealed by Apollo (the deck's top): {names[s.revealed[g]]}")
    for q in range(n):
        tags = []
        if q == seat:
            tags.append("you")
        if not over and s.turn[g] == q:
            tags.append("to act")
        if s.skip[g, q]:
            tags.append("loses the next turn")
        if s.winner[g] == q:
            tags.append("winner")
        tag = f" ({', '.join(tags)})" if tags else ""
        if q == seat:
            hand = ", ".join(names[t] for t in range(len(names)) for _ in range(int(s.hand[g, q, t]))) or "-"
            lines.append(f"  player_{q}{tag}: {s.hsize[g, q]} cards: {hand}")
        else:
            lines.append(f"  player_{q}{tag}: {s.hsize[g, q]} cards")
    if not over and s.phase[g] != O.PH_PLAY:
        what = {O.PH_TARGET: "choose a player", O.PH_CHOOSE: "choose what to discard", O.PH_GIVE:
                f"deal {s.left[g]} penalty card(s), one at a time", O.PH_DISCARD: f"discard ({s.left[g]} left)"}
        power = GODS[s.power[g]] if s.power[g] >= 0 else "?"
        detail = ""
        if s.phase[g] == O.PH_DISCARD and s.fkind[g] != O.F_NONE:
            k, v = s.fkind[g], s.fval[g]
            detail = " matching " + (f"number {v}" if k == O.F_NUMBER else f"color {COLORS[v]}" if k == O.F_COLOR
                                     else f"god {GODS[v]}")
        lines.append(f"{power}'s power: {what.get(int(s.phase[g]), '')}{detail}")
    if over:
        lines.append("truncated at the ply cap" if s.truncated[g] else f"game over; player_{s.winner[g]} wins")
    elif s.turn[g] == seat:
        mask = np.zeros(int(O.action_layout(len(names))["n_actions"]), np.int8)
        ids = np.zeros(mask.shape[0], np.int16)
        O.legal_mask_nb(s, g, params, cards, lay, mask, ids)
        an = omg_action_names(rules)
        lines.append("legal: " + ", ".join(an[a] for a in np.flatnonzero(mask)))
    return "\n".join(lines)
