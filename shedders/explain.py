"""Plain-language explanations of a game, from one seat's point of view: what a move was and what followed.

    view = table_view(env, viewer=0)            # the table as player_0 may see it (a JSON-ready dict)
    before = env.state_dict(); env.step(a); after = env.state_dict()
    explain_step(env.rules, before, after, actor, env.action_names[a], viewer=0)
    # ['player_2 plays two 10s', 'the pile burns (6 cards leave play)', 'player_2 plays again']

Both the terminal game (``shedders play``) and the web app (``shedders serve``) tell the game with these sentences.

What a seat may not know never appears. :func:`explain_step` takes the whole states but first reduces each to the
viewer's :func:`view` (its own hand, every face-up, pile and out-of-play card, the cards known from pickups, and of
everything else only counts) and explains the difference of the two views; nothing else is read. Moves the table
does not see are not told to other seats (:func:`is_public`): setup swaps and covers, and a ``pass`` on a sneak
offer or a Joker counter (only holders of the card are asked, so naming the one asked would give a hand away).
``viewer=None`` is the spectator who sees every card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from shedders.rules.omg import COLORS, GODS
from shedders.rules.registry import lookup

NUMBER_WORDS = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
PRIVATE_WINDOWS = ("sneak", "counter")  # decisions only holders of a card are asked for


# --------------------------------------------------------------------------------------------------------------
# views: what one seat may see
# --------------------------------------------------------------------------------------------------------------
def view(rules, state: dict, viewer: int | None) -> dict:
    """The table in ``state`` (a ``state_dict()``) as seat ``viewer`` may see it; ``viewer=None``: every card.

    Hidden cards are replaced by counts: other hands (but for the cards known from pickups), every face-down card
    (its owner does not see it either), the draw pile, and other seats' face-up cards during setup."""
    return _explainer(rules).view(rules, state, viewer)


def _palace_view(rules, state: dict, viewer: int | None) -> dict:
    setup = state["phase"] == "setup"
    players = []
    for q, p in enumerate(state["players"]):
        sees = viewer is None or viewer == q
        players.append({
            "seat": q,
            "hand": list(p["hand"]) if sees else None,
            "hand_count": len(p["hand"]),
            "known": list(p["known"]),
            "face_up": list(p["face_up"]) if (sees or not setup) else None,
            "face_up_count": len(p["face_up"]),
            "face_down": list(p["face_down"]) if viewer is None else None,
            "face_down_count": len(p["face_down"]),
            "finished": p["finished"],
        })
    actor = state["current_player"]
    # who is asked in a sneak or counter window is private (only holders are asked); that the window is open is not
    private = state["phase"] in PRIVATE_WINDOWS and viewer is not None and actor != viewer
    return {
        "family": "palace", "ruleset": rules.name, "viewer": viewer, "num_players": rules.num_players,
        "phase": state["phase"],
        "actor": None if private else actor, "turn": state["turn"], "direction": state["direction"],
        "pile": list(state["pile"]), "out_of_play": list(state["out_of_play"]), "deck": len(state["deck"]),
        "players": players, "placing": list(state["placing"]), "target": state["target"],
        "plies": state["plies"], "over": state["phase"] == "over",
    }


def _omg_view(rules, state: dict, viewer: int | None) -> dict:
    over = state["phase"] == "over"
    players = [{"seat": q, "hand": list(p["hand"]) if viewer is None or viewer == q else None,
                "hand_count": len(p["hand"]), "skip_next": p["skip_next"], "finished": p["finished"]}
               for q, p in enumerate(state["players"])]
    revealed = state["revealed"]
    return {
        "family": "omg", "ruleset": rules.name, "viewer": viewer, "num_players": len(players),
        "phase": state["phase"],
        "actor": state["current_player"], "turn": state["current_player"], "pile": list(state["pile"]),
        "deck": len(state["deck"]), "revealed": revealed, "players": players, "placing": list(state["placing"]),
        "power": state.get("power"), "left": state.get("left"), "chosen": state.get("chosen"),
        "plies": state["plies"], "over": over, "winner": state.get("winner"),
        "truncated": state.get("truncated", False),
    }


def table_view(env, viewer: int | None) -> dict:
    """:func:`view` of an env's game now, with the env's words for what the decision asks (``constraint``) and,
    when ``viewer`` is the seat deciding (or the spectator, None), its legal moves as ``{"action", "label"}``."""
    env = env.unwrapped
    return table_view_of(env.rules, env.state_dict(), viewer, env.constraint, env.legal_action_names())


def table_view_of(rules, state: dict, viewer: int | None, constraint: str, legal: list[str]) -> dict:
    """:func:`table_view` from a recorded state: ``constraint`` and ``legal`` are what the env said for the seat
    deciding in ``state`` (both are withheld from other viewers while a private window is open)."""
    v = view(rules, state, viewer)
    deciding = not v["over"] and (viewer is None or state["current_player"] == viewer)
    if v["over"]:
        v["constraint"] = "the game is over"
    else:
        v["constraint"] = constraint if deciding or EXPLAINERS[v["family"]].shared_constraint else _waiting(v)
    v["legal"] = ([{"action": name, "label": action_label(rules, state, name)} for name in legal] if deciding
                  else [])
    v["window"] = _window(v) if EXPLAINERS[v["family"]].windows and not v["over"] else None
    v["shithead"] = _shithead(rules, v)
    return v


def _shithead(rules, v: dict) -> int | None:
    """The finished game's loser, named only under the ``shithead_shaming`` prison rule."""
    if not v["over"] or not getattr(rules, "shithead_shaming", False):
        return None
    left = [q for q in range(v["num_players"]) if q not in v["placing"]]
    return left[0] if len(left) == 1 else None


def _waiting(v: dict) -> str:
    if v["actor"] is None:
        return "waiting: the players holding the card may play it"
    return f"waiting for player_{v['actor']}"


def _window(v: dict) -> str | None:
    if v["phase"] == "answer" and v["target"] is not None:
        return f"player_{v['target']} is nominated: answer with a 2, 5, A or Joker, or pick up the pile"
    if v["phase"] == "eat" and v["target"] is not None:
        return f"player_{v['target']} must pick up the pile"
    if v["phase"] == "counter":
        return f"a Joker punishes player_{v['target']}: it may be countered with a Joker"
    if v["phase"] == "sneak":
        return "sneak window: any other player holding the rank just played may sneak it"
    return None


def is_public(rules, phase: str, name: str) -> bool:
    """Whether the table sees a move (see the module docstring). Every omg move is public (Hera's cards are dealt
    unseen, but to whom is seen)."""
    if _explainer(rules).all_public:
        return True
    if phase == "setup" and name != "ready":
        return False
    return not (phase in PRIVATE_WINDOWS and name == "pass")


# --------------------------------------------------------------------------------------------------------------
# words
# --------------------------------------------------------------------------------------------------------------
def who(q: int, viewer: int | None) -> str:
    return "you" if q == viewer else f"player_{q}"


def verb(q: int, viewer: int | None, third: str, second: str | None = None) -> str:
    """``"player_2 plays"`` or ``"you play"``."""
    if q == viewer:
        return f"you {second if second is not None else third[:-1]}"
    return f"player_{q} {third}"


def cards_word(k: int, rank: str) -> str:
    """``a 9``, ``two 9s``, ``an A``, ``a Joker``."""
    name = "Joker" if rank == "JOKER" else rank
    if k == 1:
        return ("an " if name in ("A", "8") else "a ") + name
    return f"{NUMBER_WORDS.get(k, k)} {name}s"


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def listing(cards) -> str:
    cards = list(cards)
    if len(cards) <= 1:
        return "".join(cards)
    return ", ".join(cards[:-1]) + " and " + cards[-1]


def target_seat(rules, state: dict, actor: int, k: int) -> int:
    """The seat ``k`` places after ``actor``: in omg round the table; in the palace family in the direction of
    play,
    counting only players still in (R-PLAYERS-IN), as the kernels do. ``state`` is a state dict or a :func:`view`
    (both have ``direction`` and each player's ``finished``)."""
    n = rules.num_players
    if _explainer(rules).round_table:
        return (actor + k) % n
    step = state["direction"]
    q = actor
    while k:
        q = (q + step) % n
        if not state["players"][q]["finished"]:
            k -= 1
    return q


def action_label(rules, state: dict, name: str) -> str:
    """An action's name in words for the seat deciding in ``state``: targets name the player ("target +2" ->
    "target player_3"); everything else is its name."""
    actor = state["current_player"]
    for prefix, words in (("target +", "target"), ("nominate +", "nominate"), ("give +", "give a card to")):
        if name.startswith(prefix) and actor is not None:
            return f"{words} player_{target_seat(rules, state, actor, int(name[len(prefix):]))}"
    return name


# --------------------------------------------------------------------------------------------------------------
# one decision and what followed
# --------------------------------------------------------------------------------------------------------------
def explain_step(rules, before: dict, after: dict, actor: int, name: str, viewer: int | None) -> list[str]:
    """Sentences for ``actor``'s move ``name`` from ``before`` to ``after`` (``state_dict()`` of each), told to
    ``viewer`` (None: a spectator who sees every card). Empty when the viewer does not see the move."""
    b, a = view(rules, before, viewer), view(rules, after, viewer)
    if not is_public(rules, before["phase"], name) and actor != viewer:
        if before["phase"] == "setup" and after["phase"] != "setup":
            return [f"setup is over: play begins with {who(a['actor'], viewer)}"]
        return []
    label = action_label(rules, before, name)
    return _explainer(rules).explain(rules, b, a, actor, name, label, viewer)


def _gained(b: dict, a: dict, q: int) -> Counter:
    """Cards that arrived in seat ``q``'s hand, when the view shows that hand (else empty)."""
    hb, ha = b["players"][q]["hand"], a["players"][q]["hand"]
    if hb is None or ha is None:
        return Counter()
    return Counter(ha) - Counter(hb)


def _explain_palace(rules, b, a, p, name, label, viewer) -> list[str]:
    """A palace move told: the move itself, then what it did (a 3 leaving play, a burn, a reversal), the draws,
    and what comes next."""
    if b["phase"] == "setup":
        return _palace_setup(b, a, p, name, viewer)
    if name.startswith("nominate +"):
        t = target_seat(rules, b, p, int(name[len("nominate +"):]))  # a view has direction and who finished
        return [(f"{verb(p, viewer, 'nominates', 'nominate')} {who(t, viewer)}: answer with a 2, 5, A or "
                 "Joker, or pick up the pile")]
    line, picked, from_up = _palace_move(rules, b, a, p, name, label, viewer)
    burned, effects = _palace_effects(rules, b, a, name, picked, viewer)
    return [line, *effects, *_palace_draws(rules, b, a, p, picked, from_up, burned, viewer),
            *_palace_next(rules, b, a, p, name, burned, picked, viewer)]


def _palace_setup(b, a, p, name, viewer) -> list[str]:
    out = []
    if name.startswith("swap "):
        h, u = name[5:].split(" for ")
        out.append(f"{verb(p, viewer, 'swaps')} {h} from the hand for {u} from the face-up cards")
    elif name.startswith("cover "):
        out.append(f"{verb(p, viewer, 'puts', 'put')} {name[6:]} face up as a cover")
    elif name == "ready":
        out.append(f"{verb(p, viewer, 'is', 'are')} ready")
    if a["phase"] != "setup":
        out.append(f"setup is over: play begins with {who(a['actor'], viewer)}")
    return out


def _palace_move(rules, b, a, p, name, label, viewer) -> tuple[str, int, int]:
    """The move in words, the pile cards that went to p's hand and the face-up cards p played or took."""
    S = lambda third, second=None: verb(p, viewer, third, second)
    pb, pa = b["players"][p], a["players"][p]
    phase = b["phase"]
    if name == "pass":
        return f"{S('passes', 'pass')}", 0, 0
    if name.startswith(("play ", "sneak ")):
        return _palace_play(b, p, name, viewer)
    if name == "flip":
        new = (Counter(a["pile"]) + Counter(a["out_of_play"]) + Counter(pa["known"])) - (
            Counter(b["pile"]) + Counter(b["out_of_play"]) + Counter(pb["known"]))
        card = next(iter(new.elements()), None)
        shown = card.split(":")[0] if card else "a card"
        failed = not a["pile"] and pa["hand_count"] > pb["hand_count"] and len(a["out_of_play"]) == len(
            b["out_of_play"])
        if failed:
            picked = len(b["pile"]) + 1
            line = (f"{S('flips')} {cards_word(1, shown)} from the face-down cards: it does not go, so "
                    f"{who(p, viewer)} {'pick' if p == viewer else 'picks'} up the pile ({picked} cards)")
            return line, picked, 0
        if a["phase"] == "name":
            return f"{S('flips')} a Joker from the face-down cards and must name its rank", 0, 0
        return f"{S('flips')} {cards_word(1, shown)} from the face-down cards", 0, 0
    if name == "pickup" or name.startswith("pickup with "):
        picked, from_up = len(b["pile"]), 0
        cards = " ".join(c.split(":")[0] for c in b["pile"])
        why = ""
        if phase == "eat":
            why = " (a 3 was played)" if lookup(rules.name).three_forces_pickup else " (the Joker)"
        elif phase == "answer":
            why = " (nominated)"
        line = f"{S('picks', 'pick')} up the pile{why}: {plural(picked, 'card')} ({cards})" if picked else \
            f"{S('picks', 'pick')} up the pile (empty)"
        if name.startswith("pickup with "):
            r = name[len("pickup with "):]
            from_up = pb["face_up_count"] - pa["face_up_count"]
            line += f", and the face-up {r}s"
        return line, picked, from_up
    return f"{S('chooses', 'choose')} {label}", 0, 0


def _palace_play(b, p, name, viewer) -> tuple[str, int, int]:
    """A play or a sneak in words (how many of which rank, what they stand for, from which zone)."""
    S = lambda third, second=None: verb(p, viewer, third, second)
    pb, phase = b["players"][p], b["phase"]
    body = name.split(" ", 1)[1]
    up = 0
    if " +" in body and body.endswith("up"):
        body, extra = body.rsplit(" +", 1)
        up = int(extra[:-2])
    k_str, rank = body.split("x", 1)
    k = int(k_str)
    as_rank = None
    if " as " in rank:
        rank, as_rank = rank.split(" as ")
    what = cards_word(k, rank) + ((f" as {cards_word(1, as_rank)}" if k == 1 else f" as {as_rank}s")
                                  if as_rank else "")
    whole_up = pb["hand_count"] == 0 and pb["face_up_count"] >= k and not up
    from_up = up or (k if whole_up else 0)
    where = ""
    if whole_up:
        where = " from the face-up cards"
    elif up:
        where = f", {up} of them from the face-up cards" if up > 1 else ", one from the face-up cards"
    if name.startswith("sneak "):
        return f"{S('sneaks')} {what} onto the pile, out of turn{where}", 0, from_up
    if phase == "play" and b["turn"] != p:
        return f"{S('opens', 'open')} a fresh pile out of turn with {what}{where}", 0, from_up
    if phase == "name":
        return f"{verb(p, viewer, 'names', 'name')} the Joker: it stands for {as_rank}", 0, from_up
    if phase == "open":
        return f"{S('opens', 'open')} the game with {what}{where}", 0, from_up
    return f"{S('plays')} {what}{where}", 0, from_up


def _palace_effects(rules, b, a, name, picked, viewer) -> tuple[bool, list[str]]:
    """Whether the move burned the pile, and what it did in words: og's 3 leaving play, a burn, a reversal."""
    out = []
    og_three = lookup(rules.name).three_forces_pickup and name.startswith(("play", "sneak", "flip")) and \
        Counter(a["out_of_play"])["3"] > Counter(b["out_of_play"])["3"] and len(a["out_of_play"]) - len(
            b["out_of_play"]) == 1 and not picked
    burned = bool(b["pile"] or name.startswith(("play", "sneak", "flip"))) and not a["pile"] and \
        len(a["out_of_play"]) > len(b["out_of_play"]) and not picked and not og_three
    if og_three:
        nxt = f": {who(a['actor'], viewer)} must pick up the pile" if a["phase"] == "eat" else ""
        out.append(f"the 3 leaves play{nxt}")
    elif burned:
        gone = len(a["out_of_play"]) - len(b["out_of_play"])
        out.append(f"the pile burns ({gone} card{'s' if gone > 1 else ''} {'leave' if gone > 1 else 'leaves'} "
                   "play)")
    if a["direction"] != b["direction"] and not a["over"]:
        way = "clockwise" if a["direction"] == 1 else "counter-clockwise"
        out.append(f"the direction of play reverses: now {way}")
    return burned, out


def _palace_draws(rules, b, a, p, picked, from_up, burned, viewer) -> list[str]:
    """Who drew how many cards (the deck only ever feeds hands), named where the viewer may see them."""
    out = []
    pb, pa = b["players"][p], a["players"][p]
    drawn = b["deck"] - a["deck"]
    others = {q: a["players"][q]["hand_count"] - b["players"][q]["hand_count"]
              for q in range(rules.num_players) if q != p}
    slap = getattr(rules, "slap", False) and burned
    for q, d in others.items():
        if d > 0:
            drawn -= d
            cards = _gained(b, a, q)
            named = f" ({listing(sorted(cards.elements()))})" if sum(cards.values()) == d else ""
            why = " as a penalty: slowest to slap the burned pile" if slap else ""
            out.append(f"{verb(q, viewer, 'draws', 'draw')} {d} card{'s' if d > 1 else ''}{named}{why}")
    if drawn > 0:
        cards = _gained(b, a, p)
        if picked:
            cards -= Counter(b["pile"])
        if from_up:
            cards -= Counter(pb["face_up"] or []) - Counter(pa["face_up"] or [])
        named = f" ({listing(sorted(cards.elements()))})" if sum(cards.values()) == drawn else ""
        out.append(f"{verb(p, viewer, 'draws', 'draw')} {drawn} card{'s' if drawn > 1 else ''}{named}")
    return out


def _palace_next(rules, b, a, p, name, burned, picked, viewer) -> list[str]:
    """Who goes out, who decides next and why: plays again, skips, nominations, Joker windows, the end."""
    out = []
    newly = [q for q in a["placing"] if q not in b["placing"]]
    for q in newly:
        out.append(f"{verb(q, viewer, 'is', 'are')} out (place {a['placing'].index(q) + 1})")
    if a["over"]:
        n = rules.num_players
        left = [q for q in range(n) if q not in a["placing"]]
        if lookup(rules.name).first_out_wins:
            out.append(f"game over: {who(a['placing'][0], viewer)} "
                       f"{'win' if a['placing'][0] == viewer else 'wins'}"
                       if a["placing"] else "game over")
        elif len(left) == 1:
            last = "the Shithead" if getattr(rules, "shithead_shaming", False) else "last"
            out.append(f"game over: {who(left[0], viewer)} {'are' if left[0] == viewer else 'is'} {last}")
        else:
            out.append("game over: the ply cap is reached")
        return out
    nxt = a["actor"]
    if a["phase"] == "nominate":
        out.append(f"an ace: {who(p, viewer)} {'nominate' if p == viewer else 'nominates'} a player")
    elif a["phase"] == "counter" or (a["phase"] == "eat" and name.endswith("xJOKER")
                                         and not lookup(rules.name).three_forces_pickup):
        t = a["target"]
        if b["phase"] == "counter":
            out.append(f"the Joker is countered: the punishment bounces to {who(t, viewer)}")
        else:
            out.append(f"the Joker: {who(t, viewer)} must pick up the pile unless someone counters with a Joker")
    elif a["phase"] == "eat" and b["phase"] == "counter":
        out.append(f"nobody counters: {who(a['target'], viewer)} must pick up the pile")
    elif a["phase"] == "play" and not picked and name.startswith(("play", "flip")) and b["phase"] in (
            "play", "answer", "open", "name"):
        if nxt == p and burned:
            out.append(f"{verb(p, viewer, 'plays', 'play')} again")
        elif nxt == p:
            out.append(f"it is {'your' if p == viewer else who(p, viewer) + chr(39) + 's'} turn again")
        else:
            skipped = []
            q = target_seat(rules, a, p, 1)
            while q != nxt and len(skipped) < rules.num_players:
                skipped.append(q)
                q = target_seat(rules, a, q, 1)
            if skipped and q == nxt:
                verb_ = "are" if len(skipped) > 1 or skipped == [viewer] else "is"
                out.append(f"{listing(who(q, viewer) for q in skipped)} {verb_} skipped")
    elif name == "pickup" and a["phase"] == "play" and nxt == p and lookup(rules.name).opens_after_pickup:
        out.append(f"{who(p, viewer)} {'open' if p == viewer else 'opens'} a fresh pile")
    return out


# --------------------------------------------------------------------------------------------------------------
# omg
# --------------------------------------------------------------------------------------------------------------
def _card(deck, name: str) -> tuple[str, str, int, bool]:
    """(god, color, number, has a power) of a card by name."""
    t = deck.names().index(name)
    return GODS[deck.god[t]], COLORS[deck.color[t]], int(deck.number[t]), bool(deck.power[t])


POWER_WORDS = {  # (the power in the rules' words, what the player does: third person, second person)
    "Zeus": ("choose another player; that player draws 2", "chooses a player to draw 2", ("choose a player to "
                                                                                         "draw 2")),
    "Ares": ("each other player draws 1", "each other player draws 1", "each other player draws 1"),
    "Athena": ("discard half of your hand, rounded down", "discards half of the hand",
               "discard half of your hand"),
    "Artemis": ("choose a number; discard up to 2 cards of it", "chooses a number to discard up to 2 of",
                "choose a number to discard up to 2 of"),
    "Demeter": ("choose a color; discard up to 2 cards of it", "chooses a color to discard up to 2 of",
                "choose a color to discard up to 2 of"),
    "Apollo": (("reveal the deck's top card; discard up to 2 cards matching its color, number or god (one of the "
               "three)"), "may discard up to 2 cards matching it", "may discard up to 2 cards matching it"),
    "Aphrodite": ("choose another player; that player loses the next turn", "chooses a player to lose a turn",
                  "choose a player to lose a turn"),
    "Hephaestus": ("discard a card", "discards a card", "discard a card"),
    "Hestia": ("no penalty for this card", "takes no penalty", "take no penalty"),
    "Poseidon": ("choose a god; discard up to 2 cards of it", "chooses a god to discard up to 2 of",
                 "choose a god to discard up to 2 of"),
    "Hera": ("deal this card's penalty to the other players as you like, then draw 1",
             "deals the penalty to the others, then draws 1", "deal the penalty to the others, then draw 1"),
    "Hermes": ("copy the last power played", "copies the last power played", "copy the last power played"),
}


def _hermes_copy(deck, pile: list[str]) -> str | None:
    """The god whose power a Hermes played now would copy: the nearest powered card below the top that is not a
    Hermes (R-OMG-HERMES), as the engine reads it."""
    for name in reversed(pile):
        god, _, _, power = _card(deck, name)
        if power and god != "Hermes":
            return god
    return None


def _explain_omg(rules, b, a, p, name, label, viewer) -> list[str]:
    """An omg move told: the card and its penalty and power, or the power's choice; then the deck rebuilt, the
    draws, the lost turns and the end of the game."""
    out: list[str] = []
    S = lambda third, second=None: verb(p, viewer, third, second)
    n = rules.num_players
    penalty_draw = None  # the actor's draw explained by the penalty sentence
    if name.startswith("play "):
        out, penalty_draw = _omg_play(rules, b, a, p, name, viewer)
    elif name.startswith("target +"):
        t = (p + int(name[len("target +"):])) % n
        if b["power"] == "Zeus":
            out.append(f"{S('chooses', 'choose')} {who(t, viewer)} (Zeus): {who(t, viewer)} "
                       f"{'draw' if t == viewer else 'draws'} 2")
            penalty_draw = None
        else:
            out.append(f"{S('chooses', 'choose')} {who(t, viewer)} (Aphrodite): {who(t, viewer)} "
                       f"{'lose' if t == viewer else 'loses'} the next turn")
    elif name.startswith("give +"):
        t = (p + int(name[len("give +"):])) % n
        got = _gained(b, a, t) if t == viewer else Counter()
        named = f": {listing(sorted(got.elements()))}" if sum(got.values()) == 1 else ""
        out.append(f"{S('deals', 'deal')} a penalty card to {who(t, viewer)} (Hera){named}")
    elif name.startswith(("number ", "color ", "god ", "attribute ")):
        out.append(f"{S('chooses', 'choose')} {name}")
    elif name.startswith("discard "):
        out.append(f"{S('discards')} {name[8:]}" + (f" ({b['power']})" if b["power"] else ""))
    elif name == "stop":
        out.append(f"{S('stops', 'stop')} discarding")
    else:
        out.append(f"{S('chooses', 'choose')} {label}")
    return out + _omg_after(rules, b, a, p, name, penalty_draw, viewer)


def _omg_play(rules, b, a, p, name, viewer) -> tuple[list[str], int | None]:
    """A card played: whether it matches, its penalty (waived by Hestia, dealt by Hera) and its power; returns the
    lines and the penalty the player drew (None: none), which the draws below leave out."""
    deck = rules.deck
    S = lambda third, second=None: verb(p, viewer, third, second)
    out: list[str] = []
    penalty_draw = None
    card = name[5:]
    top = b["pile"][-1]
    g1, c1, n1, pw = _card(deck, card)
    g0, c0, n0, _ = _card(deck, top)
    power = g1 if pw else None
    if power == "Hermes":
        power = _hermes_copy(deck, b["pile"])
    line = f"{S('plays')} {card} on {top}"
    if n1 == n0 or g1 == g0:
        out.append(line + f": it matches ({'number' if n1 == n0 else 'god'})")
    else:
        pen = abs(n1 - n0) + (c1 != c0)
        why = f"{c1} {n1} on {c0} {n0}, {'same color' if c1 == c0 else 'different colors'}"
        if power == "Hestia":
            out.append(line + f": no match, but Hestia waives the penalty of {pen}")
        elif power == "Hera":
            out.append(line + f": no match, penalty {pen} ({why}); Hera deals it to the others")
        else:
            out.append(line + ": no match")
            penalty_draw = pen
            cards = _gained(b, a, p)
            named = f": {listing(sorted(cards.elements()))}" if 0 < sum(cards.values()) <= pen else ""
            out.append(f"penalty: {S('draws', 'draw')} {pen} ({why}){named}")
    if pw:
        source = f"Hermes copies {power}" if g1 == "Hermes" and power else f"{power}'s power"
        if g1 == "Hermes" and power is None:
            out.append("Hermes: there is no power to copy")
        elif power == "Ares":
            out.append(f"{source}: each other player draws 1")
        elif power == "Apollo":
            revealed = f"the deck's top card is {a['revealed']}: " if a["revealed"] else ""
            out.append(f"{source}: {revealed}{S(*POWER_WORDS[power][1:])}")
        elif power != "Hestia" or g1 == "Hermes":
            out.append(f"{source}: {S(*POWER_WORDS[power][1:])}")
    return out, penalty_draw


def _omg_after(rules, b, a, p, name, penalty_draw, viewer) -> list[str]:
    """What followed an omg move: the deck rebuilt, each draw not told yet, lost turns, the end of the game."""
    out: list[str] = []
    n = rules.num_players
    if len(a["pile"]) < len(b["pile"]):
        out.append("the deck ran out: the pile under its top card is shuffled into a new deck")
    for q in range(n):
        d = a["players"][q]["hand_count"] - b["players"][q]["hand_count"] + (1 if q == p and name.startswith(
            ("play ", "discard ")) else 0)
        if q == p and penalty_draw is not None:
            d -= penalty_draw
        if d > 0 and not (name.startswith("give +") and q != p) and not (name.startswith("target +") and q != p
                                                                          and b["power"] == "Zeus"):
            cards = _gained(b, a, q)
            named = f" ({listing(sorted(cards.elements()))})" if 0 < sum(cards.values()) <= d else ""
            out.append(f"{verb(q, viewer, 'draws', 'draw')} {d} card{'s' if d > 1 else ''}{named}")
    lost = {q for q in range(n) if b["players"][q]["skip_next"] and not a["players"][q]["skip_next"]}
    if not a["over"] and b["actor"] == p and a["actor"] != p:  # the turn passed: seats jumped lost their turn
        q = (p + 1) % n
        while q != a["actor"] and q != p:
            lost.add(q)
            q = (q + 1) % n
    for q in sorted(lost, key=lambda q: (q - p) % n):
        out.append(f"{who(q, viewer)} {'lose' if q == viewer else 'loses'} this turn (Aphrodite) and "
                   f"{'take' if q == viewer else 'takes'} the cards back")
    if a["over"]:
        if a["winner"] is not None:
            out.append(f"game over: {who(a['winner'], viewer)} {'win' if a['winner'] == viewer else 'wins'}")
        else:
            out.append("game over: the ply cap is reached, nobody wins")
    return out


# --------------------------------------------------------------------------------------------------------------
# the rules in short ('?' in the terminal, the web page's help)
# --------------------------------------------------------------------------------------------------------------
PALACE_COMMON = ("Play one or more cards of one rank, equal to or higher than the pile's top (2 < 3 < ... < K < "
                 "A), or pick the pile up. Hand first; face-up cards once the hand and draw pile are empty; "
                 "face-down cards last, flipped blind. Draw back to 3 while the draw pile lasts.")
def rules_text(rules) -> str:
    """The ruleset's rules in short (its record's ``short_rules``), with the toggles on and omg's powers spelled
    out."""
    toggles = rules.toggles() if hasattr(rules, "toggles") else {}
    return lookup(rules.name).short_rules.format(
        common=PALACE_COMMON, base=getattr(rules, "base", None),
        on=", ".join(t for t, v in toggles.items() if v) or "none",
        powers="; ".join(f"{god}: {words[0]}" for god, words in POWER_WORDS.items()),
    )


class Explainer(NamedTuple):
    """How a family is shown and told: its ``view`` and ``explain`` functions, and what differs between families:
    ``all_public`` (every move is seen by the table), ``shared_constraint`` (every seat is told what the player to
    act must do), ``windows`` (out-of-turn windows whose asked seats are private), ``round_table`` (targets count
    round the table, not in the direction of play among the players still in)."""

    view: Callable
    explain: Callable
    all_public: bool
    shared_constraint: bool
    windows: bool
    round_table: bool


EXPLAINERS = {
    "palace": Explainer(_palace_view, _explain_palace, all_public=False, shared_constraint=False, windows=True,
                        round_table=False),
    "omg": Explainer(_omg_view, _explain_omg, all_public=True, shared_constraint=True, windows=False,
                     round_table=True),
}


def _explainer(rules) -> Explainer:
    return EXPLAINERS[lookup(rules.name).family]
