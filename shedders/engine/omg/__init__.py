"""The omg engine (seed 001), one module per rule area.

``layout`` (gods, phases, the named action bases, state, observation layout), ``cards`` (moving cards, the deck
rebuilt from the pile, penalties), ``turns`` (the end of a turn, lost turns, the cap), ``legal`` (the action mask),
``powers`` (the gods' powers and their choices), ``step`` (the deal and applying a decision), ``observe``,
``batch`` (the entry points for ``VectorGame``).

One decision at a time, always by the player whose turn it is (``turn``): the play, then each choice a power asks
for. ``step_nb`` applies a decision and resolves everything automatic until the next decision: penalties and
draws, rebuilding the deck, Ares, Hestia, Hera's own draw, lost turns, the end of the game.

Every public name of the submodules is importable from here too.
"""

from shedders.engine.omg.batch import *
from shedders.engine.omg.cards import *
from shedders.engine.omg.layout import *
from shedders.engine.omg.legal import *
from shedders.engine.omg.observe import *
from shedders.engine.omg.powers import *
from shedders.engine.omg.step import *
from shedders.engine.omg.turns import *
from shedders.engine.rng import *
