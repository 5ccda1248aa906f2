"""What every ruleset shares: the names of the rulesets, the ply cap and how a capped game ends."""

from __future__ import annotations

RULESETS = ("og", "fatality", "core", "south_african", "house", "omg")
DEFAULT_PLY_CAP = 5000
#: how a game that reaches the ply cap ends (R-CAP-TRUNCATE, R-CAP-MOST-CARDS): "truncate" (PettingZoo truncation: players still in get 0)
#: or "most_cards" (players still in are placed by the cards they hold, fewest first; the game is decided)
CAP_RULES = ("truncate", "most_cards")
