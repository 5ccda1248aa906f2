"""``shedders bench``: any agent, yours included, on a fixed and versioned protocol, with a score card.

    shedders bench --agent path/to/my_agent.py:MyAgent --ruleset core --out card.json
    shedders bench --agent expert --ruleset og --quick --submit          # store the card in the leaderboard
    python -m experiments.bench --agent my_pkg.agents:MyAgent --ruleset fatality

The protocol ``bench-v1``:

- **Deals.** The first ``--games`` seeds (default 200; ``--quick``: 32) of the published list
  ``shedders/data/bench/bench-v1.seeds``, the same for everyone. Its sha256 (``seeds_digest``) is fixed by the
  version; the card's ``deals_digest`` hashes the dealt tables themselves (every deal's starting state for the
  ruleset and player count), so two cards with the same digest were played on the same cards.
- **Opponents and formats.** The agent plays one seat against ``players - 1`` copies of each reference opponent
  (``random``, ``greedy``, ``expert``, ``search:budget=256``, ``champion``, the last pinned to the champion the
  protocol was published with, ``champion:version=1``): format ``"1v3"`` at 4 players; and,
  at 4 players or more, two seats against the rest (``"2v2"``, seats 0 and 1 against 2 and 3 before rotation). Each
  deal is played in every seat rotation (duplicate format: the luck of the deal is shared by both sides), with
  ``cap_rule="most_cards"`` and the default ply cap.
- **Scores.** Per opponent and format: the benchmarked agent's mean reward a seat (every ruleset pays zero-sum, so
  an equal agent scores 0 and this is its margin over the opponent) with a paired 95% interval (a t interval over
  deals of each deal's mean over its rotations, kept within what a deal can score; none from a single deal; where
  every deal scored the same, the rule of three instead of a zero-width interval), its share of games won (its
  seats' best-reward share, truncated games count as no win), games, the capped share. The headline is the mean
  of those means over every opponent and format, with its interval from the same per-deal averages (all cells
  share the deals). A card with more than 5% of its games capped is not ranked (``"ranked": false``): under
  ``most_cards`` the players still in at the cap are placed by cards left, ties broken from the player to act, so
  an agent that stalls (never ends its setup, say) would collect the tie-break; stalling is not play. Time per
  decision is the agent's seconds in ``act`` over its decisions, batched as the games are played.
- **Seeds.** ``--seed`` seeds the agents (each cell's from it), never the deals: the same agent and seed give the
  same card on any run, timings aside.

The card goes to the terminal, to ``--out FILE`` as JSON (written whole or not at all), and with ``--submit`` into
the SQLite leaderboard (``shedders leaderboard``; ``--db``, else ``$SHEDDERS_DB``, else a file in the user's data
directory). Finished cells are kept under ``runs/bench/`` (``--work``) and reused by a rerun with the same
settings, so a killed bench loses only the cell it was playing. Cite a card by its protocol, ruleset, players,
deals and ``deals_digest``: ``bench-v1, core, 4 players, 200 deals, deals 3f2a...``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
from tqdm import tqdm

import agents as agents_pkg
import shedders
from agents.outside import source_digest
from experiments import ray_backend
from experiments.stats import t_ppf
from experiments.tournament import play_games
from shedders.commandline import build_parser, config_from
from shedders.rules import lookup

PROTOCOL = "bench-v1"
SEEDS_FILE = Path(shedders.__file__).parent / "data" / "bench" / f"{PROTOCOL}.seeds"
SEEDS_SHA256 = "ff07b521ce47e03c02128365e8f663593fa45093f4b2e411590e743b89e76f86"
OPPONENTS = ("random", "greedy", "expert", "search:budget=256", "champion")
#: the agent each opponent name stands for in this protocol: ``champion`` is pinned to the champion the protocol
#: was published with (``champion:version=1``), so that a card played today is comparable with the shipped ones
OPPONENT_SPECS = {name: name for name in OPPONENTS} | {"champion": "champion:version=1"}
DEALS = 200
QUICK_DEALS = 32
CAP_RULE = "most_cards"
#: a card with more of its games capped than this is shown but not ranked: under most_cards a game stalled to the
#: cap places the players still in by cards left, ties broken from the player to act, so stalling (never ending
#: the setup, say) would score; the share is printed on every card
MAX_CAPPED = 0.05


@dataclass
class Config:
    """A score card for one agent on the fixed protocol bench-v1."""

    agent: str = ""
    """(required) the agent spec: a built-in name (expert, search:budget=64), module:Class, path/to/file.py:Class,
    or an entry point of shedders.agents; options after ':' as key=value+key=value"""
    ruleset: str = "core"
    """the ruleset (og, fatality, core, south_african, house, omg)"""
    players: int = 4
    """seats at the table"""
    games: int | None = None
    """deals from the protocol's list (each played in every seat rotation, against every opponent, in every
    format); default 200, or 32 with --quick"""
    quick: bool = False
    """fewer deals (32), for a first look: the card says so"""
    seed: int = 0
    """seeds the agents (the deals are the protocol's)"""
    out: str | None = None
    """write the card as JSON to this file"""
    submit: bool = False
    """store the card in the leaderboard database"""
    db: str | None = None
    """the leaderboard database (default: $SHEDDERS_DB, else a file in the user's data directory)"""
    work: str = "runs/bench"
    """where finished cells are kept, so that a killed or repeated bench resumes"""
    workers: int = 1
    """processes that play cells at once, one numba and torch thread each (the card is the same, timings aside)"""

    @property
    def deals(self) -> int:
        return self.games if self.games is not None else (QUICK_DEALS if self.quick else DEALS)


def protocol_seeds() -> np.ndarray:
    """The published deal seeds of the protocol (uint64), checked against their digest."""
    numbers = [line.strip() for line in SEEDS_FILE.read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    digest = hashlib.sha256("\n".join(numbers).encode()).hexdigest()
    if digest != SEEDS_SHA256:
        raise RuntimeError(f"{SEEDS_FILE} was changed (sha256 {digest[:16]}..., the protocol's is "
                           f"{SEEDS_SHA256[:16]}...): reinstall shedders")
    return np.array([int(x) for x in numbers], np.uint64)


def formats(players: int) -> dict[str, list[int]]:
    """Each format's seating before rotation (0: the benchmarked agent, 1: the opponent)."""
    out = {f"1v{players - 1}": [0] + [1] * (players - 1)}
    if players >= 4:
        out[f"2v{players - 2}"] = [0, 0] + [1] * (players - 2)
    return out


def deals_digest(ruleset: str, players: int, seeds: np.ndarray) -> str:
    """sha256 of every deal's starting table (its state in the scenario form), in order."""
    vg = shedders.VectorGame(ruleset, len(seeds), players, autoreset=False, cap_rule=CAP_RULE)
    vg.reset(seeds=seeds)
    h = hashlib.sha256()
    for r in range(len(seeds)):
        h.update(json.dumps(vg.state_dict(r), sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()


def code_version() -> dict:
    """The shedders version and, when shedders runs from a git checkout, its commit (and whether it is dirty)."""
    try:
        pkg = version("shedders")
    except PackageNotFoundError:
        pkg = None
    out = {"shedders_version": pkg, "git_commit": None}
    root = Path(shedders.__file__).resolve().parents[1]
    if (root / ".git").exists():
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=root, capture_output=True,
                                    text=True, timeout=10).stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], check=False, cwd=root,
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            out["git_commit"] = (commit + ("+dirty" if dirty else "")) or None
        except (OSError, subprocess.SubprocessError):
            pass
    return out


def check(cfg: Config) -> None:
    """Every setting checked before anything is played: ``ValueError`` naming the bad one. The agent is built once
    here, so a spec that does not load, build or take its options is refused now."""
    if not cfg.agent:
        raise ValueError("give the agent to bench: --agent SPEC (expert, my_agent.py:MyAgent, my_pkg.mod:MyAgent)")
    shedders.make_rules(cfg.ruleset, cfg.players, cap_rule=CAP_RULE)
    if cfg.games is not None and (isinstance(cfg.games, bool) or not 1 <= cfg.games <= len(protocol_seeds())):
        raise ValueError(f"games must be in 1..{len(protocol_seeds())} (the protocol's deals), got {cfg.games}")
    if cfg.quick and cfg.games is not None:
        raise ValueError("give --quick or --games, not both")
    if cfg.seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {cfg.seed}")
    if isinstance(cfg.workers, bool) or cfg.workers < 1:
        raise ValueError(f"workers must be at least 1, got {cfg.workers}")
    agents_pkg.make_spec(cfg.agent, cfg.ruleset, cfg.players, seed=0)
    for name in OPPONENTS:
        agents_pkg.make_spec(OPPONENT_SPECS[name], cfg.ruleset, cfg.players, seed=0)


def cell_key(cfg: Config, opponent: str, fmt: str) -> str:
    """What a cell's games depend on: a saved cell is reused only under the same key."""
    name = agents_pkg.parse_agent(cfg.agent)[0]
    key = {"protocol": PROTOCOL, "ruleset": cfg.ruleset, "players": cfg.players, "agent": cfg.agent,
           "seed": cfg.seed, "deals": cfg.deals, "opponent": opponent, "format": fmt,
           "source": source_digest(name) if agents_pkg.is_outside(name) else None,
           "shedders_version": code_version()["shedders_version"],
           "env": f"{cfg.ruleset}_v{lookup(cfg.ruleset).version}"}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


def play_cell(cfg: Config, seeds: np.ndarray, index: int, opponent: str, fmt: str, lineup: list[int]) -> dict:
    """Every deal in every rotation of one opponent and format; the games as lists, and the agent's timing."""
    n = cfg.players
    rows = len(seeds) * n
    seat_agent = np.array([[lineup[(i - j) % n] for i in range(n)] for _d in range(len(seeds)) for j in range(n)])
    built = [agents_pkg.make_spec(spec, cfg.ruleset, n, seed=int(np.random.default_rng([cfg.seed, index, k])
                                                                   .integers(2**31)))
             for k, spec in enumerate((cfg.agent, OPPONENT_SPECS[opponent]))]
    keep = n if fmt.startswith("1v") else 0  # the first deal's rotations; one of them is kept
    played = play_games(cfg.ruleset, n, np.repeat(seeds, n), seat_agent, built, [cfg.agent, opponent],
                        {"seed": 0, "cap_rule": CAP_RULE}, keep=keep, source=f"bench {PROTOCOL}")
    whole = [lines for r, lines in enumerate(played["replays"]) if not played["truncated"][r]]
    return {"opponent": opponent, "format": fmt, "deal": (np.arange(rows) // n).tolist(),
            "rotation": (np.arange(rows) % n).tolist(), "seat_agent": seat_agent.tolist(),
            "reward": np.round(played["reward"], 9).tolist(), "placing": played["placing"].tolist(),
            "plies": played["plies"].tolist(), "truncated": played["truncated"].tolist(),
            "replays": whole[:1], "act_seconds": float(played["act_seconds"][0]),
            "decisions": int(played["decisions"][0]), "git_commit": code_version()["git_commit"]}


def _write_json(path: Path, data) -> None:
    """Whole or not at all: a temporary file, then an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def interval(values, bounds: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float | None,
                                                                                 float | None]:
    """(mean, low, high): the mean of per-deal values and its 95% t interval, kept within ``bounds`` (what one deal
    can score); no interval (None) from one deal. Deals that all scored the same show no spread, and a t interval
    would have zero width: then the rule of three bounds the share of deals that could score otherwise by 3/n, and
    the mean moves at most that share of the way to either bound."""
    x = np.asarray(values, float)
    m, n = float(x.mean()), len(x)
    if n < 2:
        return m, None, None
    lo_b, hi_b = bounds
    sd = float(x.std(ddof=1))
    if sd == 0:
        share = min(1.0, 3 / n)  # at most this share of deals could have scored otherwise (the rule of three)
        lo = m - share * (m - lo_b) if math.isfinite(lo_b) else m
        hi = m + share * (hi_b - m) if math.isfinite(hi_b) else m
        return m, lo, hi
    h = t_ppf(0.975, n - 1) * sd / math.sqrt(n)
    return m, max(m - h, lo_b), min(m + h, hi_b)


def seat_bounds(ruleset: str, players: int) -> tuple[float, float]:
    """The least and most one seat can collect in a game of ``ruleset`` at ``players``: the record's bounds,
    narrowed by its payout (``loser``: every seat but the last gets 1/(N-1); ``winner``: every seat but the first
    pays 1/(N-1))."""
    record = lookup(ruleset)
    lo, hi = record.reward_bounds
    if record.payout == "loser":
        hi = min(hi, 1 / (players - 1))
    elif record.payout == "winner":
        lo = max(lo, -1 / (players - 1))
    return lo, hi


def cell_scores(cell: dict, bounds: tuple[float, float]) -> tuple[dict, np.ndarray]:
    """A cell's result row and its per-deal scores (the agent's mean reward a seat, per deal); ``bounds``: the
    least and most a seat can score in one game."""
    reward = np.asarray(cell["reward"], float)
    mine = np.asarray(cell["seat_agent"]) == 0
    per_game = (reward * mine).sum(axis=1) / mine.sum(axis=1)
    best = np.round(reward, 6) == np.round(reward, 6).max(axis=1, keepdims=True)
    trunc = np.asarray(cell["truncated"], bool)
    won = ((best & mine).sum(axis=1) / mine.sum(axis=1)) * ~trunc
    deal = np.asarray(cell["deal"])
    count = np.bincount(deal)
    per_deal = np.bincount(deal, weights=per_game) / count
    m, lo, hi = interval(per_deal, bounds)
    w, wlo, whi = interval(np.bincount(deal, weights=won) / count, (0.0, 1.0))
    row = {"opponent": cell["opponent"], "format": cell["format"], "mean": m, "lo": lo, "hi": hi,
           "games": len(per_game), "capped": float(trunc.mean()), "win_rate": w, "win_lo": wlo, "win_hi": whi,
           "deals": len(per_deal)}
    return row, per_deal


def card_from(cfg: Config, cells: list[dict], digest: str) -> dict:
    """The score card of finished cells (everything but the ``timing`` is the same on every run)."""
    results, per_deal = [], []
    bounds = seat_bounds(cfg.ruleset, cfg.players)
    for cell in cells:
        row, pd = cell_scores(cell, bounds)
        results.append(row)
        per_deal.append(pd)
    m, lo, hi = interval(np.mean(per_deal, axis=0), bounds)
    seconds, decisions = sum(c["act_seconds"] for c in cells), sum(c["decisions"] for c in cells)
    record = lookup(cfg.ruleset)
    code = code_version()
    commits = sorted({c.get("git_commit") or "unknown" for c in cells})  # a resumed bench: the cells' own
    code["git_commit"] = commits[0] if len(commits) == 1 else "mixed: " + ", ".join(commits)
    games = [{"opponent": c["opponent"], "format": c["format"], "deal": d, "rotation": j, "agent_seats": [
        i for i, a in enumerate(sa) if a == 0], "reward": rw, "placing": pl, "plies": p, "capped": t}
        for c in cells for d, j, sa, rw, pl, p, t in zip(c["deal"], c["rotation"], c["seat_agent"], c["reward"],
                                                           c["placing"], c["plies"], c["truncated"])]
    return {
        "protocol": PROTOCOL, "seeds_digest": SEEDS_SHA256, "deals_digest": digest,
        "ruleset": cfg.ruleset, "players": cfg.players, "agent": cfg.agent, "seed": cfg.seed,
        "deals": cfg.deals, "quick": cfg.quick, "opponents": list(OPPONENTS),
        "formats": list(formats(cfg.players)), "cap_rule": CAP_RULE,
        **code, "env_versions": {cfg.ruleset: f"{cfg.ruleset}_v{record.version}"},
        "headline": {"mean": m, "lo": lo, "hi": hi},
        "capped": float(np.mean([g["capped"] for g in games])), "ranked": bool(
            np.mean([g["capped"] for g in games]) <= MAX_CAPPED),
        "results": results,
        "timing": {"ms_per_decision": 1000 * seconds / max(decisions, 1), "decisions": decisions},
        "games": games,
        "replays": [{"opponent": c["opponent"], "format": c["format"], "lines": lines}
                    for c in cells if c["format"].startswith("1v") for lines in kept(c["replays"])[:1]],
    }


def kept(replays: list) -> list:
    """The replays worth keeping for the viewer: whole games, not capped ones (thousands of decisions)."""
    return [lines for lines in replays if lines[-1].get("type") == "end" and not lines[-1].get("truncated")]


def summary_of(card: dict) -> dict:
    """The card without its games and replays: what ``--out`` writes and the terminal shows."""
    return {k: v for k, v in card.items() if k not in ("games", "replays")}


def _ci(m: float, lo, hi, form: str = "+.3f") -> str:
    bounds = "[n/a: one deal]" if lo is None else f"[{lo:{form}}, {hi:{form}}]"
    return f"{m:{form}} {bounds}"


def text(card: dict) -> str:
    """The card as the terminal prints it."""
    h = card["headline"]
    kind = " (QUICK: fewer deals; not comparable with full cards)" if card["quick"] else ""
    lines = [(f"shedders bench {card['protocol']}: {card['agent']} on {card['ruleset']}, "
              f"{card['players']} players, {card['deals']} deals{kind}"),
             (f"deals sha256 {card['deals_digest'][:16]}...  seeds sha256 {card['seeds_digest'][:16]}...  "
             f"agent seed {card['seed']}"),
             "",
             "| opponent | format | mean reward a seat (95%) | win share (95%) | games | capped |",
             "|---|---|---|---|---|---|"]
    for r in card["results"]:
        lines.append(f"| {r['opponent']} | {r['format']} | {_ci(r['mean'], r['lo'], r['hi'])} "
                     f"| {_ci(r['win_rate'], r['win_lo'], r['win_hi'], '.3f')} | {r['games']} "
                     f"| {r['capped']:.1%} |")
    lines += ["", f"headline (mean over the reference field): {_ci(h['mean'], h['lo'], h['hi'])}",
              (f"capped games: {card['capped']:.1%}" + ("" if card["ranked"] else
               f" (more than {MAX_CAPPED:.0%}: shown on the leaderboard, not ranked; stalling is not play)")),
              (f"time per decision: {card['timing']['ms_per_decision']:.3f} ms "
              f"({card['timing']['decisions']} decisions, batched)")]
    return "\n".join(lines)


def run(cfg: Config, progress: bool = True) -> dict:
    """Play (or reuse) every cell and return the whole card, games and replays included."""
    check(cfg)
    seeds = protocol_seeds()[:cfg.deals]
    digest = deals_digest(cfg.ruleset, cfg.players, seeds)
    work = Path(cfg.work)
    plan = [(opp, fmt, lineup) for opp in OPPONENTS for fmt, lineup in formats(cfg.players).items()]
    paths = [work / f"{cfg.ruleset}-{cfg.players}p-{cell_key(cfg, opp, fmt)}.json" for opp, fmt, _ in plan]
    bar = tqdm(total=len(plan) * len(seeds) * cfg.players, desc=f"bench {cfg.ruleset}", unit="game",
               disable=not progress)
    cells: dict[int, dict] = {}
    for index, path in enumerate(paths):
        if path.exists():
            try:
                cells[index] = json.loads(path.read_text())
                bar.update(len(seeds) * cfg.players)
            except (OSError, ValueError):
                pass  # damaged: played again
    todo = [i for i in range(len(plan)) if i not in cells]

    def done(index: int, cell: dict) -> None:
        _write_json(paths[index], cell)
        cells[index] = cell
        bar.update(len(seeds) * cfg.players)

    if cfg.workers > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(min(cfg.workers, len(todo)), mp_context=multiprocessing.get_context("spawn"),
                                 initializer=ray_backend.one_thread) as pool:
            futures = {pool.submit(play_cell, cfg, seeds, i, *plan[i]): i for i in todo}
            for f in as_completed(futures):
                done(futures[f], f.result())
    else:
        for i in todo:
            bar.set_postfix_str(f"{plan[i][0]} {plan[i][1]}")
            done(i, play_cell(cfg, seeds, i, *plan[i]))
    bar.close()
    return card_from(cfg, [cells[i] for i in range(len(plan))], digest)



def main(argv: list[str] | None = None) -> dict | None:
    ap = build_parser(Config, description=__doc__)
    ap.prog = "shedders bench"
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    cfg = config_from(Config, args)
    try:
        if cfg.submit:
            from shedders import leaderboard

            leaderboard.open_db(cfg.db, shipped=False).close()  # a database that cannot be used: refused now
        card = run(cfg, progress=not args.quiet)
    except ValueError as e:
        ap.error(str(e))
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished cells are kept in {cfg.work}/; the same command continues from them "
              f"(no card was written)", file=sys.stderr)
        raise SystemExit(130) from None
    print(text(card))
    if cfg.out:
        _write_json(Path(cfg.out), {k: v for k, v in card.items() if k != "replays"})
        print(f"wrote {cfg.out}")
    if cfg.submit:
        from shedders import leaderboard

        with leaderboard.open_db(cfg.db) as db:
            entry, new = db.submit(card)
        print(f"{'submitted to' if new else 'already on'} the leaderboard ({db.path}) as entry {entry}")
    return card


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
