"""``learned``: the strongest network shipped for a table, deciding from its observation alone (no search, no
engine state).

    agent = agents.make("learned", ruleset="core", num_players=4)

It is the table's network in ``NETWORKS`` where one is there: a network that beat the table's committed ``ppo`` on
fresh duplicate deals (core, fatality, og, omg and south_african at 4 players: the champion's search distilled
into a network by ``experiments.train_distill``, played at temperature 0.1, south_african's at 0.3; core's and
fatality's then fine-tuned by ``experiments.train_ppo --temperature 0.1``; house without toggles plays core's).
Elsewhere it is the committed ``ppo`` checkpoint of the table (``agents/checkpoints/<ruleset>-<n>p.pt``, trained by
``experiments.train_ppo``). The commands, training cost and strength of each are in ``experiments/RESULTS.md``.
``agent.chosen`` names what a table got (the checkpoint, and its searched labels or engine steps of training); a
better network replaces the one there, measured against it. ``temperature`` (default: the network's own, 1 for a
``ppo`` checkpoint), ``ready_floor`` (default: the network's own where it has one, else ``ppo``'s) and ``sample``
are ``ppo``'s options.

``cycle_break`` (default: the network's own, else 0) is ``ppo``'s option too: ``greedy``'s rule 6 for a network
(``agents/ppo.py``); where ``expert`` plays the table, expert's own rule 6.

At a table with no committed network (another player count, ``house`` with its toggles on) ``learned`` falls back
to ``expert``, the strongest heuristic that also decides from the observation alone, and ``chosen`` says so
(``"expert (no network for this table)"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.omg_expert import OmgExpertAgent
from shedders.rules import lookup

#: each family's fallback where a table has no network
EXPERTS = {"palace": ExpertAgent, "omg": OmgExpertAgent}


@dataclass(frozen=True)
class Network:
    """A committed network that ``learned`` plays ahead of the table's ``ppo``."""

    file: str  # in agents/checkpoints
    temperature: float  # the policy's temperature it plays at unless told otherwise
    why: str  # what it was measured against, on which deals
    ready_floor: float | None = None  # ppo's ``ready_floor`` it plays with unless told otherwise (None: ppo's)
    cycle_break: float = 0.0  # greedy's rule 6 with this probability unless told otherwise (palace family)


#: the networks ``learned`` plays ahead of the table's ``ppo`` checkpoint, by (ruleset, players): each one beat
#: that ``ppo`` on fresh duplicate deals (``experiments/RESULTS.md``, "Learned agents: the search distilled into a
#: network")
NETWORKS: dict[tuple[str, int], Network] = {
    ("core", 4): Network(
        "distill-ppo-core-4p.pt", temperature=0.1, ready_floor=0.05,
        why="the search distilled (experiments.train_distill: 10 DAgger rounds, 1,564,348 decisions labelled by "
            "champion:time_budget=0.005, then refit: distill-core-4p.pt), then fine-tuned by PPO at the "
            "temperature it plays at (train_ppo --temperature 0.1 --ready-floor 0.05 --lr 1e-5: 35.4M engine "
            "steps, 45 min on one thread), then against three expert alone (--lr 3e-5 --self-play 0 --pool "
            "expert: 214.4M engine steps, 85 min), then in a mixed pool (a quarter self-play, its newest three "
            "snapshots beside expert: 133.7M engine steps, 96 min on one thread): against three expert on 1,500 "
            "fresh deals +0.157 [+0.146, +0.167] a game, paired -0.003 [-0.017, +0.011] against the network "
            "before it (seeds 8911-8913), and its best response wins -0.008 [-0.031, +0.015] from it where the "
            "network before it lost +0.072 (seed 8821)"),
    ("fatality", 4): Network(
        "distill-ppo-fatality-4p.pt", temperature=0.1, ready_floor=0.05,
        why="the search distilled (experiments.train_distill: 8 DAgger rounds, 693,598 decisions labelled by "
            "champion:time_budget=0.005, then refit on the 665,160 not held out: distill-fatality-4p.pt), then "
            "fine-tuned by PPO at the temperature it plays at (train_ppo --temperature 0.1 --ready-floor 0.05 "
            "--lr 3e-5: 31.7M engine steps, 45 min on one thread), then again against three expert alone "
            "(--self-play 0 --pool expert: 139.6M engine steps, 55 min on one thread): against three expert on "
            "1,000 fresh deals +0.322 [+0.303, +0.341] a game, paired +0.025 [+0.001, +0.049] over the network "
            "before it (seeds 8881 and 8896); that one scored +0.325 [+0.298, +0.352] (seed 8851)"),
    ("og", 4): Network(
        "distill-og-4p.pt", temperature=0.1, cycle_break=0.02,
        why="the search distilled (experiments.train_distill --teacher champion:time_budget=0.01: 8 DAgger "
            "rounds, 749,051 decisions labelled by og's search champion, then refit on the 720,085 not held "
            "out): two against two with expert on 1,000 fresh deals, a margin over expert of +0.119 [+0.099, "
            "+0.140] a seat where the committed ppo gets +0.045 [+0.024, +0.066]; two against two with the DAgger "
            "network before the refit +0.029 [+0.010, +0.048] a seat (seed 8804). cycle_break 0.02: four copies "
            "alone capped 0.55% of 4,000 games, not 3.2-4.6%; two against two with expert +0.119 [+0.098, +0.140] "
            "a seat, level with the network without it (paired +0.007 [-0.011, +0.024], seed 8806)"),
    ("omg", 4): Network(
        "distill-omg-4p.pt", temperature=0.1,
        why="the search distilled (experiments.train_distill: 10 DAgger rounds, 287,785 decisions labelled by "
            "champion:time_budget=0.005, then refit on the 275,021 not held out): two against two with expert on "
            "1,000 fresh deals, a margin over expert of +0.087 [+0.065, +0.109] a seat where the committed ppo "
            "gets +0.035 [+0.014, +0.055]; against three expert +0.074 a game (ppo +0.031); two against two with "
            "the 5-round network before it +0.023 [+0.003, +0.042] a seat (seed 8804)"),
    ("south_african", 4): Network(
        "distill-south_african-4p.pt", temperature=0.3, ready_floor=0.05, cycle_break=0.05,
        why="the guided champion distilled (experiments.train_distill --temperature 0: 7 DAgger rounds, 1,613,327 "
            "decisions labelled by champion:time_budget=0.005, a 512-wide network); chosen on seed 501 among "
            "temperatures 0.3 and 0.5 with cycle_break 0.02 and 0.05 (without cycle_break 4-10% of its games "
            "capped in Joker stand-offs): two against two with expert on 1,000 fresh deals, a margin over expert "
            "of +0.051 [+0.031, +0.071] a seat where the committed ppo gets +0.018 [-0.002, +0.038], paired "
            "+0.033 [+0.005, +0.061]; 0.1% of games capped (seed 8807)"),
}


def network_for(ruleset: str, num_players: int, **options) -> tuple[Path, Network] | None:
    """The committed network of ``NETWORKS`` that plays the table (a ruleset on bases plays its base's where it
    plays the base's game), or None."""
    from agents.ppo import CHECKPOINTS, same_game

    for name in (ruleset, *lookup(ruleset).bases):
        net = NETWORKS.get((name, num_players))
        if net is not None and (name == ruleset or same_game(name, ruleset, num_players, **options)):
            return CHECKPOINTS / net.file, net
    return None


class LearnedAgent(Agent):
    """The table's strongest committed network, or ``expert`` where it has none."""

    name = "learned"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, sample: bool = True,
                 temperature: float | None = None, ready_floor: float | None = None, device: str = "cpu",
                 cycle_break: float | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        from agents.ppo import PPOAgent, default_checkpoint  # torch, imported on first use

        found = network_for(ruleset, num_players, **options)
        if found is not None:
            path, net = found
            floor = net.ready_floor if ready_floor is None else ready_floor
            self.inner = PPOAgent(ruleset, num_players, seed=seed, checkpoint=str(path), sample=sample,
                                  temperature=net.temperature if temperature is None else temperature,
                                  device=device, **({} if floor is None else {"ready_floor": floor}),
                                  cycle_break=net.cycle_break if cycle_break is None else cycle_break, **options)
            labels, steps = self.inner.counters.get("labels"), self.inner.counters.get("global_step")
            tail = (f", {labels:,} searched labels)" if labels else
                    f", then {steps:,} engine steps of PPO)" if steps else ")")
            self.chosen = f"distilled ({path}{tail}"
        elif default_checkpoint(ruleset, num_players, **options).exists():
            self.inner = PPOAgent(ruleset, num_players, seed=seed, sample=sample,
                                  temperature=1.0 if temperature is None else temperature, device=device,
                                  **({} if ready_floor is None else {"ready_floor": ready_floor}),
                                  cycle_break=0.0 if cycle_break is None else cycle_break, **options)
            steps = self.inner.counters.get("global_step")
            self.chosen = f"ppo ({self.inner.path}" + (f", {steps:,} engine steps)" if steps else ")")
        else:
            self.inner = EXPERTS[lookup(ruleset).family](
                ruleset, num_players, seed=seed, **({} if cycle_break is None else {"cycle_break": cycle_break}),
                **options)  # with expert's own rule 6
            self.chosen = "expert (no network for this table)"

    @property
    def has_network(self) -> bool:
        """Whether a network plays the table (not the ``expert`` fallback)."""
        return hasattr(self.inner, "probabilities")

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The network's policy (``PPOAgent.probabilities``); ``ValueError`` where ``expert`` plays the table."""
        if not self.has_network:
            raise ValueError(f"learned has no network for {self.ruleset} at {self.num_players} players")
        return self.inner.probabilities(observation, action_mask)

    @property
    def cycle_break(self) -> float:
        """The ``cycle_break`` the table's player plays with (a network's, or ``expert``'s own rule 6)."""
        return self.inner.cycle_break

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return self.inner.act(observation, action_mask)
