"""Action names <-> ids, for people (the engine only ever sees ids). The names are part of the public interface."""

from __future__ import annotations

from shedders.engine.omg import layout as O
from shedders.engine.palace import layout as K


def palace_action_names() -> tuple[str, ...]:
    """Every palace action's name, by id."""
    rn = K.RANK_NAMES
    names = [""] * K.N_ACTIONS
    for r in range(K.R):
        for c in range(1, K.MAXC + 1):
            names[K.A_PLAY + r * K.MAXC + c - 1] = f"play {c}x{rn[r]}"
    names[K.A_PICKUP] = "pickup"
    names[K.A_FLIP] = "flip"
    for h in range(K.R):
        for u in range(K.R):
            names[K.A_SWAP + h * K.R + u] = f"swap {rn[h]} for {rn[u]}"
    names[K.A_READY] = "ready"
    names[K.A_PASS] = "pass"
    for k in range(1, K.MAXP):
        names[K.A_NOMINATE + k - 1] = f"nominate +{k}"
    for r in range(K.N_PLAIN):
        for k in range(1, K.UP_K + 1):
            for m in range(1, K.UP_K + 1):
                names[K.A_PLAY_UP + r * K.UP_STRIDE + (k - 1) * K.UP_K + m - 1] = f"play {k}x{rn[r]} +{m}up"
        for k in range(1, K.AS_K + 1):
            names[K.A_PLAY_AS + r * K.AS_K + k - 1] = f"play {k}xJOKER as {rn[r]}"
        for k in range(1, K.THREES_K + 1):
            for m in range(K.THREES_M):
                up = f" +{m}up" if m else ""
                at = K.A_THREES_AS + r * K.THREES_STRIDE + (k - 1) * K.THREES_M + m
                names[at] = f"play {k}x3 as {rn[r]}{up}"
    for r in range(K.R):
        names[K.A_PICKUP_WITH + r] = f"pickup with {rn[r]}"
        names[K.A_COVER + r] = f"cover {rn[r]}"
        for c in range(1, K.MAXC + 1):
            names[K.A_SNEAK + r * K.MAXC + c - 1] = f"sneak {c}x{rn[r]}"
    assert all(names) and len(set(names)) == len(names)
    return tuple(names)


ACTION_NAMES = palace_action_names()
ACTION_IDS = {name: i for i, name in enumerate(ACTION_NAMES)}


def omg_action_names(rules) -> tuple[str, ...]:
    """Every omg action's name by id, for the deck of ``rules`` (an ``OmgRules``)."""
    deck = rules.deck
    lay = O.action_layout(deck.num_types)
    names = [""] * lay["n_actions"]
    for t, card in enumerate(deck.names()):
        names[lay["play"] + t] = f"play {card}"
        names[lay["discard"] + t] = f"discard {card}"
    for k in range(1, O.MAXP):
        names[lay["target"] + k - 1] = f"target +{k}"
        names[lay["give"] + k - 1] = f"give +{k}"
    for v in range(1, O.MAXN + 1):
        names[lay["number"] + v - 1] = f"number {v}"
    for c, color in enumerate(O.COLORS):
        names[lay["color"] + c] = f"color {color}"
    for gd, god in enumerate(O.GODS):
        names[lay["god"] + gd] = f"god {god}"
    for a, attr in enumerate(("number", "color", "god")):
        names[lay["attribute"] + a] = f"attribute {attr}"
    names[lay["stop"]] = "stop"
    assert all(names) and len(set(names)) == len(names)
    return tuple(names)
