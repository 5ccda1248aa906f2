"""Builds each ruleset module's docstring (its docs page): the tables are generated, never typed by hand."""

from __future__ import annotations

from shedders.engine import palace as K
from shedders.envs import palace_env
from shedders.envs.palace_env import VERSIONS, observation_table


REWARDS_003 = """A player who goes out gets +1/(N-1) on the step they go out; the Shithead (last holding cards) gets -1 when the
game ends. At the ply cap the game is truncated: players still in get 0, those out keep what they got."""

REWARDS_OG = """Winner-take-all: the first player with no cards anywhere gets +1 and the game ends there; every other player
gets -1/(N-1). At the ply cap the game is truncated and everyone gets 0."""

REWARDS_FAT = """Finishing position k (1 = first out) scores k points (seed 002); the reward is (N + 1 - 2k)/(N - 1), from +1
for the first out down to -1 for the last player, paid on the step each player goes out (the last player's when
the game ends). The final info of every agent holds `placing`, `last_play` (the rank the last play stood for)
and `fatality` (`"mic drop"` for 8s, `"burn unit"` for 10s, else None). At the ply cap the game is truncated:
players still in get 0."""

REWARDS = {"og": REWARDS_OG, "fatality": REWARDS_FAT}

CAP_RULE_DOC = """With `cap_rule="most_cards"` a game at the ply cap is decided instead (no seed speaks of the cap; this is how
shead.online ends one): the players still in go out by the cards they hold in every zone, fewest first, ties by
seat order clockwise from the player to act, each paid as going out is, so the last is the Shithead (og: the first
placed wins). The game is still flagged truncated (PettingZoo's truncation), so capped games can be counted."""


#: the env version of each ruleset whose play changed since v0, and why (a change that alters play bumps it)
VERSION_NOTES = {
    "house": [
        "- v1: who starts looks for a 3 before the lowest plain card, whatever `reset_2` is (seed 003: \"Anyone "
        "holding a 3 in their hole cards goes first. Nobody has one? The player with the lowest plain card "
        "starts.\"); in v0, with `rules={\"reset_2\": False}`, a plain 2 started ahead of a 3. `house_v0` "
        "still imports, as this version."
    ],
}


def palace_doc(ruleset: str, summary: str, rules_text: str, specs: str, players: str) -> str:
    v = VERSIONS.get(ruleset, 0)
    history = "\n".join(["- v0: first release.", *VERSION_NOTES.get(ruleset, [])])
    return f"""{summary}

| | |
|---|---|
| Import | `from shedders.envs import {ruleset}_v{v}` |
| Agents | `player_0 ... player_{{N-1}}`, seat order clockwise; N = {players} |
| Action space | `Discrete({K.N_ACTIONS})`, the palace family's fixed layout (names: `env.unwrapped.action_names`) |
| Observation | `{{"observation": int8[{K.observation_size(4)}] at 4 players, "action_mask": int8[{K.N_ACTIONS}]}}` |

## Arguments
`{ruleset}_v{v}.env(num_players=4, render_mode=None, ply_cap=5000, cap_rule="truncate"{ARGS.get(ruleset, "")})`

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
{REWARDS.get(ruleset, REWARDS_003)}

{CAP_RULE_DOC}

## Version history
{history}
"""


ARGS = {"house": ", base='core', rules=None", "fatality": ", rules=None"}

SEED_000_OG = """Quoted from seed 000 (the og rule text):

> Requirements: 3-5 Players; 1 standard deck of cards (remove jokers). Alternative requirements for 5-8 players:
> use 2 standard card decks mixed together. All rules are the same, except a "full set" requires 5 cards.
>
> Deal each player three cards face down. These are their "blinds". Deal each player 6 cards face down in a
> separate pile. [...] Each player must choose three "covers" - cards that go face up on top of their blinds.
> If any player has a 4, they may immediately play it [...] If nobody has a 4, someone may play a 5, and so on.
> Turns proceed clockwise. Each player must play a card that is equal to or higher than the card on the top of
> the pile. You can play multiple cards of the same rank. Any time you have less than three cards in your hand,
> you must immediately draw from the draw pile. If you can't beat the card on the pile, you must pick up the
> whole pile and play a new card from your hand to start the pile. You cannot use your covers until your hand
> is empty [...] you can't use your blinds until your covers are gone and your hand is empty. The player to
> empty their blinds first wins the game. You must play your blind face up so the whole table can see it.
>
> 2 can be played on any card, and it resets the pile. 3 can be played on any card, and it forces the next
> player to pick up the pile and start it fresh with a card from their hand. The 3 is discarded immediately.
> A 7 can only be played on a card that it beats (2-7), but the next player must play a 7 or lower (or a 10).
> 10 [...] clears the whole pile [...] and allows you to start the pile fresh. If a player plays the final card
> that completes a set of 4 cards of the same rank (special or not), that card behaves exactly like a 10.
>
> Sneaking: any time a card is played, if you have the same card in your hand, you may "sneak" it on top of
> the pile if it is not your turn. You then draw from the draw pile and the game continues as usual with the
> player who would have gone next before you snuck. You may sneak special cards, but they do not have any
> additional effects. If you sneak the fourth and final card of a full set, however, you do get to clear and
> restart the pile. Sneaking never changes the order of turns, and does not count as a turn."""

SPECS_OG = """- 2-8 players: one deck of 52 for 2-5 (2 players are shedders' extension), two decks of 104 for 6-8, where a
  full set is 5 cards. Suits are dropped; the deck is shuffled from the game's own seeded stream.
- Setup: 3 blinds and 6 cards each; from seat 0 on, each player picks 3 covers one card at a time (`cover R`);
  nobody sees another's covers until all have picked. Setup ends by itself after the last pick.
- The start rank is the first of 4, 5, ..., K, A, 2, 3 that any hand holds; the first seat clockwise from seat 0
  holding it opens (phase `open`) with one or more cards of it; normal effects apply; then the player to its left.
- A turn: play cards that beat the top (same rank, any count), or, only when nothing is legal, `pickup` and then
  open a fresh pile from the hand in the same turn (the mask then offers every card). A failed blind is picked
  up with the pile within the `flip` step, and the player then opens a fresh pile the same way.
- 2: on anything; resets. 3: on anything; leaves play; the next player must `pickup` (even an empty pile) and
  open fresh, from the zone they may play. 7: beats 2-7 only; the next play must be 7 or lower, or a 10, 2 or 3.
  10: on anything; burns; the burner draws and opens the fresh pile. A play that makes the top F cards one rank
  (F = 4, or 5 on two decks) burns like a 10 for whoever completed it; four 3s in one play burn too.
- Sneaking (phase `sneak`): after every play of rank R (a turn, the opening, a sneak, an out-of-turn opening),
  each other player holding R in hand is asked once, clockwise from the left of the player who played, the
  next player included: `sneak kxR` or `pass`. A sneak draws back to 3, is not a turn and moves no turn. Each
  sneak opens a new window from the sneaker's left (the first player may sneak again). Sneaked cards go on top
  when the played cards stayed; when those left (a 3, a burn) the sneaked ones leave play too (no pickup, no
  burn). A sneak that completes a full set burns and the sneaker opens the fresh pile out of turn
  (`out_of_turn` in the observation); then play continues with the player whose turn it was.
- The observation's `kind` says whether a decision is a turn (`play`, `open`, `eat`) or a sneak offer
  (`sneak`), and `last` names the rank on offer. Only players holding the rank are asked (R-OG-SNEAK-WINDOW), so the
  env's `agent_selection` during a window tells who holds it; observations never do (a player who is not asked
  sees `waiting` either way). Agents that should not peek use observations only, as the batched API does.
- The first player with no cards anywhere wins and the game ends. Ply cap (default 5000 decisions): truncated.
- Not modeled: the tally across games (use `shedders.Match`), the draw order "in the order that they emptied
  their hands" (decisions are sequential, so each player draws at once)."""

SEED_002_FAT = """Quoted from seed 002 (the fatality rule text):

> Each player receives 3 face-down cards, 3 face-up cards, 3 cards in hand. Players can exchange cards from their
> hand with their face-up cards before the first turn begins*. Players take turns clockwise, starting with a
> randomly determined player. On your turn, you must play at least one card. If you cannot play, you must pick
> up the entire discard pile into your hand. If you cannot play and do not have any cards in your hand, you can
> also pick cards of the same rank from your face-up cards*. [...] Cards played must be of equal or higher rank
> than the top card. 2s and 3s: can be played on any card. 7s: the next player must play a 7 or lower. 8s: the
> next player is skipped; multiple 8s skip multiple players. 10s: the pile is burned, the player plays again.
> Jokers: wild cards that can be assigned any rank. Four (or more) cards of the same rank in a row clear the
> pile; the player who played the last card plays again. Face-up cards can be played with hand cards only when
> all hand cards of the same rank are played together. When a player only has 3s in hand and the draw pile is
> empty, the player can play all 3s at once and they inherit the rank of the last card played*. Each player gets
> a point for the position they finish in. Fatalities: Mic Drop (8s), Burn Unit (10s). (* tabletop rules.)"""

SPECS_FAT = """- 2-6 players, 54 cards (one deck and 2 Jokers). Setup: swaps (`swap H for U`) then `ready`, from seat 0; the
  first player is then drawn at random from the game's own stream.
- Forced play: `pickup` only when nothing is legal; it ends the turn. 2, 3 and Jokers go on anything (the 2 and 3
  are their own ranks on top, which anything beats). 7: the next play must be 7 or lower, or a 2, 3 or Joker.
  8: k eights skip k players still in, no cap, possibly round to the player. 10: must beat the top; burns; the
  player draws and plays again (or is out with no cards left). Four or more of one rank on top burn.
- Jokers: `play kxJOKER as R` (k = 1 or 2, alone, never with natural cards), R any rank 2..A, which the Jokers
  then are in every respect (burn as 10, cap as 7, skip as 8, count towards four of a rank). On the pile they
  read `JOKER:R`. A Joker flipped blind never fails: its player names it next (phase `name`).
- A failed blind is picked up with the pile within the `flip` step; the turn ends.
- Starred tabletop rules, each on by default, each a toggle of `rules=`:
  `swap_phase` (the setup swaps), `pickup_with_up` (`pickup with R`: with an empty hand and nothing legal,
  take the face-up Rs too), `up_with_hand` (`play kxR +mup`: the last hand cards, all R, with the draw pile
  empty, plus m face-up Rs), `threes_as_top` (`play kx3 as R [+mup]`: a hand of only 3s with the draw pile
  empty, all at once, as the top's rank R, optionally with face-up Rs; not offered on an empty pile or a 3,
  where they are plain 3s). Such 3s read `3:R` on the pile and are R in every respect.
- Play goes on until one player still holds cards. Ply cap (default 5000 decisions): truncated."""

SEED_003_CORE = """Quoted from seed 003 (the core family rule text), section Core:

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
  voluntary_pickup, slap, reverse_on_doubles, losers_tax, shithead_shaming, swap_phase. A card whose toggle is off
  is a plain card.
- slap: after a burn a uniformly random other player still in draws one card from the draw pile.
- reverse_on_doubles: a play of exactly two cards reverses direction (cancelled by a burn).
- losers_tax: in a `shedders.Match`, after each deal the last loser's best hand card (10, 2, 5, Joker when wild,
  then A down to 3) is swapped with the last winner's worst; not after a truncated game, never in a scenario.
- shithead_shaming (off by default, as every prison rule: the seed calls them "optional rules for when the base
  game isn't chaotic enough"): the renderer, the explanations and the web page name the last loser "Shithead";
  without it they say "last", and `core` and `south_african` never shame.
- Silent 7 and fetching drinks are table-only and not modeled."""
)


def palace_module(ruleset: str, title: str, rules_text: str, specs: str, players: str):
    """(env, raw_env, docstring) for a ruleset's versioned module, PettingZoo style."""

    def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.env(ruleset, num_players, render_mode, **kwargs)

    def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs):
        return palace_env.raw_env(ruleset, num_players, render_mode, **kwargs)

    doc = palace_doc(ruleset, title, rules_text, specs, players)
    module = f"shedders.envs.{ruleset}_v{VERSIONS.get(ruleset, 0)}"
    env.__doc__ = f"The {ruleset} AEC env, wrapped as PettingZoo does; its docs page is the module's: help({module})."
    raw_env.__doc__ = f"The {ruleset} AEC env, unwrapped; its docs page is the module's: help({module})."
    return env, raw_env, doc


#: seed 001, quoted in full (the source of truth for omg)
SEED_001_OMG = "OMG\nOMG Rulebook\nTable of Contents\nTable of Contents\nContents\n- 96 Cards\n- Rulebook\nCard Anatomy\nThe rulebook's card diagram labels the following parts of a card: Number and Color, God, God's Name, Special Power, and Color Symbol.\nTo help you identify the colors on the cards, there is a symbol associated with each one of them:\n- Fire = Red color\n- Leaf = Green color\n- Wave = Blue color\n- Thunder = Black color\nPrepare to Fight\nShuffle the deck and give 6 cards to each player. Place the deck then at the center of the table where everyone can easily have access to it and draw the first card, placing it face up next to the deck.\nThe player who most recently typed OMG on a digital device plays first.\nThe Fight Is On!\nOn your turn, play a card from your hand face-up, placing it on top of the last face-up card at the center of the table. To strike a blow, you must match either the previous card's number or god. If you succeed, you are one step closer to victory and it is now the turn of the next player on your left. If neither number or god matches, you take a penalty and you have to draw some extra cards. The exact number of these extra cards depends on the numbers depicted on the two cards (the one you played and the one that was already on the table).\n- If they have the same color, then the penalty you take is equal to the difference of the two numbers.\n- If the color is also different, then the penalty is equal to the difference of the two numbers plus one.\nExample: It is Mike's turn. At the center of the table, the last face-up card shows Aphrodite having a red number 2. Mike plays a card from his hand with a green number 2, showing Hera. Since the card he played has the same number, he doesn't get a penalty and it is now Carla's turn.\nCarla doesn't have any cards in her hand with the number 2 so she plays a card depicting Poseidon with a green number 4. Since the numbers have the same color, the penalty she gets is only equal to their difference, so she draws 2 cards.\nNext it is John's turn who doesn't have any cards with the number 4 in his hand. However, he has a card with Poseidon and a blue number 1 which he plays. Since the god in the two cards is the same, he doesn't get a penalty and it is Mike's turn again. If the card was depicting a different god instead of Poseidon, then he would have to take a penalty of 4 cards - 3 from the difference of the two numbers and 1 more due to the different color.\nIn case the battle is so fierce that the deck is exhausted, keep the last played card on the table and shuffle the rest of the cards to form a new deck.\nThe winner of the game is the player who gets to empty his hand first!\nSpecial Powers\nSome of the cards in the game list a special ability on them. These are the gods' special powers that you can use in the heat of the battle to get an advantage over your opponents.\nIf you play a card with an ability on it, then - after checking if you take a penalty or not and drawing any cards needed - you get to perform the special power.\nSome special powers ask you to discard one or more cards from your hand. If you discard a card with a special power this way, you DO NOT apply its ability.\nAll cards discarded due to a special power are placed face-up on top of the cards already there. The next player will have to match the one that will end up on top.\nZeus\nCard number 2. Power: Choose another player. That player draws 2 cards.\nAres\nCard number 2. Power: Each other player draws 1 card.\nAthena\nCard number 1. Power: Discard half of the cards in your hand (round down).\nAfter playing this card and applying any penalty (if needed), count the remaining cards in your hand and discard half of them, round down (e.g., if you have 5 cards in hand, discard 2 of them).\nArtemis\nCard number 4. Power: Choose a number. Discard up to 2 cards with this number.\nDemeter\nCard number 2. Power: Choose a color. Discard up to 2 cards with this color.\nApollo\nCard number 1. Power: Reveal the top card of the deck. Choose either its color, number or god and discard up to 2 matching cards from your hand.\nWhen playing this card, you must choose one of the 3 characteristics (color, number or god) and discard up to 2 matching cards. You may not, for example, discard one card with the same color and one with the same number.\nAphrodite\nCard number 2. Power: Choose another player. That player skips his or her next turn.\nWhen you are the target of this power, put the cards in your hand face-down on the table. When your turn comes up, do not play a card but take the cards back in your hand. When your turn comes up again, you play as normal.\nHephaestus\nCard number 2. Power: Discard a card from your hand.\nHestia\nCard number 1. Power: You don't get any penalty when playing this card.\nHestia's super power is applied exactly when the card is played, thus no penalty is calculated.\nPoseidon\nCard number 1. Power: Choose a god. Discard up to 2 cards with this god.\nHera\nCard number 3. Power: Distribute the penalty for this card to the other players in any combination you want. Then draw 1 card.\nWhen playing this card, calculate the penalty that you would be normally getting. Then, instead of drawing these cards and putting them in your hand, draw them and without looking at them give them to the other players in any combination you want. You then draw 1 card for yourself.\nHermes\nCard number 3. Power: Copy the last special power played.\nWhen playing this card, look at the face-up cards and find the last one played (the one nearest to the top) with an ability on it. Apply that ability as if it was written on the card you played. If you use Hermes to copy Hestia's power, then it is applied immediately and you don't calculate any penalty."
