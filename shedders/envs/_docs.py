"""Builds each ruleset module's docstring (its docs page): the tables are generated, never typed by hand."""

from __future__ import annotations

from shedders.engine import palace as K
from shedders.envs.palace_env import observation_table


def palace_doc(ruleset: str, summary: str, rules_text: str, specs: str, players: str) -> str:
    return f"""{summary}

| | |
|---|---|
| Import | `from shedders.envs import {ruleset}_v0` |
| Agents | `player_0 ... player_{{N-1}}`, seat order clockwise; N = {players} |
| Action space | `Discrete({K.N_ACTIONS})`, the palace family's fixed layout (names: `env.unwrapped.action_names`) |
| Observation | `{{"observation": int8[{K.observation_size(4)}] at 4 players, "action_mask": int8[{K.N_ACTIONS}]}}` |

## Arguments
`{ruleset}_v0.env(num_players=4, render_mode=None, ply_cap=5000{", base='core', rules=None" if ruleset == "house" else ""})`

## Rules
{rules_text}

## Specifications in shedders
{specs}

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
| {K.A_PASS} | `pass` | decline to counter a Joker |
| {K.A_NOMINATE}-{K.N_ACTIONS - 1} | `nominate +k` | name the k-th player still in, in the direction of play |

## Rewards
A player who goes out gets +1/(N-1) on the step they go out; the Shithead (last holding cards) gets -1 when the
game ends. At the ply cap the game is truncated: players still in get 0, those out keep what they got.

## Version history
- v0: first release.
"""


SEED_003_CORE = """Quoted from seed 003 (`shared/seeds/003_60428f49f3a2539e.txt`):

> Deal 3 cards face-down in a row to each player [...] Mystery Cards. Deal 3 cards face-up on top [...] Table Top
> Cards. Deal 3 cards to each player's hand [...] Hole Cards. Before play begins, you may swap cards between your
> hole cards and your table-top cards. Anyone holding a 3 in their hole cards goes first. Nobody has one? The
> player with the lowest plain card starts. Play begins clockwise.
>
> 2 Reset: the next player can play any card. 5 Mirror: the pile counts as whatever the 5 is sitting on (a 5 on a
> 7 keeps the under-7 curse; a 5 never re-triggers one-shot effects; a 5 on an empty pile: anything). 7 Under: the
> next player must play LOWER than 7, or a wild card (an 8 is not an escape). 10 Burn: burns the entire pile out
> of the game; you go again; finishing on a 10 is allowed.
>
> On your turn, play one or more cards of a single value, equal to or higher than the top of the pile, or a wild
> card (2, 5, 10, Joker). If you can't (or don't want to), you pick up the entire pile. You must play all hole
> cards before touching your table-top cards [...] then flip mystery cards blind. While the draw pile exists,
> always draw back up to 3 hole cards after playing. Four cards of the same value on top of the pile, played at
> once or stacked across turns, burns it; the burner goes again; the burn overrides the cards' own powers.
> If a mystery card beats the pile, it plays; if not, you pick up the pile including that card. Play continues
> until one player remains with cards: the Shithead."""

SEED_003_SA = (
    SEED_003_CORE
    + """
>
> South African: everything in Core, plus 8 skips (play two, skip two; four 8s burn; maximum skip is 3), Queens
> reverse (two cancel out; four burn and nobody turns around), Aces point at ANY player, who must answer with a
> 2, 5, Ace or Joker or eat the whole pile (play continues from them; an ace answer points again), and Jokers:
> the next player eats the entire pile unless someone counters with their own Joker; a counter bounces the
> punishment onto the previous Joker's player; last Joker standing wins; Jokers go one at a time."""
)

SEED_003_HOUSE = (
    SEED_003_SA
    + """
>
> House Rules: every special card is a toggle; start from Core or South African. Prison rules: slap the pile
> (after a burn the slowest hand draws a penalty card), reverse on doubles (any pair reverses), Shithead shaming,
> loser's tax (next game the Shithead's best card is swapped with the winner's worst card), silent 7 and
> fetching drinks (table only)."""
)

SPECS_COMMON = """- Ranks 2 < 3 < ... < K < A; suits are dropped. The deck is shuffled from the game's own seeded stream.
- Setup is sequential from seat 0: swaps (`swap H for U`), then `ready`; others' face-up cards are hidden in
  observations until setup ends. `rules={"swap_phase": False}` (house) skips it.
- The starter is the first seat clockwise from seat 0 holding the lowest plain card (a 3 when anyone has one);
  seat 0 if no hand holds a plain card. The starter may play anything legal.
- Zone in use: hand; face-up once hand and draw pile are empty; face-down last, flipped blind one at a time.
- Pickup is voluntary whenever the pile is not empty (toggle `voluntary_pickup`) and ends the turn; no draw.
- 7: the next play must be strictly lower than 7 or a wild (a 7 on a 7 is not allowed).
- A burn (10, or four of a rank on top with 5s counting as 5) cancels every power of the play; the burner draws
  and plays again, or is out if no cards are left.
- Cards a player picked up are public (`known` in the observation) until played; after playing k of a rank,
  k of the known ones are taken as played.
- Ply cap (default 5000 decisions, setup included): the game ends truncated."""

SPECS_CORE = SPECS_COMMON

SPECS_SA = (
    SPECS_COMMON
    + """
- 8: k eights skip k players still in (at most 3); a skip may come round to the player. Q: each flips direction.
  Reversals apply before skips are counted.
- A: after drawing, the ace player chooses `nominate +k` (the k-th player still in, in the direction of play;
  naming oneself is not modeled). The nominee answers with any count of 2, 5, A or a single Joker from their
  zone (whatever the toggles say), flips if on face-down cards, or picks up; play continues after the nominee.
  A player who goes out on an ace nominates nobody.
- Joker: one per play, on anything. The players holding a Joker in the zone they may play are asked in turn from
  the victim (`play 1xJOKER` to counter, or `pass`); a counter punishes the player of the Joker below and the
  asking restarts. When nobody counters the victim must `pickup` (Jokers included), then play goes on after
  them. No counter is offered when the player it would punish has gone out."""
)

SPECS_HOUSE = (
    SPECS_SA
    + """
- `house` starts from `base="core"` (default) or `"south_african"` with every prison rule off; `rules=` sets
  toggles: reset_2, mirror_5, under_7, burn_10, skip_8, reverse_q, nominate_a, jokers, four_burn,
  voluntary_pickup, slap, reverse_on_doubles, losers_tax, swap_phase. A card whose toggle is off is a plain card.
- slap: after a burn a uniformly random other player still in draws one card from the draw pile.
- reverse_on_doubles: a play of exactly two cards reverses direction (cancelled by a burn).
- losers_tax: in a `shedders.Match`, after each deal the last loser's best hand card (10, 2, 5, Joker when wild,
  then A down to 3) is swapped with the last winner's worst; not after a truncated game, never in a scenario.
- Shithead shaming: the renderer names the last loser "Shithead".
- Silent 7 and fetching drinks are table-only and not modeled."""
)


def palace_module(ruleset: str, title: str, rules_text: str, specs: str, players: str):
    """(env, raw_env, docstring) for a ruleset's versioned module, PettingZoo style."""
    from shedders.envs import palace_env

    def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.env(ruleset, num_players, render_mode, **kwargs)

    def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.raw_env(ruleset, num_players, render_mode, **kwargs)

    doc = palace_doc(ruleset, title, rules_text, specs, players)
    env.__doc__ = raw_env.__doc__ = doc
    return env, raw_env, doc
