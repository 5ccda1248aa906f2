"""Builds each ruleset module's docstring (its docs page) from the ruleset's record
(``shedders.rules.registry``): the texts are data files, the tables are generated, nothing is typed twice."""

from __future__ import annotations

from shedders.engine import palace as K
from shedders.envs import palace_env
from shedders.envs.palace_env import observation_table
from shedders.rules.registry import REGISTRY, lookup, player_range

CAP_RULE_DOC = """With `cap_rule="most_cards"` a game at the ply cap is decided instead (no seed speaks of the cap;
this is how shead.online ends one): the players still in go out by the cards they hold in every zone, fewest first, ties by
seat order clockwise from the player to act, each paid as going out is, so the last is the Shithead (og: the first
placed wins). The game is still flagged truncated (PettingZoo's truncation), so capped games can be counted."""


def players_text(record) -> str:
    """The player range for the docs page ("2-5"; a ruleset on bases: each base's range)."""
    if record.bases:
        return " or ".join("{}-{} (base {})".format(*player_range(record, b), b) for b in record.bases)
    return "{}-{}".format(*player_range(record))


def args_text(record) -> str:
    """The keyword arguments beyond every ruleset's, as the docs page's call shows them."""
    out = f", base={record.bases[0]!r}" if record.bases else ""
    return out + (", rules=None" if record.toggles else "")


def palace_doc(ruleset: str) -> str:
    """The docs page of a palace ruleset, from its record."""
    record = lookup(ruleset)
    v, players = record.version, players_text(record)
    history = "\n".join(["- v0: first release.", *(f"- {note}" for note in record.version_notes)])
    return f"""{record.title}

| | |
|---|---|
| Import | `from shedders.envs import {ruleset}_v{v}` |
| Agents | `player_0 ... player_{{N-1}}`, seat order clockwise; N = {players} |
| Action space | `Discrete({K.N_ACTIONS})`, the palace family's fixed layout (names: `env.unwrapped.action_names`) |
| Observation | `{{"observation": int8[{K.observation_size(4)}] at 4 players, "action_mask": int8[{K.N_ACTIONS}]}}` |

## Arguments
`{ruleset}_v{v}.env(num_players=4, render_mode=None, ply_cap=5000, cap_rule="truncate"{args_text(record)})`

## Rules
{record.doc("seed_text")}

## Specifications in shedders
{record.doc("specs")}

## Observation (4 players; seat slots are relative to the observer, slot 0 = the observer)
{observation_table(4)}

## Actions
| ids | name | meaning |
|---|---|---|
| {K.A_PLAY}-{K.A_PICKUP - 1} | `play kxR` | play k cards of rank R (id = rank * {K.MAXC} + k - 1) from the zone in use |
| {K.A_PICKUP} | `pickup` | pick up the pile (also: eat it after a Joker or a nomination) |
| {K.A_FLIP} | `flip` | play the first face-down card blind; a failed flip picks up the pile in the same step |
| {K.A_SWAP}-{K.A_READY - 1} | `swap H for U` | setup: hand card H goes face up, face-up card U comes into the hand |
| {K.A_READY} | `ready` | setup: done swapping |
| {K.A_PASS} | `pass` | decline to counter a Joker, or (og) to sneak |
| {K.A_NOMINATE}-{K.A_PLAY_UP - 1} | `nominate +k` | name the k-th player still in, in the direction of play |
| {K.A_PLAY_UP}-{K.A_PLAY_AS - 1} | `play kxR +mup` | fatality: the last k hand cards, all R, with m face-up Rs |
| {K.A_PLAY_AS}-{K.A_THREES_AS - 1} | `play kxJOKER as R` | fatality: k Jokers standing for R (after a blind Joker: name it) |
| {K.A_THREES_AS}-{K.A_PICKUP_WITH - 1} | `play kx3 as R [+mup]` | fatality: a hand of only 3s as the top's rank R (with m face-up Rs) |
| {K.A_PICKUP_WITH}-{K.A_COVER - 1} | `pickup with R` | fatality: with an empty hand, pick up the pile and the face-up Rs |
| {K.A_COVER}-{K.A_SNEAK - 1} | `cover R` | og setup: an R of the six cards goes face up |
| {K.A_SNEAK}-{K.N_ACTIONS - 1} | `sneak kxR` | og: sneak k Rs out of turn (`pass` declines) |

Every palace ruleset shares this one layout; the mask only ever offers the ruleset's own actions.

## Rewards
{record.doc("rewards_doc")}

{CAP_RULE_DOC}

## Version history
{history}
"""


def palace_module(ruleset: str):
    """(env, raw_env, docstring) for a palace ruleset's versioned module, PettingZoo style: the whole of a
    ``<name>_v<N>.py`` shim is ``env, raw_env, __doc__ = palace_module("<name>")``."""

    def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.env(ruleset, num_players, render_mode, **kwargs)

    def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.raw_env(ruleset, num_players, render_mode, **kwargs)

    doc = palace_doc(ruleset)
    module = f"shedders.envs.{ruleset}_v{REGISTRY[ruleset].version}"
    env.__doc__ = (f"The {ruleset} AEC env, wrapped as PettingZoo does; its docs page is the module's: "
                   f"help({module}).")
    raw_env.__doc__ = f"The {ruleset} AEC env, unwrapped; its docs page is the module's: help({module})."
    return env, raw_env, doc
