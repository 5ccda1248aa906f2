"""Play a game in the terminal against the agents: ``shedders play --ruleset core --players 4 --opponents expert``.

The human seat sees exactly what that seat may see (the renderer never shows a hidden card): its own hand, every
face-up card, face-down counts, the pile and its constraint, the draw pile, and the cards opponents are publicly
known to hold. Legal actions come as a numbered menu; type the number (or the action's name). Anything else is
refused and asked again; the game never changes on bad input. Every move is told in plain sentences as it happens,
with what followed (a burn, a skip, who draws, a penalty and why; ``shedders.explain``), except moves the table
would not see: swaps and covers during setup, and a ``pass`` on a sneak offer or a Joker counter (only players who
hold the card are asked, so a pass would give their hand away). ``?`` shows the ruleset's rules in short and what
the current decision asks.

``--save FILE`` writes the game as a replay (JSON lines, see ``shedders.replay``), also when the game is left
early; ``shedders replay FILE`` steps through it.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import agents
import shedders
from shedders.commandline import build_parser as build_config_parser
from shedders.explain import action_label, explain_step, rules_text
from shedders.replay import Recorder

HELP = "type the number of a move (or its name); 't' shows the table again, '?' the rules, 'q' leaves the game"


@dataclass
class Config:
    """A game in the terminal: your seat against agents."""

    ruleset: str = "core"
    """og, fatality, core, south_african, house or omg"""
    players: int = 4
    """seats at the table, yours included"""
    opponents: list[str] = field(default_factory=lambda: ["expert"])
    """agents for the other seats, cycled; options as search:budget=64."""
    seat: int = 0
    """your seat (0 = player_0)"""
    seed: int | None = None
    """the deal; the same seed replays the same deal (none: a fresh one)"""
    save: str | None = None
    """write the game to this file as a replay (JSON lines)"""
    base: str | None = None
    """house only: core or south_african"""


def build_parser() -> argparse.ArgumentParser:
    names = ", ".join(agents.REGISTRY)
    omg = "the same" if list(agents.OMG_AGENTS) == list(agents.REGISTRY) else ", ".join(agents.OMG_AGENTS)
    ap = build_config_parser(Config, description=__doc__,
                             notes={"opponents": f"Agents: {names} (omg: {omg}); ppo loads the committed "
                                                 f"checkpoint of the ruleset. Your own: my_agent.py:MyAgent, "
                                                 f"my_pkg.mod:MyAgent, or an installed entry point's name."})
    ap.prog = "shedders play"
    return ap



def _table(env, seat: int) -> str:
    return "\n".join(line for line in env.render_text(seat=seat).splitlines() if not line.startswith("legal: "))


def choose(env, seat: int, read=input, write=print) -> int | None:
    """Ask the human for a legal action; returns its id, or None when they leave ('q' or end of input)."""
    legal = env.legal_actions()
    names = [env.action_names[a] for a in legal]
    state = env.state_dict()
    labels = [action_label(env.rules, state, name) for name in names]
    write("\n" + _table(env, seat))
    write("your moves:")
    for i, label in enumerate(labels, 1):
        write(f"  {i:>2}) {label}")
    while True:
        try:
            text = read(f"your move [1-{len(legal)}, ? for help]: ").strip()
        except EOFError:
            return None
        if text in ("q", "quit", "exit"):
            return None
        if text in ("?", "h", "help"):
            write(textwrap.fill(rules_text(env.rules), width=100))
            write(f"now: {env.constraint}")
            write(HELP)
            continue
        if text in ("t", "table"):
            write(_table(env, seat))
            continue
        if text in names:
            return legal[names.index(text)]
        if text in labels:
            return legal[labels.index(text)]
        if not re.fullmatch(r"-?[0-9]{1,9}", text):  # ASCII digits only: not '²', '--1' or 5,000 digits
            if text in env.action_names:
                write(f"'{text}' is not legal now; choose 1-{len(legal)}")
            else:
                write(f"not a number or a move: {text!r}; choose 1-{len(legal)} (? for help)")
            continue
        k = int(text)
        if not 1 <= k <= len(legal):
            write(f"no move {k}; choose 1-{len(legal)}")
            continue
        return legal[k - 1]


def main(argv: list[str] | None = None, read=input, write=print) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    kwargs = {"base": args.base} if args.base else {}
    if args.seed is not None and args.seed < 0:
        ap.error(f"--seed must be a non-negative integer, got {args.seed}")
    if args.save:
        problem = _unwritable(Path(args.save))
        if problem:
            ap.error(f"--save {args.save}: {problem}")
    try:
        env = shedders.raw_env(args.ruleset, args.players, **kwargs)
    except (ValueError, NotImplementedError) as e:
        ap.error(str(e))
    n = args.players
    if not 0 <= args.seat < n:
        ap.error(f"bad --seat {args.seat}; allowed: 0..{n - 1}")
    specs = args.opponents
    if not specs:
        ap.error("--opponents needs at least one agent")
    others = [q for q in range(n) if q != args.seat]
    labels = ["you"] * n
    policies = {}
    for i, q in enumerate(others):
        spec = specs[i % len(specs)]
        try:
            agent = agents.make_spec(spec, args.ruleset, n, seed=1000 + q, **kwargs)
        except (ValueError, TypeError, ImportError) as e:  # ImportError: ppo without torch
            ap.error(f"--opponents: {e}")
        labels[q] = spec
        policies[q] = agents.as_aec_policy(agent)
    rec = Recorder(env, players=["human" if q == args.seat else labels[q] for q in range(n)])
    rec.reset(seed=args.seed)
    seed = rec.record.header["seed"]
    write(f"shedders {args.ruleset}, {n} players, seed {seed}; you are player_{args.seat}")
    write("seats: " + ", ".join(f"player_{q}={labels[q]}" for q in range(n)))
    write(HELP + "\n")
    left = True
    try:
        left = _play(env, rec, args, policies, labels, read, write)
    except KeyboardInterrupt:  # Ctrl-C: the game so far is still saved below
        write("\ninterrupted: you left the game.")
    finally:  # on any exit, what was played is saved
        if args.save:
            path = rec.save(args.save)
            write(f"replay saved to {path} ({len(rec.record.steps)} decisions)")
    return 1 if left else 0


def _unwritable(path: Path) -> str | None:
    """Why a replay cannot be written to ``path`` (None when it can): checked before the game, not after it, by
    doing what ``Replay.save`` does first (its folders, then its temporary file beside ``path``, removed again
    unless it was there before). Permission bits alone say nothing for root, or under /proc."""
    if path.is_dir():
        return "is a directory"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return f"{path.parent} is not a directory"
    except OSError as e:
        return f"cannot write there ({e.strerror or e})"
    tmp = path.with_name(path.name + ".tmp")
    try:
        existed = tmp.exists()
        with open(tmp, "a", encoding="utf-8"):
            pass
        if not existed:
            tmp.unlink()
    except OSError as e:
        return f"cannot write there ({e.strerror or e})"
    return None


def _play(env, rec, args, policies, labels, read, write) -> bool:
    """The game loop; returns whether the human left before the end."""
    left = False
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            rec.step(None)
            continue
        seat = env.seat(agent)
        before = env.state_dict()
        if seat == args.seat:
            action = choose(env, seat, read, write)
            if action is None:
                left = True
                break
        else:
            action = policies[seat](env, agent)
        name = env.action_names[action]
        rec.step(action)
        said = explain_step(env.rules, before, env.state_dict(), seat, name, args.seat)
        if said:
            said[0] = said[0].replace(f"player_{seat} ", f"player_{seat} ({labels[seat]}) ", 1)
            write("; ".join(said))
    if left:
        write("\nyou left the game.")
    else:
        write("\n" + env.render_text(seat=args.seat))
        end = rec.record.end
        placing = env.placing()
        if end and end["truncated"]:
            write("result: truncated at the ply cap")
        else:
            reward = end["rewards"][args.seat] if end else 0.0
            order = ", ".join(f"player_{p}" for p in placing)
            write(f"result: out in order {order}; your reward {reward:+.3f}")
    return left


if __name__ == "__main__":
    sys.exit(main())
