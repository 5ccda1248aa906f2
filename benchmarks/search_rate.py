"""Rollouts per second: what the searches buy, per core, on the same early-play states.

    python -m benchmarks.search_rate                      # core, fatality, og, omg: the champion and budget 256
    python -m benchmarks.search_rate --rulesets core --searches champion

For each ruleset, deals ``--seeds`` are played by ``expert`` (the palace setup first); the first ``--decisions``
decisions with more than one legal action are the states. Each search decides each state alone, at batch 1 on one
thread, timed; its rollouts are ``max(1, budget // legal) * legal`` a decision. ``champion`` is the search the
champion plays at the default 10 ms (``agents.make("champion", ...).chosen``); other searches are agent specs.

The split then times the parts of those rollouts on the same states, world by world (``--worlds`` a state, after
the state's first legal action): **determinize** (copy the game and resample what its player cannot see), **play
out** (apply the actions the rollout took, replayed from a record), **leaf** (value a rollout cut short) and
**policy** (everything else the rollout does: its legal actions, the rollout policy's choice and the random
moves), the last as the engine's own rollout minus the replay and the leaf. The replay is checked to end where the
rollout ended. Each figure is the best of ``--rounds`` (timing noise only adds).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import MappingProxyType

import numba as nb
import numpy as np

from shedders.commandline import build_parser, config_from
from shedders.engine.omg import layout as O
from shedders.engine.palace import layout as K
from shedders.engine.search import omg_search as OS
from shedders.engine.search import palace_policies as KP
from shedders.engine.search import palace_search as KS

# the engine's kernels as the searches call them (the search package is this layer's door to the engine)
legal_mask_nb, observe_nb, apply_nb, place_by_cards_nb = KS.legal_mask_nb, KS.observe_nb, KS.apply_nb, \
    KS.place_by_cards_nb
rand_below_nb, splitmix64_nb = KS.rand_below_nb, KS.splitmix64_nb
omg_legal_mask_nb, omg_apply_nb, choice_from_state_nb = OS.legal_mask_nb, OS.apply_nb, OS.choice_from_state_nb


@dataclass
class Config:
    rulesets: list[str] = field(default_factory=lambda: search_champions())
    """rulesets, comma separated (default: those whose champion is a search)"""
    searches: list[str] = field(default_factory=lambda: ["champion", "search:budget=256"])
    """``champion`` (its search at the default 10 ms) or agent specs, comma separated"""
    players: int = 4
    """seats at the table"""
    seeds: list[int] = field(default_factory=lambda: [3, 4, 5, 6])
    """the deals"""
    decisions: int = 20
    """states per deal"""
    worlds: int = 64
    """worlds a state in the split"""
    rounds: int = 3
    """timings of each measure (the best is kept)"""
    split: bool = True
    """time the parts of the rollouts too"""


def search_champions() -> list[str]:
    """The rulesets whose champion at some budget is a search (``agents.champion.CHAMPIONS``)."""
    from agents.champion import CHAMPIONS

    return sorted({c.game for c in CHAMPIONS if c.agent in ("search", "cut")})


def states(ruleset: str, players: int, seeds: list[int], decisions: int) -> list:
    """(observation, mask, state) copies of the first ``decisions`` decisions with a choice, per deal."""
    import agents
    import shedders
    from agents.base import act_in
    from shedders.envs.family import family_of

    rows = np.zeros(1, np.int64)
    out = []
    for seed in seeds:
        vg = shedders.VectorGame(ruleset, 1, players, seed=seed, ply_cap=5000)
        vg.reset()
        mover = agents.make("expert", ruleset=ruleset, num_players=players, seed=seed)
        setup = family_of(ruleset).setup_phase
        taken = 0
        while taken < decisions and not (vg.terminated[0] or vg.truncated[0]):
            if not (setup and vg.state.phase[0] == 0) and vg.action_mask[0].sum() > 1:  # 0: palace setup
                out.append((vg.observation.copy(), vg.action_mask.copy(),
                            type(vg.state)(*(np.array(x, copy=True) for x in vg.state))))
                taken += 1
            vg.step(act_in(mover, vg, rows))
    return out


#: issue 47's baseline: rollouts/s per core of each champion's search when the issue opened (``champion:version=1``
#: at the default 10 ms) on the engine before it (commit c0b9684), the median of 3 runs measured side by side with
#: the engine after (``benchmarks/SEARCH_RATE.md``, second session). ``benchmarks.run`` measures that commit side
#: by side (``BEFORE_ISSUE_47_COMMIT``, through ``benchmarks.compare``) where the git history holds it, and falls
#: back to these recorded figures where it does not (or with ``--quick``).
BEFORE_ISSUE_47 = MappingProxyType({"core": 395_076, "fatality": 313_078, "og": 337_320, "omg": 102_930})
BEFORE_ISSUE_47_COMMIT = "c0b9684"


def search_spec(search: str, ruleset: str, players: int) -> str:
    """An agent spec: ``champion`` (or ``champion:version=N``) becomes the search the champion plays at its
    default budget."""
    if search.split(":")[0] != "champion":
        return search
    import agents

    chosen = agents.make_spec(search, ruleset, players, seed=0).chosen
    if not chosen.startswith("search:"):
        raise ValueError(f"the {ruleset} champion at {players} players plays {chosen}, not a search")
    return chosen


def decision_rate(spec: str, ruleset: str, players: int, table: list, rounds: int) -> dict:
    """Rollouts per second of ``spec`` deciding each state alone on one thread (the best of ``rounds`` passes)."""
    import agents

    agent = agents.make_spec(spec, ruleset, players, seed=0)
    agent.threaded_decision = False
    rows = np.zeros(1, np.int64)
    rollouts = np.array([max(1, agent.budget // int(m.sum())) * int(m.sum()) for _, m, _ in table])
    agent.act(table[0][0], table[0][1], state=table[0][2], games=rows)  # compile or load
    best = np.full(len(table), np.inf)
    for _ in range(rounds):
        for i, (obs, mask, state) in enumerate(table):
            t = time.perf_counter()
            agent.act(obs, mask, state=state, games=rows)
            best[i] = min(best[i], time.perf_counter() - t)
    per = rollouts / best
    total, seconds = int(rollouts.sum()), float(best.sum())
    return {"rollouts": total, "seconds": seconds, "rate": total / seconds,
            "median_rate": float(np.median(per)), "us_per_rollout": 1e6 * seconds / total}


# ----------------------------------------------------------------------------------------------------------------
# The split: the parts of a rollout, timed apart on the same worlds (the engine's own functions)
# ----------------------------------------------------------------------------------------------------------------
WORLD_SEED = np.uint64(12345)
#: the work row of the split's kernels, an int64 for the engine's kernels they call: a literal 0 would compile a
#: specialization of each (the rollout, the apply, the legal actions) for it, several minutes of compile in all
ROW = np.int64(0)
LOG_SIZE = 1 << 25  # the split's record of rollout decisions (int16, 64 MB)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def palace_world_nb(src, g, work, k, params, scr):
    KS.copy_game_nb(src, g, work, ROW)
    work.rng[0] = splitmix64_nb(WORLD_SEED + np.uint64(k) * np.uint64(7919))
    KS.determinize_nb(work, ROW, np.int64(src.actor[g]), params, scr.pool[0])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def palace_leaf_nb(work, viewer, params, plan):
    if work.phase[0] == K.PH_OVER:
        return 0.0
    if plan.leaf == KS.LEAF_VALUE:
        return KS.leaf_value_nb(work, ROW, viewer, params, plan.leaf_w)
    if plan.leaf == KS.LEAF_ORDER:
        return KS.order_value_nb(work, ROW, viewer, params, plan.leaf_w)
    if plan.leaf == KS.LEAF_CARDS:
        for q in range(params[K.P_NPLAYERS]):
            work.rewards[0, q] = 0.0
        place_by_cards_nb(work, ROW, params)
        return np.float64(work.rewards[0, viewer])
    return 0.0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def palace_record_nb(src, a0s, worlds, work, params, plan, scr, log, start, ends):
    """The rollouts' actions (the rollout loop of ``rollout_nb``, logged from ``start[j]`` on for rollout j = world
    k of state g, j = g * worlds + k) and the engine's own values; False when the log is too short."""
    mask, ids, obs = scr.mask2[0], scr.ids2[0], scr.obs[0]
    at = 0
    for j in range(a0s.shape[0] * worlds):
        g, k, a0 = j // worlds, j % worlds, a0s[j // worlds]
        viewer = np.int64(src.actor[g])
        start[j] = at
        palace_world_nb(src, g, work, k, params, scr)
        KS.apply_nb(work, ROW, a0, params)
        for _ in range(plan.max_plies):
            if work.phase[0] == K.PH_OVER:
                break
            nl = legal_mask_nb(work, ROW, params, mask, ids)
            pol = plan.policy if work.actor[0] == viewer else plan.others
            if pol == KP.POLICY_RANDOM or (plan.eps_milli > 0 and rand_below_nb(work, ROW, 1000) < plan.eps_milli):
                a = np.int64(ids[rand_below_nb(work, ROW, nl)])
            elif pol == KP.POLICY_EXPERT:
                observe_nb(work, ROW, np.int64(work.actor[0]), params, obs)
                a = KP.expert_choice_nb(obs, plan.off, mask, params)
            else:
                a = KP.greedy_choice_nb(mask, params)
            apply_nb(work, ROW, a, params)
            if at == log.shape[0]:
                return False
            log[at] = a
            at += 1
        palace_world_nb(src, g, work, k, params, scr)
        KS.apply_nb(work, ROW, a0, params)
        ends[j] = KS.rollout_nb(work, ROW, viewer, params, plan, mask, ids, obs)
    start[a0s.shape[0] * worlds] = at
    return True


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def palace_stage_nb(src, a0s, worlds, work, params, plan, scr, log, start, upto, ends):
    """Every state's worlds only (upto 0); then the replayed actions (1); then the leaf (2); or the engine's own
    rollout (3). Returns how many replays did not end where the rollout did."""
    bad = 0
    for j in range(a0s.shape[0] * worlds):
        g, k, a0 = j // worlds, j % worlds, a0s[j // worlds]
        viewer = np.int64(src.actor[g])
        palace_world_nb(src, g, work, k, params, scr)
        if upto == 0:
            continue
        apply_nb(work, ROW, a0, params)
        if upto == 3:
            KS.rollout_nb(work, ROW, viewer, params, plan, scr.mask2[0], scr.ids2[0], scr.obs[0])
            continue
        v = 0.0
        for i in range(start[j], start[j + 1]):
            apply_nb(work, ROW, log[i], params)
            v += work.rewards[0, viewer]
        if upto == 2:
            v += palace_leaf_nb(work, viewer, params, plan)
            bad += abs(v - ends[j]) > 1e-9
    return bad


def split_palace(spec: str, ruleset: str, players: int, table: list, worlds: int, rounds: int) -> dict:
    import agents

    record, stage = palace_record_nb, palace_stage_nb
    agent = agents.make_spec(spec, ruleset, players, seed=0)
    work, scr = agent.buffers()
    args = (work, agent.params, agent.plan, scr)
    return _split(table, worlds, rounds, record, stage, args)


def _split(table, worlds, rounds, record, stage, args) -> dict:
    """Time the stages over every state's worlds in one call each (a call's own cost is then negligible)."""
    batch = type(table[0][2])(*(np.concatenate([t[2][i] for t in table]) for i in range(len(table[0][2]))))
    a0s = np.array([np.flatnonzero(m[0])[0] for _, m, _ in table], np.int64)
    n = len(table) * worlds
    start = np.zeros(n + 1, np.int64)
    ends = np.zeros(n, np.float64)
    log = np.zeros(LOG_SIZE, np.int16)
    if not record(batch, a0s, worlds, *args, log, start, ends):
        raise ValueError(f"the rollouts took more than {LOG_SIZE:,} decisions: ask for fewer --worlds")
    if stage(batch, a0s, worlds, *args, log, start, 2, ends):
        raise AssertionError("a replayed rollout did not end where the engine's rollout ended")
    best = np.full(4, np.inf)
    for _ in range(rounds):
        for upto in range(4):
            t = time.perf_counter()
            stage(batch, a0s, worlds, *args, log, start, upto, ends)
            best[upto] = min(best[upto], time.perf_counter() - t)
    parts = {"determinize": best[0], "play out": best[1] - best[0], "leaf": best[2] - best[1],
             "policy": best[3] - best[2]}
    return {"plies": start[-1] / n, "us": {k: 1e6 * v / n for k, v in parts.items()},
            "total_us": 1e6 * best[3] / n}


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def omg_world_nb(src, g, work, k, params, scr):
    OS.copy_game_nb(src, g, work, ROW)
    work.rng[0] = splitmix64_nb(WORLD_SEED + np.uint64(k) * np.uint64(7919))
    OS.determinize_nb(work, ROW, np.int64(src.turn[g]), params, scr.cnt[0])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def omg_leaf_nb(work, viewer, params, tables, plan, f):
    if work.phase[0] == O.PH_OVER:
        return np.float64(work.rewards[0, viewer]) if work.terminated[0] else 0.0
    if plan.leaf == OS.LEAF_FITTED:
        return OS.fitted_value_nb(work, ROW, viewer, params, tables.cards, plan.leaf_w, f)
    return OS.leaf_value_nb(work, ROW, viewer, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def omg_record_nb(src, a0s, worlds, work, params, tables, plan, scr, log, start, ends):
    """palace_record_nb's, for omg."""
    cards, lay = tables.cards, tables.lay
    mask, ids = scr.mask2[0], scr.ids2[0]
    at = 0
    for j in range(a0s.shape[0] * worlds):
        g, k, a0 = j // worlds, j % worlds, a0s[j // worlds]
        viewer = np.int64(src.turn[g])
        start[j] = at
        omg_world_nb(src, g, work, k, params, scr)
        work.rewards[0] = 0.0
        omg_apply_nb(work, ROW, a0, params, cards, lay)
        for _ in range(plan.max_plies):
            if work.phase[0] == O.PH_OVER:
                break
            nl = omg_legal_mask_nb(work, ROW, params, cards, lay, mask, ids)
            if plan.eps_milli > 0 and rand_below_nb(work, ROW, 1000) < plan.eps_milli:
                a = np.int64(ids[rand_below_nb(work, ROW, nl)])
            else:
                a = choice_from_state_nb(True, work, ROW, mask, ids, nl, params, cards, lay)
            work.rewards[0] = 0.0
            omg_apply_nb(work, ROW, a, params, cards, lay)
            if at == log.shape[0]:
                return False
            log[at] = a
            at += 1
        omg_world_nb(src, g, work, k, params, scr)
        work.rewards[0] = 0.0
        omg_apply_nb(work, ROW, a0, params, cards, lay)
        ends[j] = OS.rollout_nb(work, ROW, viewer, params, tables, plan, mask, ids, scr.feat[0])
    start[a0s.shape[0] * worlds] = at
    return True


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def omg_stage_nb(src, a0s, worlds, work, params, tables, plan, scr, log, start, upto, ends):
    """palace_stage_nb's, for omg."""
    cards, lay = tables.cards, tables.lay
    bad = 0
    for j in range(a0s.shape[0] * worlds):
        g, k, a0 = j // worlds, j % worlds, a0s[j // worlds]
        viewer = np.int64(src.turn[g])
        omg_world_nb(src, g, work, k, params, scr)
        if upto == 0:
            continue
        work.rewards[0] = 0.0
        omg_apply_nb(work, ROW, a0, params, cards, lay)
        if upto == 3:
            OS.rollout_nb(work, ROW, viewer, params, tables, plan, scr.mask2[0], scr.ids2[0], scr.feat[0])
            continue
        for i in range(start[j], start[j + 1]):
            work.rewards[0] = 0.0
            omg_apply_nb(work, ROW, log[i], params, cards, lay)
        if upto == 2:
            bad += abs(omg_leaf_nb(work, viewer, params, tables, plan, scr.feat[0]) - ends[j]) > 1e-9
    return bad


def split_omg(spec: str, ruleset: str, players: int, table: list, worlds: int, rounds: int) -> dict:
    import agents
    record, stage = omg_record_nb, omg_stage_nb
    agent = agents.make_spec(spec, ruleset, players, seed=0)
    work, scr = agent.buffers()
    args = (work, agent.params, agent.tables, agent.plan, scr)
    return _split(table, worlds, rounds, record, stage, args)


#: each family's split
SPLITS = {"palace": split_palace, "omg": split_omg}


def main(argv=None) -> dict:
    from shedders.envs.family import family_of
    from shedders.rules import lookup

    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    nb.set_num_threads(1)
    out = {}
    print("| ruleset | search | rollouts | rollouts/s per core | median over states | us per rollout | plies "
          "per rollout | determinize | play out | policy | leaf (us per rollout) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ruleset in cfg.rulesets:
        family_of(ruleset)  # a clear error for an unknown ruleset
        table = states(ruleset, cfg.players, cfg.seeds, cfg.decisions)
        for search in cfg.searches:
            spec = search_spec(search, ruleset, cfg.players)
            row = decision_rate(spec, ruleset, cfg.players, table, cfg.rounds)
            if cfg.split:
                row["split"] = SPLITS[lookup(ruleset).family](spec, ruleset, cfg.players, table, cfg.worlds,
                                                             cfg.rounds)
            out[(ruleset, search)] = {"spec": spec, **row}
            sp = row.get("split")
            parts = (f"{sp['plies']:.1f} | " + " | ".join(f"{sp['us'][k]:.2f}" for k in
                                                          ("determinize", "play out", "policy", "leaf"))
                     if sp else "| | | |")
            print(f"| {ruleset} | {spec} | {row['rollouts']:,} | {row['rate']:,.0f} | {row['median_rate']:,.0f} | "
                  f"{row['us_per_rollout']:.2f} | {parts} |", flush=True)
    return out


if __name__ == "__main__":
    main()
