"""The omg ruleset, version 0. The module docstring is generated: see `help(omg_v0)`."""

import itertools

from shedders.engine.omg.layout import action_layout
from shedders.envs import omg_env
from shedders.rules import lookup, make_rules


def _doc() -> str:
    record = lookup("omg")
    rules = make_rules("omg", 4)
    names = omg_env.action_names(rules)
    lay = action_layout(rules.deck.num_types)
    table = ["| ids | names |", "|---|---|"]
    keys = ["play", "target", "number", "color", "god", "attribute", "discard", "stop", "give", "n_actions"]
    for k, nxt in itertools.pairwise(keys):
        lo, hi = lay[k], lay[nxt] - 1
        table.append(f"| {lo}-{hi} | `{names[lo]}` ... `{names[hi]}` |" if hi > lo
                     else f"| {lo} | `{names[lo]}` |")
    return "\n".join([
        record.title, "",
        "```python", "from shedders.envs import omg_v0", ("env = omg_v0.env(num_players=4, render_mode=None, "
        "ply_cap=5000, cap_rule=\"truncate\", deck=None)"), "```", "",
        "## How shedders reads the rules", "", record.doc("specs"), "",
        "## Rewards", "", ("Winner +1, every other player -1/(N-1), on the step the game ends; truncated: 0. With "
        "`cap_rule=\"most_cards\"` too: in omg a game at the ply cap has no winner (every player 0), as the "
        "public interface specifies; it is flagged truncated either way."), "",
        f"## Actions ({lay['n_actions']} with the default deck)", "", *table, "",
        "## Observation (4 players, default deck)", "", omg_env.observation_table(4), "",
        "## The seed's text", "", record.doc("seed_text"),
    ])


def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The omg AEC env, wrapped as PettingZoo does; its docs page is the module's: help(shedders.envs.omg_v0)."""
    return omg_env.env(num_players, render_mode, **kwargs)


def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The omg AEC env, unwrapped; its docs page is the module's: help(shedders.envs.omg_v0)."""
    return omg_env.raw_env(num_players, render_mode, **kwargs)


__doc__ = _doc()
