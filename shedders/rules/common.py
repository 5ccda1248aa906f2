"""What every ruleset shares: the ply cap and how a capped game ends (the rulesets are in ``registry``)."""

from __future__ import annotations

DEFAULT_PLY_CAP = 5000
#: how a game that reaches the ply cap ends (R-CAP-TRUNCATE, R-CAP-MOST-CARDS): "truncate" (PettingZoo truncation:
#: players still in get 0)
#: or "most_cards" (players still in are placed by the cards they hold, fewest first; the game is decided)
CAP_RULES = ("truncate", "most_cards")
