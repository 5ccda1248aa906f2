"""The leaderboard: score cards of ``shedders bench`` in a SQLite database, every game's result included.

    shedders bench --agent my_agent.py:MyAgent --ruleset core --submit     # adds a card
    shedders leaderboard --ruleset core                                   # prints the table
    shedders serve --db PATH                                              # and its page, /leaderboard

Where: ``--db PATH``, else ``$SHEDDERS_DB``, else ``leaderboard.sqlite`` in the user's data directory
(``platformdirs.user_data_dir("shedders")``: ``~/.local/share/shedders`` on Linux).

The schema (``SCHEMA_VERSION``, kept in SQLite's ``user_version``) is built by ``MIGRATIONS``, one script per
version, each run in one transaction; a database written by a newer shedders (a higher version) is refused with a
message rather than misread. Tables:

- ``entries``: one row per card (``card_digest`` unique: the same card twice is one entry), with its protocol,
  ruleset, players, agent spec, seed, deals and their digest, code versions, the headline and its interval, time
  per decision, where it came from (``origin``: ``submitted``, or ``shipped:<sha256 of the file>`` for the
  reference cards that come with the package) and when it was stored; ``card`` holds the card's JSON (results
  and all, without games and replays);
- ``results``: its rows per opponent and format (mean, interval, win share, games, capped share);
- ``games``: every game it played (opponent, format, deal, rotation, the agent's seats, each seat's reward and
  place, plies, capped): any figure of the card can be recomputed from them;
- ``replays``: a few whole games (one per opponent, the first uncapped game of the first deal played one
  against the rest) as replay files, for the viewer.

A card is stored in one transaction: a process killed while submitting leaves the database as it was. The reference
agents' cards (``shedders/data/leaderboard/*.json.gz``, made by ``shedders bench ... --quick``: see
``experiments/RESULTS.md``) are added to every database the first time it is opened by a shedders that ships
them, so a fresh install shows a populated board.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from shedders.replay import Replay

SCHEMA_VERSION = 1
SHIPPED = Path(__file__).parent / "data" / "leaderboard"
ENV_VAR = "SHEDDERS_DB"

MIGRATIONS = {
    1: """
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    card_digest TEXT NOT NULL UNIQUE,
    protocol TEXT NOT NULL, ruleset TEXT NOT NULL, players INTEGER NOT NULL, agent TEXT NOT NULL,
    seed INTEGER NOT NULL, deals INTEGER NOT NULL, quick INTEGER NOT NULL, deals_digest TEXT NOT NULL,
    shedders_version TEXT, git_commit TEXT,
    headline REAL NOT NULL, headline_lo REAL, headline_hi REAL, ms_per_decision REAL,
    capped REAL NOT NULL, ranked INTEGER NOT NULL,
    origin TEXT NOT NULL, submitted_at TEXT NOT NULL, card TEXT NOT NULL
);
CREATE TABLE results (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    opponent TEXT NOT NULL, format TEXT NOT NULL, mean REAL NOT NULL, lo REAL, hi REAL,
    win_rate REAL, games INTEGER NOT NULL, capped REAL NOT NULL,
    PRIMARY KEY (entry_id, opponent, format)
);
CREATE TABLE games (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    opponent TEXT NOT NULL, format TEXT NOT NULL, deal INTEGER NOT NULL, rotation INTEGER NOT NULL,
    agent_seats TEXT NOT NULL, reward TEXT NOT NULL, placing TEXT NOT NULL, plies INTEGER NOT NULL,
    capped INTEGER NOT NULL
);
CREATE INDEX games_by_entry ON games (entry_id, opponent, format);
CREATE TABLE replays (
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    k INTEGER NOT NULL, opponent TEXT NOT NULL, format TEXT NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (entry_id, k)
);
CREATE INDEX entries_by_table ON entries (ruleset, players, headline);
""",
}


class LeaderboardError(ValueError):
    """A database that cannot be used (newer schema, not a database) or a card that is not one."""


def default_path() -> Path:
    """``$SHEDDERS_DB``, else ``leaderboard.sqlite`` in the user's data directory."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("shedders")) / "leaderboard.sqlite"


def card_digest(card: dict) -> str:
    """sha256 of a card's content, its timings aside (the same agent, seed and code give the same digest)."""
    body = {k: v for k, v in card.items() if k != "timing"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


REQUIRED = ("protocol", "deals_digest", "ruleset", "players", "agent", "seed", "deals", "quick", "headline",
            "capped", "ranked", "results", "games")


def check_card(card) -> None:
    if not isinstance(card, dict):
        raise LeaderboardError(f"a card is a JSON object, got {type(card).__name__}")
    missing = [k for k in REQUIRED if k not in card]
    if missing:
        raise LeaderboardError(f"not a whole score card: no {', '.join(map(repr, missing))} (a card written with "
                               f"--out has no replays; submit with shedders bench --submit)")


class Leaderboard:
    """An open leaderboard database (a context manager: closed on exit)."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path, self.conn = path, conn

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # ---- writing ------------------------------------------------------------------------------------------
    def submit(self, card: dict, origin: str = "submitted",
               progress: Callable[[int], None] | None = None) -> tuple[int, bool]:
        """Store ``card`` (from ``experiments.bench.run``: results, games and replays) in one transaction; returns
        (its entry id, whether it is new). ``progress(k)`` is called after each k-th stored game."""
        check_card(card)
        digest = card_digest(card)
        found = self.conn.execute("SELECT id FROM entries WHERE card_digest = ?", (digest,)).fetchone()
        if found:
            return found[0], False
        summary = {k: v for k, v in card.items() if k not in ("games", "replays")}
        h = card["headline"]
        with self.conn:  # one transaction: all of the card or nothing
            cur = self.conn.execute(
                "INSERT INTO entries (card_digest, protocol, ruleset, players, agent, seed, deals, quick, "
                "deals_digest, shedders_version, git_commit, headline, headline_lo, headline_hi, ms_per_decision, "
                "capped, ranked, origin, submitted_at, card) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (digest, card["protocol"], card["ruleset"], card["players"], card["agent"], card["seed"],
                 card["deals"], int(bool(card["quick"])), card["deals_digest"], card.get("shedders_version"),
                 card.get("git_commit"), h["mean"], h["lo"], h["hi"],
                 (card.get("timing") or {}).get("ms_per_decision"), card["capped"], int(bool(card["ranked"])),
                 origin,
                 time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), json.dumps(summary)))
            entry = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(entry, r["opponent"], r["format"], r["mean"], r["lo"], r["hi"], r.get("win_rate"), r["games"],
                  r["capped"]) for r in card["results"]])
            batch = []
            for i, g in enumerate(card["games"], 1):
                batch.append((entry, g["opponent"], g["format"], g["deal"], g["rotation"],
                              json.dumps(g["agent_seats"]), json.dumps(g["reward"]), json.dumps(g["placing"]),
                              g["plies"], int(bool(g["capped"]))))
                if len(batch) == 500 or i == len(card["games"]):
                    self.conn.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", batch)
                    batch = []
                    if progress is not None:
                        progress(i)
            for k, rep in enumerate(card.get("replays") or []):
                body = gzip.compress(Replay.from_lines(rep["lines"]).dumps().encode(), mtime=0)
                self.conn.execute("INSERT INTO replays VALUES (?, ?, ?, ?, ?)",
                                  (entry, k, rep["opponent"], rep["format"], body))
        return entry, True

    def add_shipped(self, folder: Path = SHIPPED) -> int:
        """Store every shipped reference card not stored yet; returns how many were added."""
        added = 0
        if not folder.is_dir():
            return 0
        known = {row[0] for row in self.conn.execute("SELECT origin FROM entries WHERE origin LIKE 'shipped:%'")}
        for path in sorted(folder.glob("*.json.gz")):
            raw = path.read_bytes()
            origin = "shipped:" + hashlib.sha256(raw).hexdigest()[:16]
            if origin in known:
                continue
            _, new = self.submit(json.loads(gzip.decompress(raw)), origin=origin)
            added += new
        return added

    # ---- reading ------------------------------------------------------------------------------------------
    def entries(self, ruleset: str | None = None, players: int | None = None) -> list[dict]:
        """Every entry (best headline first), optionally of one ruleset and player count, with its results."""
        where, args = [], []
        if ruleset is not None:
            where.append("ruleset = ?")
            args.append(ruleset)
        if players is not None:
            where.append("players = ?")
            args.append(players)
        sql = ("SELECT id, protocol, ruleset, players, agent, seed, deals, quick, deals_digest, headline, "
               "headline_lo, headline_hi, ms_per_decision, origin, submitted_at, git_commit, capped, ranked "
               "FROM entries" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY ruleset, players, ranked DESC, headline DESC")
        keys = ("id", "protocol", "ruleset", "players", "agent", "seed", "deals", "quick", "deals_digest",
                "headline", "headline_lo", "headline_hi", "ms_per_decision", "origin", "submitted_at",
                "git_commit", "capped", "ranked")
        rows = [dict(zip(keys, r)) for r in self.conn.execute(sql, args)]
        for row in rows:
            row["quick"], row["ranked"] = bool(row["quick"]), bool(row["ranked"])
            row["results"] = self.results(row["id"])
        return rows

    def results(self, entry: int) -> list[dict]:
        keys = ("opponent", "format", "mean", "lo", "hi", "win_rate", "games", "capped")
        return [dict(zip(keys, r)) for r in self.conn.execute(
            "SELECT opponent, format, mean, lo, hi, win_rate, games, capped FROM results WHERE entry_id = ? "
            "ORDER BY rowid", (entry,))]

    def card(self, entry: int) -> dict:
        """An entry's card (without games and replays), with the replays it keeps listed; ``KeyError`` if none."""
        row = self.conn.execute("SELECT card, origin, submitted_at FROM entries WHERE id = ?", (entry,)).fetchone()
        if row is None:
            raise KeyError(entry)
        card = json.loads(row[0])
        card["entry"], card["origin"], card["submitted_at"] = entry, row[1], row[2]
        card["replays"] = [{"k": k, "opponent": o, "format": f} for k, o, f in self.conn.execute(
            "SELECT k, opponent, format FROM replays WHERE entry_id = ? ORDER BY k", (entry,))]
        return card

    def games(self, entry: int) -> list[dict]:
        keys = ("opponent", "format", "deal", "rotation", "agent_seats", "reward", "placing", "plies", "capped")
        out = []
        for r in self.conn.execute("SELECT opponent, format, deal, rotation, agent_seats, reward, placing, plies, "
                                   "capped FROM games WHERE entry_id = ? ORDER BY rowid", (entry,)):
            g = dict(zip(keys, r))
            for k in ("agent_seats", "reward", "placing"):
                g[k] = json.loads(g[k])
            g["capped"] = bool(g["capped"])
            out.append(g)
        return out

    def replay(self, entry: int, k: int) -> str:
        """Replay ``k`` of an entry as the text of a replay file; ``KeyError`` if none."""
        row = self.conn.execute("SELECT body FROM replays WHERE entry_id = ? AND k = ?", (entry, k)).fetchone()
        if row is None:
            raise KeyError((entry, k))
        return gzip.decompress(row[0]).decode()


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the schema up to ``SCHEMA_VERSION``, each step in one transaction; refuse a newer one."""
    have = conn.execute("PRAGMA user_version").fetchone()[0]
    if have > SCHEMA_VERSION:
        raise LeaderboardError(f"{path} has leaderboard schema version {have}, newer than this shedders reads "
                               f"({SCHEMA_VERSION}): upgrade shedders, or choose another --db")
    for v in range(have + 1, SCHEMA_VERSION + 1):
        conn.executescript(f"BEGIN;\n{MIGRATIONS[v]}\nPRAGMA user_version = {v};\nCOMMIT;")


def open_db(path: str | Path | None = None, shipped: bool = True) -> Leaderboard:
    """Open (creating if need be) the leaderboard at ``path`` (default: ``default_path()``), migrated to this
    shedders' schema and holding the shipped reference cards (``shipped``)."""
    path = Path(path).expanduser() if path is not None else default_path()
    if path.is_dir():
        raise LeaderboardError(f"{path} is a directory, not a leaderboard database")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level="DEFERRED")
    except (OSError, sqlite3.Error) as e:
        raise LeaderboardError(f"cannot open the leaderboard at {path}: {e}") from None
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path)
        board = Leaderboard(path, conn)
        if shipped:
            board.add_shipped()
    except sqlite3.DatabaseError as e:
        conn.close()
        raise LeaderboardError(f"{path} is not a leaderboard database ({e})") from None
    except BaseException:
        conn.close()
        raise
    return board


def table(rows: list[dict]) -> str:
    """The leaderboard as the terminal prints it: per ruleset and player count, best headline first."""
    if not rows:
        return "the leaderboard is empty"
    lines = []
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["ruleset"], r["players"]), []).append(r)
    for (ruleset, players), group in groups.items():
        group.sort(key=lambda r: (not r["ranked"], -r["headline"]))
        opponents = [x["opponent"] for x in group[0]["results"] if x["format"] == f"1v{players - 1}"]
        lines += [f"{ruleset}, {players} players ({group[0]['protocol']}):", "",
                  "| # | agent | headline (95%) | " + " | ".join(f"1v{players - 1} {o}" for o in opponents)
                  + " | deals | ms/decision | entry |",
                  "|---" * (6 + len(opponents)) + "|"]
        for i, r in enumerate(group, 1):
            rank = str(i) if r["ranked"] else f"- ({r['capped']:.0%} capped: not ranked)"
            cells = {x["opponent"]: x for x in r["results"] if x["format"] == f"1v{players - 1}"}
            vs = " | ".join(f"{cells[o]['mean']:+.3f}" if o in cells else "" for o in opponents)
            ms = "" if r["ms_per_decision"] is None else f"{r['ms_per_decision']:.3f}"
            tag = " (quick)" if r["quick"] else ""
            ci = ("[n/a]" if r["headline_lo"] is None
                  else f"[{r['headline_lo']:+.3f}, {r['headline_hi']:+.3f}]")
            lines.append(f"| {rank} | {r['agent']} | {r['headline']:+.3f} {ci} | {vs} | {r['deals']}{tag} | {ms} "
                         f"| {r['id']} |")
        lines.append("")
    return "\n".join(lines).rstrip()


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="shedders leaderboard",
                                 description="Print the leaderboard of shedders bench score cards.")
    ap.add_argument("--ruleset", default=None, help="only this ruleset")
    ap.add_argument("--players", type=int, default=None, help="only this player count")
    ap.add_argument("--db", default=None, help=f"the database (default: ${ENV_VAR}, else {default_path()})")
    ap.add_argument("--json", action="store_true", help="the entries as JSON instead of a table")
    args = ap.parse_args(argv)
    from shedders.rules import RULESETS

    if args.ruleset is not None and args.ruleset not in RULESETS:
        ap.error(f"unknown ruleset {args.ruleset!r}; rulesets: {', '.join(RULESETS)}")
    try:
        with open_db(args.db) as db:
            rows = db.entries(args.ruleset, args.players)
    except LeaderboardError as e:
        ap.error(str(e))
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0
