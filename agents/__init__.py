"""Agents for shedders: one batched interface, ``agent.act(observation, action_mask) -> actions``.

    import agents
    agent = agents.make("greedy", ruleset="core", num_players=4, seed=0)

Available now: ``random``, ``greedy``, ``expert`` (seed 003's family, og and fatality), ``search`` and ``oracle``
(these two take the engine state too: ``agent.act(obs, mask, state=vg.state)``), ``ppo`` (a checkpoint of
``experiments.train_ppo``: ``ppo:checkpoint=PATH``, default the committed one for the ruleset), ``guided`` (the
determinized search over a network: its policy as prior and rollout policy, its value or critic at the leaves;
palace rulesets, engine state needed; ``agents/guided.py``), ``champion`` (the strongest of them per table,
``agents/champion.py``), ``learned`` (the strongest network per table, from the observation alone,
``agents/learned.py``), ``fictive`` (a ``train_ppo --view full`` network that reads every seat's observation: a
fictive player for skill versus luck, ``agents/fictive.py``) and ``dmc`` (a Q-network of ``experiments.train_dmc``,
Deep Monte Carlo, ``agents/dmc.py``). omg has its own
``greedy``, ``expert``, ``search`` and ``oracle`` (``agents/omg_*.py``), and ``random`` and ``ppo``.
``make_spec("search:budget=64")`` builds an agent from a command-line spec. A spec may also name a class written
outside this package (``my_pkg.my_module:MyAgent``, ``path/to/file.py:MyAgent``, each optionally followed by
``:key=value+key=value``) or an agent an installed package offers through the entry-point group
``shedders.agents``: see ``agents/outside.py``.
"""

from __future__ import annotations

import inspect

from agents.base import Agent, as_aec_policy, check_batch
from agents.champion import ChampionAgent
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.omg_expert import OmgExpertAgent
from agents.omg_greedy import OmgGreedyAgent
from agents.omg_search import OmgOracleAgent, OmgSearchAgent
from agents.outside import AgentError, CheckedAgent, looks_outside
from agents.random_agent import RandomAgent
from agents.search import OracleAgent, SearchAgent
from shedders.rules import lookup, make_rules


def _ppo_agent(ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """``agents.ppo.PPOAgent``, imported on first use (so ``python -m agents.ppo export`` runs it only once)."""
    from agents.ppo import PPOAgent

    return PPOAgent(ruleset, num_players, seed=seed, **options)


def _guided_agent(ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """``agents.guided.GuidedSearchAgent``, imported on first use (it needs torch)."""
    from agents.guided import GuidedSearchAgent

    return GuidedSearchAgent(ruleset, num_players, seed=seed, **options)


def _fictive_agent(ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """``agents.fictive.FictiveAgent``, imported on first use (it needs torch)."""
    from agents.fictive import FictiveAgent

    return FictiveAgent(ruleset, num_players, seed=seed, **options)


def _dmc_agent(ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """``agents.dmc.DMCAgent``, imported on first use (it needs torch)."""
    from agents.dmc import DMCAgent

    return DMCAgent(ruleset, num_players, seed=seed, **options)


def _learned_agent(ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """``agents.learned.LearnedAgent``, imported on first use (it needs torch)."""
    from agents.learned import LearnedAgent

    return LearnedAgent(ruleset, num_players, seed=seed, **options)


_LAZY = {_ppo_agent: ("agents.ppo", "PPOAgent"), _guided_agent: ("agents.guided", "GuidedSearchAgent"),
         _learned_agent: ("agents.learned", "LearnedAgent"), _fictive_agent: ("agents.fictive", "FictiveAgent"),
         _dmc_agent: ("agents.dmc", "DMCAgent")}


def __getattr__(name):  # ``agents.PPOAgent`` is still the class, imported when first asked for
    if name == "PPOAgent":
        from agents.ppo import PPOAgent

        return PPOAgent
    raise AttributeError(f"module 'agents' has no attribute {name!r}")

OMG_AGENTS = {"random": RandomAgent, "greedy": OmgGreedyAgent, "expert": OmgExpertAgent, "search": OmgSearchAgent,
              "oracle": OmgOracleAgent, "ppo": _ppo_agent, "champion": ChampionAgent, "learned": _learned_agent,
              "dmc": _dmc_agent}
REGISTRY = {"random": RandomAgent, "greedy": GreedyAgent, "expert": ExpertAgent, "search": SearchAgent,
            "oracle": OracleAgent, "ppo": _ppo_agent, "guided": _guided_agent, "champion": ChampionAgent,
            "learned": _learned_agent, "fictive": _fictive_agent, "dmc": _dmc_agent}
#: each family's agents (``REGISTRY`` is the palace family's and names every agent)
AGENTS_BY_FAMILY = {"palace": REGISTRY, "omg": OMG_AGENTS}

__all__ = [
    "REGISTRY",
    "Agent",
    "AgentError",
    "ChampionAgent",
    "ExpertAgent",
    "GreedyAgent",
    "OracleAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_class",
    "agent_options",
    "as_aec_policy",
    "check_batch",
    "check_options",
    "is_outside",
    "make",
    "make_spec",
    "offered_agents",
    "parse_agent",
]


def is_outside(name: str) -> bool:
    """Whether agent ``name`` (a spec's name part) is not built in: an outside class or an entry point's name."""
    return name not in REGISTRY


def agent_class(name: str, ruleset: str):
    """The class (or factory) that builds agent ``name`` for ``ruleset``: a built-in agent, an outside class
    (``pkg.mod:Cls``, ``file.py:Cls``) or an installed entry point's; ``ValueError`` for an unknown name."""
    if is_outside(name):
        from agents import outside

        if ":" not in name and name not in outside.offered():
            raise ValueError(f"unknown agent {name!r}; available: {', '.join(REGISTRY)} (and outside classes, "
                             f"module:Class or file.py:Class, or entry points of {outside.ENTRY_POINT_GROUP})")
        return outside.load_class(name)
    offered = offered_agents(ruleset)
    if name not in offered:
        raise ValueError(f"agent {name!r} is not available for {ruleset} yet; available for {ruleset}: "
                         f"{', '.join(offered)}")
    return offered[name]


def offered_agents(ruleset: str) -> dict:
    """The agents ``ruleset``'s family has, by name (``ValueError`` for an unknown ruleset)."""
    return AGENTS_BY_FAMILY[lookup(ruleset).family]


def agent_options(name: str, ruleset: str = "core") -> list[str]:
    """The option names agent ``name`` takes for ``ruleset``: its own (``budget``, ``checkpoint``, ...) and the
    ruleset's (``base``, ``rules``, ``ply_cap``, ``deck``), read off the constructors' signatures."""
    factory = agent_class(name, ruleset)
    if is_outside(name):
        from agents.outside import constructor_takes

        return sorted(constructor_takes(factory)[0] - {"self", "ruleset", "num_players", "seed"})
    if factory in _LAZY:
        import importlib

        module, cls = _LAZY[factory]
        factory = getattr(importlib.import_module(module), cls)
    skip = {"self", "ruleset", "num_players", "seed"}
    names = []
    # Python functions only: a builtin's signature (object.__init__'s) is parsed from text with ast.parse, which
    # CPython 3.11 does not make thread-safe (the web app builds agents on worker threads), and it names no option.
    inits = [c.__init__ for c in factory.__mro__ if "__init__" in vars(c) and inspect.isfunction(c.__init__)]
    for f in inits + [make_rules]:
        for p in inspect.signature(f).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in skip and p.name not in names:
                names.append(p.name)
    return names


def check_options(name: str, ruleset: str, options: dict) -> None:
    """``ValueError`` naming the first option agent ``name`` does not take, and listing the ones it does."""
    valid = agent_options(name, ruleset)
    for key in options:
        if key not in valid:
            raise ValueError(f"unknown option {key!r} for agent {name!r}; valid options: {', '.join(valid)}")


#: the options of a table, not of an agent: an outside agent gets them only when its constructor takes them
GAME_OPTIONS = ("base", "rules", "ply_cap", "cap_rule", "deck")


def make(name: str, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """The agent called ``name`` for ``ruleset`` at ``num_players``; ``ValueError`` for an unknown name or option
    (naming it and listing the valid ones) and for a bad option value. ``name`` may name an outside class
    (``pkg.mod:Cls``, ``file.py:Cls``) or an installed entry point: see ``agents/outside.py``; such an agent is
    wrapped so that it can only answer legal actions (``AgentError``, a ``ValueError``, otherwise)."""
    if is_outside(name):
        from agents import outside

        agent_class(name, ruleset)  # an unknown bare name: the built-in names listed
        game = {k: v for k, v in options.items() if k in GAME_OPTIONS}
        own = {k: v for k, v in options.items() if k not in GAME_OPTIONS}
        return outside.build(name, ruleset, num_players, seed, own, game)
    factory = agent_class(name, ruleset)
    check_options(name, ruleset, options)
    try:
        return factory(ruleset, num_players, seed=seed, **options)
    except TypeError as e:  # an option of the wrong type ("search:eps=abc")
        raise ValueError(f"agent {name!r}: bad option value ({e})") from None


def parse_agent(spec: str) -> tuple[str, dict]:
    """``"search:budget=128+eps=0.1"`` -> ("search", {"budget": 128, "eps": 0.1}); an outside class keeps its
    target in the name: ``"pkg.mod:MyAgent:depth=3"`` -> ("pkg.mod:MyAgent", {"depth": 3}), and so does
    ``"dir/file.py:MyAgent"``. ``@label`` after the name (``greedy@2``, ``file.py:MyAgent@2``) is dropped."""
    name, _, opts = spec.partition(":")
    second, _, rest = opts.partition(":")
    if name not in REGISTRY and looks_outside(name, second.partition("@")[0]):
        name, opts = f"{name}:{second}", rest
        target, _, cls = name.rpartition(":")
        name = f"{target}:{cls.partition('@')[0]}"
    else:
        name = name.partition("@")[0]  # "greedy@2": a second greedy, reported under its own label
    options = {}
    for kv in filter(None, opts.split("+")):
        k, eq, v = kv.partition("=")
        if not eq:
            raise ValueError(f"agent option {kv!r} in {spec!r} must be key=value")
        for cast in (int, float, str):
            try:
                options[k] = cast(v)
                break
            except ValueError:
                continue
    return name, options


def make_spec(spec: str, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """An agent from a command-line spec such as ``"search:budget=64"`` or ``"greedy@2"`` (see ``parse_agent``)."""
    name, opts = parse_agent(spec)
    given = [k for k in opts if k in ("ruleset", "num_players", "seed") or k in options]
    if given:
        raise ValueError(f"agent spec {spec!r} sets {given[0]!r}, which the caller gives (ruleset, num_players, "
                         f"seed and the table's options are not agent options)")
    try:
        agent = make(name, ruleset, num_players, seed=seed, **opts, **options)
    except AgentError as e:  # name the whole spec, options and all
        raise AgentError(str(e).replace(f"agent {name!r}", f"agent {spec!r}", 1), e.kind) from None
    if isinstance(agent, CheckedAgent):
        agent.spec = agent.name = spec
    return agent
