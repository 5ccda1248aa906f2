"""``shedders bench`` and the leaderboard: the protocol's fixed deals, the score card's fields and figures (each
recomputed from the games), the same card on a rerun, broken agents refused with one line and nothing written,
and the SQLite store: one transaction per card (a kill while submitting leaves the database as it was), a newer
schema refused, the shipped reference cards on a fresh database."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from outside_fixtures import EP_NAME, install_entry_point, write_agent_file

from experiments import bench as B
from shedders import leaderboard as L
from shedders.cli import main as cli

CONTRACT_FIELDS = ("protocol", "deals_digest", "ruleset", "players", "agent", "results")
RESULT_FIELDS = ("opponent", "format", "mean", "lo", "hi", "games", "capped")


def readme_agent() -> str:
    """The outside agent the README shows ("Benchmark your own agent"), as written there."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
              if b.startswith("# my_agent.py")]
    assert len(blocks) == 1
    return blocks[0]


@pytest.fixture(scope="module")
def benched(tmp_path_factory):
    """One real bench of the README's outside agent from its own file (1 deal, core), through the command line:
    its card, the database it was submitted to, and the printed text."""
    root = tmp_path_factory.mktemp("bench")
    (root / "my_agent.py").write_text(readme_agent())
    spec = f"{root / 'my_agent.py'}:FirstPlay"
    out, db = root / "card.json", root / "board.sqlite"
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = cli(["bench", "--agent", spec, "--ruleset", "core", "--games", "1", "--out", str(out), "--submit",
                    "--db", str(db), "--work", str(root / "work"), "--quiet"])
    assert code == 0
    return {"root": root, "spec": spec, "card": json.loads(out.read_text()), "db": db, "text": text.getvalue()}


def test_the_published_seed_list_is_the_protocols(tmp_path, monkeypatch):
    seeds = B.protocol_seeds()
    assert len(seeds) == 1000 and len(set(seeds.tolist())) == 1000
    changed = tmp_path / "bench-v1.seeds"
    lines = B.SEEDS_FILE.read_text().splitlines()
    lines[-1] = str(int(lines[-1]) + 1)
    changed.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(B, "SEEDS_FILE", changed)
    with pytest.raises(RuntimeError, match="was changed"):
        B.protocol_seeds()


def test_formats_seat_the_agent_in_every_rotation():
    assert B.formats(4) == {"1v3": [0, 1, 1, 1], "2v2": [0, 0, 1, 1]}
    assert B.formats(2) == {"1v1": [0, 1]}
    assert list(B.formats(6)) == ["1v5", "2v4"]


def test_the_card_has_the_contracts_fields_and_every_figure_recomputes(benched):
    card = benched["card"]
    for k in CONTRACT_FIELDS:
        assert k in card
    assert card["protocol"] == "bench-v1" and card["agent"] == benched["spec"] and card["players"] == 4
    assert card["deals_digest"] == B.deals_digest("core", 4, B.protocol_seeds()[:1])
    assert [(r["opponent"], r["format"]) for r in card["results"]] == [
        (o, f) for o in B.OPPONENTS for f in ("1v3", "2v2")]
    games = card["games"]
    for r in card["results"]:
        for k in RESULT_FIELDS:
            assert k in r
        mine = [g for g in games if g["opponent"] == r["opponent"] and g["format"] == r["format"]]
        assert r["games"] == len(mine) == 4  # 1 deal x 4 rotations
        assert sorted(g["rotation"] for g in mine) == [0, 1, 2, 3]
        assert all(len(g["agent_seats"]) == (1 if r["format"] == "1v3" else 2) for g in mine)
        per_game = [np.mean([g["reward"][s] for s in g["agent_seats"]]) for g in mine]
        assert r["mean"] == pytest.approx(np.mean(per_game), abs=1e-12)
        assert r["capped"] == pytest.approx(np.mean([g["capped"] for g in mine]))
        assert all(abs(sum(g["reward"])) < 1e-6 for g in mine)  # zero-sum: the mean is a margin
    assert card["headline"]["mean"] == pytest.approx(np.mean([r["mean"] for r in card["results"]]), abs=1e-12)
    assert card["timing"]["ms_per_decision"] > 0
    assert "replays" not in card  # --out writes no replays; the database keeps them


def test_the_printed_card_and_the_leaderboard(benched, capsys):
    text = benched["text"]
    assert "shedders bench bench-v1:" in text and "| champion | 2v2 |" in text and "headline (mean over" in text
    assert f"deals sha256 {benched['card']['deals_digest'][:16]}" in text
    assert cli(["leaderboard", "--db", str(benched["db"]), "--ruleset", "core"]) == 0
    board = capsys.readouterr().out
    assert f"| {benched['spec']} |" in board and "core, 4 players (bench-v1)" in board


def test_the_database_keeps_every_game_and_a_few_replays(benched):
    with L.open_db(benched["db"]) as db:
        entry = next(e for e in db.entries("core", 4) if e["agent"] == benched["spec"])
        games = db.games(entry["id"])
        card = db.card(entry["id"])
        assert len(games) == sum(r["games"] for r in card["results"]) == 40
        for r in db.results(entry["id"]):  # any figure recomputes from the stored games
            mine = [g for g in games if (g["opponent"], g["format"]) == (r["opponent"], r["format"])]
            assert r["mean"] == pytest.approx(np.mean([np.mean([g["reward"][s] for s in g["agent_seats"]])
                                                       for g in mine]), abs=1e-12)
        assert card["replays"] and all(k["format"] == "1v3" for k in card["replays"])
        from shedders import replay as R

        rep = R.Replay.from_lines([json.loads(x) for x in db.replay(entry["id"], 0).splitlines()])
        assert rep.end and not rep.end["truncated"]
        assert sum(1 for _ in R.replay(rep)) == len(rep.steps) + 1  # it replays, every state matching


def test_the_same_card_is_submitted_once(benched):
    with L.open_db(benched["db"]) as db:
        n = len(db.entries())
        card = benched["card"]
        with pytest.raises(L.LeaderboardError, match="not a whole score card"):
            db.submit({k: v for k, v in card.items() if k != "games"})
        assert len(db.entries()) == n


@pytest.mark.parametrize("cls,message", [
    ("Nobody", "has no class 'Nobody'"),
    ("Exploding", "building Exploding failed: RuntimeError: no weights found"),
    ("Illegal", "illegal action"),
    ("WrongShape", "act returned shape"),
])
def test_a_broken_agent_is_one_line_and_writes_nothing(tmp_path, capsys, cls, message):
    spec = f"{write_agent_file(tmp_path)}:{cls}"
    out, db = tmp_path / "card.json", tmp_path / "board.sqlite"
    with pytest.raises(SystemExit) as exit_:
        cli(["bench", "--agent", spec, "--ruleset", "og", "--games", "1", "--out", str(out), "--submit", "--db",
             str(db), "--work", str(tmp_path / "work"), "--quiet"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and spec in err[-1]
    assert not out.exists()
    with L.open_db(db, shipped=False) as board:
        assert board.entries() == []  # nothing stored (the check before the games opened it, and added nothing)


def test_bad_settings_are_refused(tmp_path, capsys):
    for argv, message in ((["--games", "0"], "games must be in 1..1000"),
                          (["--quick", "--games", "3"], "not both"),
                          (["--ruleset", "nope"], "unknown ruleset"), (["--players", "9"], "players")):
        with pytest.raises(SystemExit):
            cli(["bench", "--agent", "random", "--work", str(tmp_path), "--quiet", *argv])
        assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_card_is_the_same_on_a_rerun_for_an_entry_point_agent(tmp_path, monkeypatch):
    install_entry_point(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    cards = [B.run(B.Config(agent=EP_NAME, ruleset="og", games=2, work=str(tmp_path / f"w{i}")), progress=False)
             for i in range(2)]  # fresh work folders: every game is played again
    for c in cards:
        c.pop("timing")
    assert cards[0] == cards[1]
    assert cards[0]["agent"] == EP_NAME and len(cards[0]["games"]) == 80
    other = B.run(B.Config(agent=EP_NAME, ruleset="og", games=2, seed=1, work=str(tmp_path / "w2")),
                  progress=False)
    assert other["deals_digest"] == cards[0]["deals_digest"]  # the seed is the agents', never the deals'


def test_a_killed_submit_leaves_the_database_as_it_was(benched, tmp_path):
    card = dict(benched["card"], agent="killed-while-submitting")  # another card (another digest)
    card["replays"] = []
    path, db = tmp_path / "card.json", tmp_path / "board.sqlite"
    path.write_text(json.dumps(card))
    L.open_db(db, shipped=False).close()
    marker = tmp_path / "inside"
    script = (f"import json, time, pathlib\nfrom shedders import leaderboard as L\n"
              f"card = json.loads(pathlib.Path({str(path)!r}).read_text())\n"
              f"db = L.open_db({str(db)!r}, shipped=False)\n"
              f"def hold(k):\n    pathlib.Path({str(marker)!r}).write_text(str(k))\n    time.sleep(60)\n"
              f"db.submit(card, progress=hold)\n")
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the submitting process did not get going"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # inside the transaction: games written, not committed
    proc.wait()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    conn.close()
    with L.open_db(db, shipped=False) as board:  # and it takes the card whole afterwards
        entry, new = board.submit(card)
        assert new and len(board.games(entry)) == len(card["games"])


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path, capsys):
    db = tmp_path / "future.sqlite"
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {L.SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(L.LeaderboardError, match=f"schema version {L.SCHEMA_VERSION + 1}, newer than this"):
        L.open_db(db)
    with pytest.raises(SystemExit) as exit_:
        cli(["leaderboard", "--db", str(db)])
    assert exit_.value.code == 2 and "upgrade shedders" in capsys.readouterr().err
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == L.SCHEMA_VERSION + 1  # untouched
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database, just some text that is long enough to have a header " * 20)
    with pytest.raises(L.LeaderboardError, match="is not a leaderboard database"):
        L.open_db(bad)
    assert bad.read_text().startswith("not a database")


def test_migrations_build_the_schema_once(tmp_path):
    db = tmp_path / "new.sqlite"
    for _ in range(2):
        L.open_db(db, shipped=False).close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == L.SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"entries", "results", "games", "replays"} <= tables


def test_a_fresh_database_shows_the_shipped_reference_cards(tmp_path, monkeypatch):
    shipped = sorted(L.SHIPPED.glob("*.json.gz"))
    assert shipped, "the package ships the reference agents' cards"
    monkeypatch.setenv("SHEDDERS_DB", str(tmp_path / "fresh.sqlite"))
    assert L.default_path() == tmp_path / "fresh.sqlite"
    with L.open_db() as db:
        rows = db.entries()
        assert len(rows) == len(shipped) and all(r["origin"].startswith("shipped:") for r in rows)
        for path in shipped:
            card = json.loads(gzip.decompress(path.read_bytes()))
            assert card["agent"] in B.OPPONENTS and card["protocol"] == B.PROTOCOL
            assert any(r["agent"] == card["agent"] and r["ruleset"] == card["ruleset"] for r in rows)
        assert {r["ruleset"] for r in rows} >= {"core"}
    with L.open_db() as db:  # opened again: nothing added twice
        assert len(db.entries()) == len(shipped)


def test_one_deal_gives_no_interval_rather_than_a_false_one(benched):
    card = benched["card"]
    assert all(r["lo"] is None and r["hi"] is None for r in card["results"])
    assert card["headline"]["lo"] is None and "[n/a: one deal]" in benched["text"]


def test_the_interval_is_a_t_interval_over_deals():
    x = [0.0, 1.0, 0.5, 0.25, 0.75, 0.5, 1.0, 0.0, 0.25, 0.5, 1.0]  # 11 deals: t quantile 2.228139 (10 df)
    m, lo, hi = B.interval(x)
    assert m == pytest.approx(np.mean(x)) and m - lo == pytest.approx(hi - m)
    assert hi - m == pytest.approx(2.228139 * np.std(x, ddof=1) / np.sqrt(11), rel=1e-4)


def test_a_card_that_stalls_to_the_cap_is_not_ranked():
    """Under most_cards the players still in at the cap are placed by cards left, ties broken from the player to
    act: an agent that never ends its setup would collect the tie-break. Such a card is shown, not ranked."""
    rng = np.random.default_rng(0)

    def cell(capped_share):
        rows = 40
        capped = rng.random(rows) < capped_share
        return {"opponent": "greedy", "format": "1v3", "deal": (np.arange(rows) // 4).tolist(),
                "rotation": (np.arange(rows) % 4).tolist(), "seat_agent": [[0, 1, 1, 1]] * rows,
                "reward": [[1 / 3, 1 / 3, 1 / 3, -1]] * rows, "placing": [[0, 1, 2, -1]] * rows,
                "plies": [100] * rows, "truncated": capped.tolist(), "replays": [], "act_seconds": 0.1,
                "decisions": 1000, "git_commit": None}

    cfg = B.Config(agent="x", games=10)
    assert B.card_from(cfg, [cell(0.0)], "d")["ranked"]
    stalled = B.card_from(cfg, [cell(0.5)], "d")
    assert not stalled["ranked"] and stalled["capped"] > B.MAX_CAPPED
    assert "not ranked; stalling is not play" in B.text(stalled)


def test_the_agent_is_required(capsys):
    with pytest.raises(SystemExit):
        cli(["bench", "--ruleset", "core"])
    assert "give the agent to bench: --agent SPEC" in capsys.readouterr().err


def test_an_interval_stays_within_what_a_deal_can_score_and_is_never_falsely_exact():
    m, lo, hi = B.interval([-1.0] * 30 + [-0.5, -1.0], (-1.0, 1 / 3))
    assert lo == -1.0 and hi > m  # the t interval would reach below -1
    m, lo, hi = B.interval([1 / 3] * 32, (-1.0, 1 / 3))  # every deal the same: the rule of three, not [m, m]
    assert hi == pytest.approx(1 / 3) and lo == pytest.approx(1 / 3 - 3 / 32 * 4 / 3)


def test_ctrl_c_keeps_the_finished_cells_and_writes_no_card(tmp_path, monkeypatch, capsys):
    played = []
    real = B.play_cell

    def interrupted(cfg, seeds, index, opponent, fmt, lineup):
        if played:
            raise KeyboardInterrupt
        played.append(index)
        return real(cfg, seeds, index, opponent, fmt, lineup)

    monkeypatch.setattr(B, "play_cell", interrupted)
    out, db, work = tmp_path / "card.json", tmp_path / "board.sqlite", tmp_path / "work"
    argv = ["bench", "--agent", "random", "--ruleset", "og", "--games", "1", "--out", str(out), "--submit",
            "--db", str(db), "--work", str(work), "--quiet"]
    with pytest.raises(SystemExit) as exit_:
        cli(argv)
    assert exit_.value.code == 130 and "finished cells are kept" in capsys.readouterr().err
    assert not out.exists() and len(list(work.glob("*.json"))) == 1 and not list(work.glob("*.tmp"))
    with L.open_db(db, shipped=False) as board:
        assert board.entries() == []


def test_few_deals_never_give_an_interval_outside_the_bounds():
    for values in ([1.0, 1.0], [0.0, 0.0, 0.0], [1.0, -1 / 3]):
        m, lo, hi = B.interval(values, (-1 / 3, 1.0))
        assert -1 / 3 <= lo <= m <= hi <= 1.0


@pytest.mark.slow
def test_cells_on_worker_processes_give_the_same_card(tmp_path):
    one = B.run(B.Config(agent="greedy", ruleset="og", games=2, work=str(tmp_path / "a")), progress=False)
    two = B.run(B.Config(agent="greedy", ruleset="og", games=2, work=str(tmp_path / "b"), workers=2),
                progress=False)
    for card in (one, two):
        card.pop("timing")
    assert one == two
