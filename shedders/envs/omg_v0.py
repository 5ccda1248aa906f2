"""The omg ruleset, version 0. The module docstring is generated: see `help(omg_v0)`."""

from shedders.engine.omg.layout import action_layout
from shedders.envs import _docs, omg_env
from shedders.rules import make_rules

READINGS = """- 2-8 players, 6 cards each; the deck's top card opens the pile (its power does not fire); the first player is
  drawn at random from the game's own stream.
- The deck is a data file (`shedders/data/omg_deck.csv`, 96 cards: 12 gods x 8, two of each color per god, numbers
  1-4, the god's two cards numbered as the seed's "Card number N" carry its power). The spread over colors and
  numbers is an assumption (R-OMG-DECK in docs/rulings.md): the published game does not list it. `deck=PATH`
  loads another file; a malformed one is refused with the line at fault.
- Any card may be played. It strikes when it matches the top card's number or god; otherwise the player draws
  |difference of the numbers|, plus 1 when the colors differ, counted against the card on top before the play.
  Hestia (and Hermes copying Hestia) takes no penalty.
- After the penalty the power resolves, every choice its own decision: `target +k` (Zeus: that player draws 2;
  Aphrodite: that player loses their next turn, not stacking), `number n` / `color C` / `god G` (Artemis,
  Demeter, Poseidon: only values found in the hand), `attribute number|color|god` (Apollo: reveals the deck's top
  card, which stays on the deck and stays revealed while it is the top; only attributes some hand card shares),
  `discard CARD` (one card at a time, face up onto the pile, its power never firing; Athena discards half the
  hand rounded down and Hephaestus one card, not optionally; the "up to 2" powers offer `stop` before each
  discard and end after 2 or when nothing matches), `give +k` (Hera: each penalty card dealt unseen to a player of
  her choice, one decision per card, then she draws 1). Ares (each other player draws 1, clockwise from the left)
  is automatic.
- Hermes copies the power of the card nearest the top of the pile below it that has one, skipping Hermes cards;
  opening and discarded cards count; none: no effect. Copying Hera, it deals the Hermes card's own penalty.
- An empty deck is rebuilt from the pile under its top card, shuffled, only when a card is needed; when no card
  is left anywhere, a draw takes what there is and Hera's remaining cards are dropped.
- A power still resolves when its card emptied the hand. The first player with an empty hand at the end of their
  own turn wins: +1, every other player -1/(N-1). A lost turn passes by itself (with two players, the Aphrodite
  player plays again). A game reaching the ply cap (default 5000 decisions) is truncated: everyone gets 0.
- Observations (relative seats): own hand, the pile's top and every card in the pile, the powered cards in the
  pile and what a Hermes would copy, every hand size, deck size, Apollo's revealed card, the pending decision
  (which power, what was chosen, discards or cards left, whether `stop` is legal), lost turns, whose turn it is.
  Nobody sees another hand or the deck order; Hera's cards are dealt unseen by her.
"""


def _doc() -> str:
    rules_text = _docs.SEED_001_OMG
    rules = make_rules("omg", 4)
    names = omg_env.action_names(rules)
    lay = action_layout(rules.deck.num_types)
    table = ["| ids | names |", "|---|---|"]
    keys = ["play", "target", "number", "color", "god", "attribute", "discard", "stop", "give", "n_actions"]
    for k, nxt in zip(keys, keys[1:]):
        lo, hi = lay[k], lay[nxt] - 1
        table.append(f"| {lo}-{hi} | `{names[lo]}` ... `{names[hi]}` |" if hi > lo else f"| {lo} | `{names[lo]}` |")
    return "\n".join([
        "# omg: the god-themed matching game (seed 001)", "",
        "```python", "from shedders.envs import omg_v0", "env = omg_v0.env(num_players=4, render_mode=None, "
        "ply_cap=5000, cap_rule=\"truncate\", deck=None)", "```", "",
        "## How shedders reads the rules", "", READINGS,
        "## Rewards", "", "Winner +1, every other player -1/(N-1), on the step the game ends; truncated: 0. With "
        "`cap_rule=\"most_cards\"` too: in omg a game at the ply cap has no winner (every player 0), as the "
        "public interface specifies; it is flagged truncated either way.", "",
        f"## Actions ({lay['n_actions']} with the default deck)", "", *table, "",
        "## Observation (4 players, default deck)", "", omg_env.observation_table(4), "",
        "## The seed's text", "", rules_text,
    ])


def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The omg AEC env, wrapped as PettingZoo does; its docs page is the module's: help(shedders.envs.omg_v0)."""
    return omg_env.env(num_players, render_mode, **kwargs)


def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The omg AEC env, unwrapped; its docs page is the module's: help(shedders.envs.omg_v0)."""
    return omg_env.raw_env(num_players, render_mode, **kwargs)


__doc__ = _doc()
