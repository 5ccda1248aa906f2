"""Measure how much of each ruleset is skill and how much is luck.

    python -m experiments.skill_luck --ruleset og --players 4
    python -m experiments.skill_luck --all --deals 200 --workers 2

For each ruleset the script plays a set of duplicate tournaments (``experiments.tournament``: the same deals in
every seat rotation) and computes four measures, each with a 95% interval (methods, formulas and references:
``experiments/README.md``):

1. win rate and mean placing of each agent in a field of ``random`` agents and in a field of copies of itself,
   against the luck-only baseline (the share of seats that win a game: 1/N in og and fatality, (N-1)/N in the
   Shithead rulesets, where everyone but the Shithead wins);
2. relative skill (Dreef, Borm and van der Genugten 2004): learning effect over learning plus random effect, in
   expected reward, with ``oracle`` as the fictive player who knows the chance outcomes;
3. the number of games the better of two agents needs to lead with 95% confidence (in the spirit of Duersch,
   Lambrecht and Oechssler 2020), and the spread of ratings between the strongest and the weakest agent;
4. the share of the variance of a seat's reward explained by the cards it was dealt, by the agent, and the rest.

Writes ``runs/<name>/report.md``, ``report.json`` and plots; every tournament is saved chunk by chunk, so a killed
run picks up where it stopped. This module plays the tournaments; the measures are ``experiments.skill_measures``,
the report ``experiments.skill_report`` (their names are importable from here too).
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import agents as agents_pkg
import shedders
from experiments import tournament as T
from experiments.skill_measures import (
    agent_stats,
    budget_gain,
    certified,
    elo_gap,
    focal_layout,
    head_to_head,
    lead_measure,
    learning_tiers,
    luck_baseline,
    pair_scores,
    per_deal_reward,
    plateaued,
    rating_spread,
    relative_skill,
    relative_skill_from_rows,
    reward_lead,
    seat_effects,
    seat_win_rates,
    spec_label,
    table_layout,
    variance_components,
    variance_shares,
)
from experiments.skill_report import plot, report_markdown
from experiments.stats import games_to_lead, normal_games_to_lead
from shedders.commandline import build_parser, config_from
from shedders.rules.registry import members

#: the measures and the report, importable from here as before the split
__all__ = ["Config", "agent_stats", "budget_gain", "certified", "elo_gap", "focal_layout", "games_to_lead",
           "head_to_head", "lead_measure", "learning_tiers", "luck_baseline", "main", "measure_ruleset",
           "modelled", "normal_games_to_lead", "pair_scores", "per_deal_reward", "plateaued", "plot",
           "rating_spread", "relative_skill", "relative_skill_from_rows", "report_markdown", "reward_lead", "run",
           "seat_effects", "seat_win_rates", "spec_budget", "table_layout", "variance_components",
           "variance_shares", "with_budget"]

PALACE_RULESETS = members("palace")  # ``--all``: the palace family, in the package's order

Z95_ONE_SIDED = 1.6448536269514722  # P(Z < z) = 0.95: "leads with 95% confidence"


@dataclass
class Config:
    """What to measure. Every run is reproducible from ``seed``."""

    rulesets: list[str] = field(default_factory=lambda: ["og"])
    """rulesets to measure, comma separated (--all: every palace ruleset)"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["random", "greedy", "expert", "search:budget=64"])
    """real players, beginner first (options as in the tournament); neighbours are compared in measure 3"""
    oracle: str = "oracle:budget=64"
    """the fictive player of measure 2 ('' for none: no relative skill)"""
    field_agent: str = "greedy"
    """the reference field of relative skill (as well as the field of random agents)"""
    copies: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"])
    """agents measured in a field of copies of themselves (measure 1)"""
    deals: int = 100
    """deals per tournament; each is played in every seat rotation"""
    seed: int = 0
    """the seed of every tournament's deals"""
    workers: int = 1
    """processes per tournament"""
    chunk: int = 32
    """deals per chunk (the tournament's unit of work and seeding)"""
    bootstrap: int = 2000
    """resamples of deals for the intervals of ratios"""
    out: str = "runs"
    """the folder that holds the run directory"""
    name: str | None = None
    """the run directory's name (default: skill_luck-<players>p-seed<seed>)"""
    ply_cap: int = 5000
    """decisions after which a game is capped"""
    cap_rule: str = "truncate"
    """how a game at the cap ends: truncate or most_cards (see the tournament's --help)"""
    model_field: bool = False
    """the oracle's rollouts play the other seats as the field it sits at does (opponents=...), so it best-responds
    to that field. Off by default: against random players the rollouts of core and south_african rarely end within
    their 400 decisions (one such tournament, core, 80 deals, had not saved its first 16-deal chunk after more than
    5 minutes on two workers)"""
    beginners: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """relative skill with each of these as the beginner (those among --agents), side by side"""
    certify: bool = False
    """certify the fictive player: double the oracle's budget (from its spec's) until a paired test on the same
    deals shows a doubling buys less than --certify-tol (the interval's upper end below it), at most up to
    --max-budget; implies --model-field"""
    certify_tol: float = 0.01
    """the certification's tolerance on what a doubling may still buy"""
    max_budget: int = 1024
    """the certification's largest oracle budget"""
    split: bool = True
    """choose the best real player on even deals and measure relative skill on odd ones (--no-split: on the same
    deals, the first report's way)"""
    oracle_fields: list[str] = field(default_factory=lambda: ["greedy", "random"])
    """the fields in which the fictive player is played (the others get only the bound by the best payoff)"""
    best_response_steps: int = 0
    """train a best response from scratch in each field (the reference field and random): ``train_ppo`` for this
    many engine steps, one learner seat against the field's players, seeded by --seed (0: none). It joins that
    field's real players as ``best-response``, the strongest tier a field's own opponents can teach. Its run is
    kept in the run directory's ``best-response/`` and a rerun continues it instead of training again"""
    best_response_temperature: float = 0.1
    """the best response plays its policy sampled at this temperature (0.1: what the best responses of
    ``experiments/RESULTS.md``'s exploitability section chose on their selection deals); the fictive network too"""
    fictive_steps: int = 0
    """train a second fictive player in each of --oracle-fields: a network that reads every seat's observation
    (``train_ppo --view full``, the ``fictive`` agent) trained from scratch for this many engine steps against the
    field alone, as the best response is (0: none; palace rulesets). The bracket's upper end is then the relative
    skill with the stronger of the two fictive players, chosen on the even deals"""

    def run_name(self) -> str:
        return self.name or f"skill_luck-{self.players}p-seed{self.seed}"


# ----------------------------------------------------------------------------------------------------------------
# The measures, on game rows: {"deal", "seat_agent", "reward", "truncated"} lists, one entry per game
# ----------------------------------------------------------------------------------------------------------------
def with_budget(spec: str, budget: int) -> str:
    """``spec`` with its ``budget`` option set (``oracle:opponents=random`` ->
    ``oracle:opponents=random+budget=256``)."""
    _name, options = T.parse_agent(spec)
    label = spec.partition(":")[0]
    options["budget"] = int(budget)
    return label + ":" + "+".join(f"{k}={v}" for k, v in options.items())


def spec_budget(spec: str, ruleset: str = "core") -> int:
    """The ``budget`` a search-type spec names, else its agent's default for ``ruleset``."""
    name, options = T.parse_agent(spec)
    if "budget" in options:
        return int(options["budget"])
    return int(inspect.signature(agents_pkg.agent_class(name, ruleset).__init__).parameters["budget"].default)


def modelled(spec: str, field: str, ruleset: str) -> str:
    """The fictive player's spec for a table of ``field`` players: its rollouts play the other seats as the field
    does (``opponents=``), so it best-responds to the table it sits at, as the relative-skill measure assumes.
    Left as given where the spec names its own model, or the engine has none for that field (omg's search rolls
    out expert for every seat)."""
    name, options = T.parse_agent(spec)
    models = getattr(agents_pkg.agent_class(name, ruleset), "opponent_models", {})
    if "opponents" in options or field not in models or len(models) < 2:  # given, or no choice of model
        return spec
    return f"{spec}{'+' if ':' in spec else ':'}opponents={field}"


_label = spec_label


def _tournament(cfg: Config, ruleset: str, agents: list[str], lineup: list[int] | None,
                progress: bool) -> dict:
    tc = T.Config(ruleset=ruleset, players=cfg.players, agents=agents, games=cfg.deals, seed=cfg.seed,
                  workers=cfg.workers, out=str(Path(cfg.out) / cfg.run_name() / "tournaments"),
                  name=None, ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule, chunk=cfg.chunk, lineup=lineup)
    summary = T.run(tc, progress=progress)
    return summary


def measure_ruleset(cfg: Config, ruleset: str, progress: bool = True) -> dict:
    n = cfg.players
    rows: dict[str, dict] = {}
    summaries: dict[str, dict] = {}

    def play(tag, agents, lineup):
        s = _tournament(cfg, ruleset, agents, lineup, progress)
        rows[tag] = s["game_rows"]
        summaries[tag] = s
        return s

    real = [a for a in cfg.agents if _available(a, ruleset)]  # omg: random and greedy only, so far
    oracle = cfg.oracle if cfg.oracle and _available(cfg.oracle, ruleset) else None
    copies_ = [a for a in cfg.copies if _available(a, ruleset)]
    if len(real) < 2 or not _available(cfg.field_agent, ruleset):
        raise ValueError(f"{ruleset}: need two real agents and the field agent available; have {real}")
    if {BEST_RESPONSE, FICTIVE} & {_label(a) for a in real}:
        raise ValueError(f"{BEST_RESPONSE!r} and {FICTIVE!r} name the trained networks; no real player may take "
                         "them")
    names = [*real, *([oracle] if oracle else [])]
    fields = list(dict.fromkeys(["random", cfg.field_agent]))
    # a best response trained from scratch against each field: a real player of that field only
    responders = {fld: best_response(cfg, ruleset, fld, progress) for fld in fields} if cfg.best_response_steps \
        else {}
    # a perfect-information network trained against each oracle field: a second fictive player there
    fictives = ({fld: best_response(cfg, ruleset, fld, progress, view="full")
                 for fld in fields if fld in cfg.oracle_fields}
                if cfg.fictive_steps and "fictive" in agents_pkg.offered_agents(ruleset) else {})
    # fields of copies (also the field of random for random, and of the reference field for itself)
    for spec in dict.fromkeys([*copies_, "random", cfg.field_agent]):
        play(f"copies-{_label(spec)}", [spec], [0] * n)
    # one seat in a field of random agents / of the reference field; the oracle best-responds to that field
    for fld in fields:
        for spec in names:
            if spec == oracle and fld not in cfg.oracle_fields:
                continue
            if _label(spec) != fld:
                seat = modelled(spec, fld, ruleset) if spec == oracle and cfg.model_field else spec
                play(f"field-{fld}-{_label(spec)}", [seat, fld], [0] + [1] * (n - 1))
        if fld in responders:
            play(f"field-{fld}-{BEST_RESPONSE}", [responders[fld], fld], [0] + [1] * (n - 1))
        if fld in fictives:
            play(f"field-{fld}-{FICTIVE}", [fictives[fld], fld], [0] + [1] * (n - 1))
    # all real agents at one table, every hand played by each (measures 3 and 4)
    play("all", list(real), None)

    def one_seat(fld, spec):
        return rows[f"copies-{fld}"] if _label(spec) == fld else rows[f"field-{fld}-{_label(spec)}"]

    def field_runs_of(fld, specs):
        """The one-seat runs of ``specs`` in the field ``fld``, then the field's best response where trained."""
        runs_ = {_label(s): one_seat(fld, s) for s in specs}
        if fld in responders:
            runs_[BEST_RESPONSE] = rows[f"field-{fld}-{BEST_RESPONSE}"]
        return runs_

    baseline = luck_baseline(rows["copies-random"])
    played = set(rows)
    field_random = {_label(s): agent_stats(one_seat("random", s), 0) for s in names
                    if _label(s) == "random" or f"field-random-{_label(s)}" in played}
    field_ref = {_label(s): agent_stats(one_seat(cfg.field_agent, s), 0) for s in names
                 if _label(s) == cfg.field_agent or f"field-{cfg.field_agent}-{_label(s)}" in played}
    for stats_, fld in ((field_random, "random"), (field_ref, cfg.field_agent)):
        if fld in responders:
            stats_[BEST_RESPONSE] = agent_stats(rows[f"field-{fld}-{BEST_RESPONSE}"], 0)
    copies = {_label(s): {"win_rate": agent_stats(rows[f"copies-{_label(s)}"], 0),
                          "seats": seat_win_rates(rows[f"copies-{_label(s)}"])} for s in copies_}
    skill, skill_by_beginner, certification = {}, {}, {}  # no fictive player for this ruleset: no relative skill
    beginners = [b for b in cfg.beginners if b in [_label(x) for x in real]] or [_label(real[0])]
    best_payoff = float(np.max(np.asarray(rows["copies-random"]["reward"], float)))  # the game's top reward
    bound, tiers = {}, {}
    for fld in dict.fromkeys([cfg.field_agent, "random"]):
        runs = field_runs_of(fld, real)
        labels_ = [k for k in runs]
        tiers[fld] = {b: learning_tiers(runs, b, labels_, cfg.split) for b in beginners}
        bound[fld] = {b: relative_skill_from_rows(runs, b, labels_, "best payoff", cfg.bootstrap,
                                                  cfg.seed, split=cfg.split, ceiling=best_payoff)
                      for b in beginners}
    for fld in [f for f in dict.fromkeys([cfg.field_agent, "random"]) if f in cfg.oracle_fields] if oracle else ():
        runs = field_runs_of(fld, names)
        labels_ = [k for k in runs if k != _label(oracle)]
        if cfg.certify:
            runs[_label(oracle)], certification[fld] = certify_oracle(cfg, ruleset, oracle, fld, runs, real, play)
        skill_by_beginner[fld] = {
            b: relative_skill_from_rows(runs, b, labels_, _label(oracle), cfg.bootstrap, cfg.seed, split=cfg.split)
            for b in beginners}
        skill[fld] = skill_by_beginner[fld][beginners[0]]
    fictive_skill, stronger = {}, {}
    for fld in fictives:
        runs = {**field_runs_of(fld, real), FICTIVE: rows[f"field-{fld}-{FICTIVE}"]}
        labels_ = [k for k in runs if k != FICTIVE]
        fictive_skill[fld] = {b: relative_skill_from_rows(runs, b, labels_, FICTIVE, cfg.bootstrap, cfg.seed,
                                                          split=cfg.split) for b in beginners}
        stronger[fld] = FICTIVE
        if oracle and fld in skill_by_beginner:  # the stronger fictive player on the choosing deals
            keys, mine = per_deal_reward(runs[FICTIVE], 0)
            theirs = per_deal_reward(one_seat(fld, oracle) if not certification.get(fld) else
                                     rows[f"field-{fld}-oracle-b{certification[fld]['budgets'][-1]}"], 0)[1]
            pick = keys % 2 == 0 if cfg.split else np.ones(len(keys), bool)
            stronger[fld] = FICTIVE if mine[pick].mean() > theirs[pick].mean() else _label(oracle)
    seats = {_label(s): seat_effects(rows[f"copies-{_label(s)}"]) for s in copies_}
    capped = {tag: float(summaries[tag]["truncated_share"]) for tag in summaries}
    labels = [_label(s) for s in real]
    pairs = [(i + 1, i) for i in range(len(labels) - 1)] + ([(2, 0)] if len(labels) > 2 else [])
    lead = head_to_head(rows["all"], labels, pairs, cfg.bootstrap, cfg.seed)
    spread = rating_spread(summaries["all"]["agents"], real, rows["all"])
    field_runs = {_label(sp): one_seat(cfg.field_agent, sp) for sp in real}
    var = variance_shares(focal_layout(field_runs), min(cfg.bootstrap, 500), cfg.seed)
    reward_leads = [reward_lead(field_runs, labels[a], labels[b], bootstrap=min(cfg.bootstrap, 1000),
                                seed=cfg.seed) for a, b in pairs]
    return {"ruleset": ruleset, "players": n, "deals": cfg.deals, "baseline": baseline, "agents": real,
            "oracle": oracle,
            "field_random": field_random, "field_reference": field_ref, "copies": copies, "relative_skill": skill,
            "lead": lead,
            "spread": spread, "variance": var, "reward_lead": reward_leads,
            "relative_skill_by_beginner": skill_by_beginner, "relative_skill_bound": bound,
            "learning_tiers": tiers,
            "best_payoff": best_payoff, "certification": certification, "seat_effects": seats,
            "best_response": {fld: {"spec": spec, "steps": cfg.best_response_steps}
                              for fld, spec in responders.items()},
            "fictive_network": {fld: {"spec": fictives[fld], "steps": cfg.fictive_steps,
                                      "relative_skill": fictive_skill[fld], "stronger": stronger[fld]}
                                for fld in fictives},
            "capped": capped, "capped_max": max(capped.values()),
            "mean_length": summaries["all"]["mean_length"], "truncated_share": summaries["all"]["truncated_share"]}


def certify_oracle(cfg: Config, ruleset: str, oracle: str, fld: str, runs: dict, real: list[str], play):
    """Double the fictive player's budget until a doubling is shown to buy less than ``cfg.certify_tol``: a paired
    test between the two budgets on the same deals, whose interval's upper end must be below the tolerance
    (``plateaued``), or until the budget would pass ``cfg.max_budget`` (not certified). Its rollouts play the other
    seats as the field does (``modelled``). Returns the game rows of the last budget and the record: budgets,
    random effects (its mean reward minus the best real player's, in the field ``fld``, every deal), each
    doubling's paired gain, whether it converged."""
    base = modelled(oracle, fld, ruleset)
    budget = spec_budget(base, ruleset)
    best = max((_label(s) for s in real), key=lambda n: per_deal_reward(runs[n], 0)[1].mean())
    best_mean = per_deal_reward(runs[best], 0)[1].mean()
    budgets, effects, gains, rows_, before = [], [], [], None, None
    done = False
    while True:
        spec = with_budget(base, budget)
        tag = f"field-{fld}-oracle-b{budget}"
        rows_ = play(tag, [spec, fld], [0] + [1] * (cfg.players - 1))["game_rows"]
        budgets.append(budget)
        per_deal = per_deal_reward(rows_, 0)[1]
        effects.append(float(per_deal.mean() - best_mean))
        if before is not None:
            gains.append(budget_gain(before, per_deal))
            done = plateaued(gains[-1], cfg.certify_tol)
        before = per_deal
        if done or budget * 2 > cfg.max_budget:
            break
        budget *= 2
    return rows_, {"spec": spec, "budgets": budgets, "random_effect": effects, "best": best,
                   "gains": [{k: g[k] for k in ("diff", "lo", "hi", "deals")} for g in gains],
                   "certified": done, "tol": cfg.certify_tol, "rule": "paired"}


#: the label of the best response skill_luck trains in each field (``--best-response-steps``)
BEST_RESPONSE = "best-response"
#: the label of the perfect-information network it trains in each oracle field (``--fictive-steps``)
FICTIVE = "fictive"


def best_response(cfg: Config, ruleset: str, fld: str, progress: bool = True, view: str = "own") -> str:
    """Train (or continue, or reuse) a best response to the field ``fld``: a fresh ``train_ppo`` network, one
    learner seat against ``fld`` in every other seat, no self-play and no snapshots of itself, for
    ``cfg.best_response_steps`` engine steps from ``cfg.seed``; the palace rulesets keep a ``ready`` floor of 0.05
    in setup (without it a best response can learn to stall there until the training cap pays it). Returns the
    ``ppo`` spec that plays it. Its run is ``<run>/best-response/<ruleset>-<field>/``: a rerun continues it to the
    steps asked for (a finished run trains no further), and a run killed before its first checkpoint starts
    again. ``view="full"``: the network reads every seat's observation (``train_ppo --view full``), a fictive
    player, for ``cfg.fictive_steps``, in ``<run>/fictive/`` and played by the ``fictive`` agent."""
    from experiments import train_ppo as TP
    from shedders.envs.family import family_of

    full = view == "full"
    out = Path(cfg.out) / cfg.run_name() / ("fictive" if full else "best-response")
    name = f"{ruleset}-{fld}"
    run_dir = out / name
    ckpt = run_dir / "checkpoint.pt"
    if run_dir.is_dir() and not ckpt.exists():  # killed before its first checkpoint: nothing kept to lose
        for f in sorted(run_dir.rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
    floor = 0.05 if family_of(ruleset).setup_phase else 0.0
    tcfg = TP.Config.for_ruleset(ruleset, players=cfg.players, pool=[fld], self_play=0.0, learner_seats=1,
                                 pool_snapshots=0, snapshot_every=0, view=view,
                                 total_steps=cfg.fictive_steps if full else cfg.best_response_steps,
                                 seed=cfg.seed, ready_floor=floor, eval_every=0, eval_deals=0, out=str(out),
                                 name=name, cap_rule="most_cards")
    TP.train(tcfg, resume=ckpt.exists(), progress=progress)
    return f"{'fictive' if full else 'ppo'}:checkpoint={ckpt}+temperature={cfg.best_response_temperature}"


def _available(spec: str, ruleset: str) -> bool:
    """Whether ``spec`` plays ``ruleset``: a built-in agent its family offers, or any agent written elsewhere
    (``file.py:MyAgent``, an entry point: built when its tournament starts, and refused then if it cannot)."""
    name = _label(spec)
    return agents_pkg.is_outside(name) or name in agents_pkg.offered_agents(ruleset)


def run(cfg: Config, progress: bool = True, command: str = "") -> dict:
    for r in cfg.rulesets:
        shedders.make_rules(r, cfg.players)  # ValueError for an unknown ruleset or player count
    if len(cfg.agents) < 2:
        raise ValueError("agents needs at least two real players (a beginner first)")
    out_dir = Path(cfg.out) / cfg.run_name()
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rulesets = [measure_ruleset(cfg, r, progress) for r in cfg.rulesets]
    report = {"config": asdict(cfg), "command": command or "python -m experiments.skill_luck",
              "rulesets": rulesets,
              "seconds": time.perf_counter() - t0}
    (out_dir / "report.json").write_text(json.dumps(report, indent=1, default=_finite))
    (out_dir / "report.md").write_text(report_markdown(report))
    plot(report, out_dir / "skill_luck.png")
    report["run_dir"] = str(out_dir)
    return report


def _finite(x):
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__, skip=("rulesets",), flags={"field_agent": "--field"})
    ap.add_argument("--ruleset", type=lambda t: T.split_agents(t), default=None,
                    help="a ruleset or a comma separated list (default: og); --all for every palace ruleset")
    ap.add_argument("--all", action="store_true", help="every palace ruleset: " + ", ".join(PALACE_RULESETS))
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.all and args.ruleset:
        ap.error("give --ruleset or --all, not both")
    rulesets = list(PALACE_RULESETS) if args.all else (args.ruleset or ["og"])
    cfg = config_from(Config, args, rulesets=rulesets, model_field=args.model_field or args.certify)
    command = "python -m experiments.skill_luck " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        report = run(cfg, progress=not args.quiet, command=command.strip())
    except ValueError as e:
        ap.error(str(e))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished chunks of each tournament are saved under "
              f"{Path(cfg.out) / cfg.run_name()}/tournaments/; the same command continues from them",
              file=sys.stderr)
        raise SystemExit(130) from None
    print(report_markdown(report))
    print(f"wrote {report['run_dir']}/ (report.md, report.json, skill_luck.png) in {report['seconds']:.0f} s")
    return report


if __name__ == "__main__":
    main()
