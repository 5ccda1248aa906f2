"""The ``shedders`` command: ``play``, ``replay FILE``, ``serve``, ``demo``, ``bench`` and ``leaderboard``.

    shedders play --ruleset core --players 4 --opponents expert,search --seed 7 --save game.jsonl
    shedders replay game.jsonl --step
    shedders serve                  # the web app: play, watch and replay in the browser
    shedders bench --agent my_agent.py:MyAgent --ruleset core --submit   # the protocol (experiments.bench)
    shedders leaderboard --ruleset core
"""

from __future__ import annotations

import argparse
import os
import sys

from shedders import replay as R
from shedders.demo import main as demo_main
from shedders.play import main as play_main
from shedders.web.serve import main as serve_main


def replay_main(argv: list[str] | None = None, read=input, write=print) -> int:
    ap = argparse.ArgumentParser(prog="shedders replay", description="Step through a saved game (JSON lines).")
    ap.add_argument("file")
    ap.add_argument("--seat", type=int, default=None,
                    help="show the table as this seat sees it (default: the player about to decide)")
    ap.add_argument("--step", action="store_true", help="wait for Enter after each decision ('q' stops)")
    ap.add_argument("--quiet", action="store_true", help="only check that every state reproduces")
    ap.add_argument("--legacy", action="store_true",
                    help="also read format 1 (no digest chain: only the replay of every decision is checked)")
    args = ap.parse_args(argv)
    try:
        rep = R.load(args.file, legacy=args.legacy)
        R.load_env(rep)  # the header must describe a game
    except (OSError, R.ReplayError) as e:  # one line, exit code 2: a file that is not a (whole) replay
        print(f"shedders replay: error: {e}", file=sys.stderr)
        return 2
    h = rep.header
    labels = h.get("players") or []
    write(f"replay of {h['ruleset']}, {h['num_players']} players, seed {h.get('seed')}, from {h.get('source')}; "
          f"{len(rep.steps)} decisions")
    if labels:
        write("seats: " + ", ".join(f"player_{q}={lab}" for q, lab in enumerate(labels)))
    n = 0
    try:
        for step, env in R.replay(rep):
            if step is None:
                if not args.quiet:
                    write("\n" + env.render_text(seat=args.seat if args.seat is not None else 0))
                break
            n += 1
            if args.quiet:
                continue
            seat = int(step["agent"].split("_")[1])
            lab = f" ({labels[seat]})" if labels else ""
            shown = env.render_text(seat=args.seat if args.seat is not None else seat)
            write("\n" + "\n".join(line for line in shown.splitlines() if not line.startswith("legal: ")))
            write(f"ply {step['ply']}: {step['agent']}{lab}: {step['name']}")
            if args.step:
                try:
                    if read("[Enter: next, q: stop] ").strip() == "q":
                        return 0
                except EOFError:
                    return 0
    except R.ReplayError as e:
        write(f"replay does not reproduce: {e}")
        return 1
    if rep.end and rep.end.get("over", True):
        write(f"result: placing {rep.end['placing']}, rewards {rep.end['rewards']}"
              + (" (truncated)" if rep.end["truncated"] else ""))
    elif rep.end:
        write(f"left before the end, after {n} decisions: placing so far {rep.end['placing']}")
    chain = "" if h.get("format") == "shedders-replay/1" else "; the digest chain is intact"
    write(f"all {n} decisions replayed; every state matches the recording{chain}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = {"play": "a game in the terminal against the agents",
                "replay": "step through a saved game",
                "serve": "the web app: play, watch and replay games in the browser",
                "demo": "a seeded game between built-in players",
                "bench": "score any agent on the fixed benchmark protocol (bench-v1)",
                "leaderboard": "print the leaderboard of submitted score cards"}
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        print(f"usage: shedders {{{','.join(commands)}}} [options]   (shedders COMMAND --help for each)\n")
        for c, what in commands.items():
            print(f"  {c:<11} {what}")
        if argv and argv[0] not in ("-h", "--help"):
            print(f"\nunknown command {argv[0]!r}", file=sys.stderr)
            return 2
        return 0
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "play":
            return play_main(rest)
        if cmd == "replay":
            return replay_main(rest)
        if cmd == "serve":
            return serve_main(rest)
        if cmd == "bench":
            from experiments.bench import main as bench_main

            return 0 if bench_main(rest) else 1
        if cmd == "leaderboard":
            from shedders.leaderboard import main as leaderboard_main

            return leaderboard_main(rest)
        demo_main(rest)
        return 0
    except KeyboardInterrupt:  # Ctrl-C outside a game (while loading, or stepping through a replay)
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as e:  # every failure is one line and exit code 2; SHEDDERS_TRACEBACK=1 shows where
        if os.environ.get("SHEDDERS_TRACEBACK"):
            raise
        what = str(e).splitlines()[0] if str(e) else type(e).__name__
        kind = "" if isinstance(e, (ValueError, OSError)) else f"{type(e).__name__}: "
        print(f"shedders {cmd}: error: {kind}{what}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
