"""The palace engine (og, fatality, core, south_african, house), one module per rule area.

``layout`` (constants, action ids, state, observation layout), ``cards`` (what a rank does, zones, moving cards),
``deal`` (the deal, the opening, the loser's tax), ``legal`` (the action mask), ``windows`` (Joker standoffs,
og's sneak windows), ``play`` (applying a decision: plays, flips, pickups, the cap), ``observe`` (the observation
vector), ``batch`` (the entry points: one game for the AEC env, a batch over threads for ``VectorGame``).

Single-game kernels take ``(s, g, params)``: ``s`` a :class:`~shedders.engine.palace.layout.PalaceState`, ``g`` the
game's row, ``params`` the int64 array of :meth:`shedders.rules.palace.PalaceRules.to_params`. Kernels never see
strings, dataclasses or RNG objects; every random draw comes from the game's own stream, so results do not depend
on the batch size or the thread count. Rules are cited as ``seed 000`` / ``seed 002`` / ``seed 003`` (quoted in
the ruleset docs pages) and ``R-...`` (the rulings in docs/rulings.md).

Every public name of the submodules is importable from here too.
"""

from shedders.engine.palace.batch import *
from shedders.engine.palace.cards import *
from shedders.engine.palace.deal import *
from shedders.engine.palace.layout import *
from shedders.engine.palace.legal import *
from shedders.engine.palace.observe import *
from shedders.engine.palace.play import *
from shedders.engine.palace.windows import *
from shedders.engine.rng import *
