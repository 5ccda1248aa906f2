"""A demo game: simple built-in players play one seeded game; the table and the result are printed.

    python -m shedders.demo --ruleset south_african --players 4 --seed 7

The built-in players are deliberately simple: ``lowest`` is the agents package's ``greedy`` (it readies at once,
plays its lowest legal rank with every copy it holds, keeps wilds for when nothing else goes, and picks up only
when it must); ``random`` picks uniformly among legal actions.
"""

from __future__ import annotations

import argparse

import numpy as np

import agents
import shedders
from shedders.rules import lookup


def players(rules, seed: int) -> dict:
    """The built-in players for one game, every one drawing from ``seed`` only, so a seed replays the same game:
    ``lowest`` is the agents package's ``greedy`` (lowest plain legal rank, all copies; wilds only when nothing
    else goes; pickup last; og: covers with its best cards, sneaks plain cards), ``random`` a uniform legal
    action."""
    rng = np.random.default_rng(seed)
    options = {"base": rules.base} if lookup(rules.name).bases else {}
    greedy = agents.as_aec_policy(agents.make("greedy", rules.name, rules.num_players, seed=seed, **options))
    return {"lowest": lambda env: greedy(env, env.agent_selection),
            "random": lambda env: int(rng.choice(env.legal_actions()))}


PLAYERS = ("lowest", "random")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="south_african",
                    choices=list(shedders.RULESETS))
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--seats", default="lowest,random", help="players by seat, cycled (built-in: lowest, random)"
    )
    ap.add_argument("--show", type=int, default=3, help="print the full table for the first SHOW plays")
    ap.add_argument("--quiet", action="store_true", help="print only the result")
    args = ap.parse_args(argv)
    kinds = args.seats.split(",")
    for k in kinds:
        if k not in PLAYERS:
            ap.error(f"unknown player {k!r}; built-in: {', '.join(PLAYERS)}")
    try:
        env = shedders.raw_env(args.ruleset, args.players)
        env.reset(seed=args.seed)
    except ValueError as e:
        ap.error(str(e))
    play = players(env.rules, args.seed)
    seat_kind = {a: kinds[i % len(kinds)] for i, a in enumerate(env.possible_agents)}
    say = (lambda *a: None) if args.quiet else print
    say(f"shedders demo: {args.ruleset}, {args.players} players, seed {args.seed}")
    say("seats: " + ", ".join(f"{a}={k}" for a, k in seat_kind.items()) + "\n")
    shown = 0
    moves = 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        at_turn = env.phase == "play" and env.seat(agent) == env.turn
        if at_turn and shown < args.show:
            say(env.render_text() + "\n")
            shown += 1
        action = play[seat_kind[agent]](env)
        if env.phase != "setup":
            say(f"  {agent}: {env.action_names[action]}")
        env.step(action)
        moves += 1
    say("\n" + env.render_text(seat=0))
    st = env.state_dict()
    result = {"placing": st["placing"], "plies": moves, "truncated": env.game_truncated}
    loser = env.last_loser
    st["placing"] = env.placing()
    if result["truncated"]:
        outcome = "truncated at the ply cap"
    elif lookup(env.rules.name).first_out_wins:
        winner = st["placing"][0]
        outcome = f"winner: player_{winner} ({seat_kind[f'player_{winner}']})"
    else:
        last = "Shithead" if env.rules.shithead_shaming else "last"
        outcome = f"{last}: player_{loser} ({seat_kind[f'player_{loser}']})"
    print(f"\nresult: out in order {[f'player_{p}' for p in st['placing']]}, {outcome}, {moves} decisions")
    return result


if __name__ == "__main__":
    main()
