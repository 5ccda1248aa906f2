"""Builds the notebooks from the cells below and executes them, storing their outputs:

    python notebooks/build.py                 # every notebook
    python notebooks/build.py tour            # one

tests/test_notebooks.py executes every notebook top to bottom in CI and checks that the committed notebooks hold
the cells written here.
"""

import os
import sys
from pathlib import Path

import nbformat as nbf

NOTEBOOKS: dict[str, list] = {}
cells: list = []


def notebook(name: str) -> None:
    """Start the cells of notebooks/<name>.ipynb."""
    global cells
    cells = NOTEBOOKS.setdefault(name, [])


def md(text):
    cells.append(nbf.v4.new_markdown_cell(text.strip()))


def code(text):
    cells.append(nbf.v4.new_code_cell(text.strip()))


notebook("tour")

md("""
# A tour of shedders

This notebook walks through the parts a researcher touches first: an environment, a scripted position, the
agents, a small tournament with its plot, and a replay. It runs top to bottom in a few seconds once the numba
kernels are compiled (the first import of a session compiles or loads them from the on-disk cache).
""")
code("""
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import agents
import shedders

print(shedders.RULESETS)
""")
md("""
## 1. An environment

Every ruleset is a PettingZoo AEC environment with an action mask. Players who go out are stepped with `None`, as
PettingZoo does. Here four random players play one `core` game.
""")
code("""
env = shedders.env("core", num_players=4, render_mode="ansi")
env.reset(seed=42)
rng = np.random.default_rng(0)
decisions = 0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
    decisions += action is not None
print(f"{decisions} decisions; out in order", env.unwrapped.state_dict()["placing"])
""")
md("""
## 2. A scripted scenario, rendered

Any position can be set up as a scenario dict and read back in the same form. In `south_african` a Joker forces the
next player to eat the pile unless someone counters with a Joker of their own; the renderer shows the table as the
player to act sees it (never a hidden card).
""")
code("""
raw = shedders.raw_env("south_african", num_players=3)
raw.reset(options={"scenario": {
    "ruleset": "south_african", "current_player": 0, "phase": "play",
    "players": [{"hand": ["JOKER", "4"]}, {"hand": ["JOKER", "9"]}, {"hand": ["K"]}],
    "pile": ["6", "7"], "deck": [],
}})
raw.step(raw.action_id("play 1xJOKER"))
print(raw.render_text())
""")
code("""
raw.step(raw.action_id("play 1xJOKER"))   # player_1 counters: the punishment goes back to player_0
print(raw.state_dict()["phase"], raw.agent_selection, raw.legal_action_names())
""")
md("""
In `og`, sneaking is an out-of-turn decision: after a play, each other player holding that rank is asked in turn.
""")
code("""
og = shedders.raw_env("og", num_players=3)
og.reset(options={"scenario": {
    "ruleset": "og", "current_player": 0, "phase": "play",
    "players": [{"hand": ["6", "4"], "face_up": ["A"]}, {"hand": ["J"], "face_up": ["Q"]},
                {"hand": ["6", "9"], "face_up": ["Q"]}],
    "pile": ["5"],
}})
og.step(og.action_id("play 1x6"))
print(og.render_text())
""")
md("""
## 3. Agents on the batched engine

`VectorGame` steps many games at once in numba. Agents take batches of observations and masks. Here `greedy`
plays seat 0 of 256 games against three `random` players; we count how often it is not the Shithead.
""")
code("""
n_games = 256
vg = shedders.VectorGame("core", num_envs=n_games, num_players=4, seed=1, autoreset=False)
vg.reset()
greedy = agents.make("greedy", ruleset="core", num_players=4, seed=0)
rand = agents.make("random", ruleset="core", num_players=4, seed=0)
live = np.ones(n_games, bool)
loser = np.full(n_games, -1)
while live.any():
    actions = np.full(n_games, -1)
    mine = live & (vg.current_player == 0)
    theirs = live & (vg.current_player > 0)
    if mine.any():
        actions[mine] = greedy.act(vg.observation[mine], vg.action_mask[mine])
    if theirs.any():
        actions[theirs] = rand.act(vg.observation[theirs], vg.action_mask[theirs])
    vg.step(actions)
    ended = live & (vg.terminated | vg.truncated)
    loser[ended] = vg.final_placing[ended, -1]
    live &= ~ended
print(f"greedy in seat 0 avoids being the Shithead in {np.mean(loser != 0):.1%} of {n_games} games "
      f"(a random player would in 75%)")
""")
md("""
## 4. A small tournament, and its plot

`experiments.tournament` replays the same deals in every seat rotation (duplicate format), reports win rate,
placing and reward with 95% intervals, head-to-head results and OpenSkill ratings, and writes CSV, JSON and a plot
under `runs/`. This one is tiny (24 deals); `experiments/RESULTS.md` holds real runs.
""")
code("""
from experiments import tournament as T

out = Path(tempfile.mkdtemp())
cfg = T.Config(ruleset="core", players=4, agents=["random", "greedy", "expert"], games=24, seed=0,
               out=str(out), name="tour", replays=1)
summary = T.run(cfg, progress=False)
print(T.table(summary))
""")
code("""
rows = sorted(summary["agents"], key=lambda r: r["mean_reward"])
fig, ax = plt.subplots(figsize=(6, 2.2))
y = np.arange(len(rows))
mean = np.array([r["mean_reward"] for r in rows])
err = np.array([[r["mean_reward"] - r["reward_lo"], r["reward_hi"] - r["mean_reward"]] for r in rows]).T
ax.errorbar(mean, y, xerr=err, fmt="o", capsize=4)
ax.axvline(0, color="grey", lw=0.8)
ax.set_yticks(y, [r["agent"] for r in rows])
ax.set_xlabel("mean reward per game, 95% interval over deals")
ax.set_title(f"core, 4 players, {summary['games']} games")
fig.tight_layout()
plt.show()
""")
md("""
## 5. Replays

Any game can be saved as JSON lines and stepped through again; every state is checked against the recording.
The tournament above saved its first game; `shedders replay FILE` does the same on the command line, and
`shedders play` saves the games you play yourself (`--save`).
""")
code("""
from shedders import replay as R

path = out / "tour" / "replays" / "game_0000.jsonl"
rep = R.load(path)
print(rep.header["players"], len(rep.steps), "decisions; result", rep.end["placing"])
shown = False
for step, env in R.replay(rep):
    if step is not None and not shown and step["ply"] >= 30 and env.state_dict()["phase"] == "play":
        print(env.render_text())
        print("next:", step["agent"], step["name"])
        shown = True
print("verified:", R.verify(path), "decisions reproduce exactly")
""")


notebook("skill_vs_luck")
md("""
# Skill versus luck, ruleset by ruleset

How much does playing well matter in each shedders ruleset, and how much is the deal? This notebook loads the
report of `experiments.skill_luck` (the committed run of `experiments/RESULTS.md`) and puts the rulesets side by
side. The methods, with formulas and references, are in `experiments/README.md`:

- **relative skill** (Dreef, Borm and van der Genugten 2004): learning effect (best real agent minus the beginner,
  `random`) over learning effect plus random effect (the fictive player who knows every hidden card, `oracle`,
  minus the best real agent), in expected reward, for one seat against a fixed field;
- **win rate by agent strength**: one agent alone against three `random` players, against the luck-only rate;
- **games to lead**: how many games the better of two agents needs to be ahead in total reward with 95%
  confidence;
- **variance shares**: how much of the variance of a seat's reward is the hand it was dealt, how much the agent.
""")
code("""
import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

root = Path.cwd() if (Path.cwd() / "experiments").exists() else Path.cwd().parent
report = json.loads((root / "experiments" / "results" / "skill_luck-4p.json").read_text())
rs = report["rulesets"]
names = [r["ruleset"] for r in rs]
fld = report["config"]["field_agent"]
print(report["command"])
minutes = report["seconds"] / 60
print(f"{report['config']['deals']} deals per tournament; {minutes:.0f} minutes on the 2-core machine")
""")
md("""
## Relative skill

0 means the best real agent does no better than the beginner (pure luck); 1 means knowing every hidden card would
not help the best real agent (pure skill). Against `random` opponents a competent agent rarely loses in the
Shithead rulesets, which pushes the measure towards 1; against a field of `greedy` players it separates the
rulesets.
""")
code("""
fig, ax = plt.subplots(figsize=(7, 3.2))
x = np.arange(len(rs))
na = {"relative_skill": np.nan, "rs_lo": np.nan, "rs_hi": np.nan}  # a report run with --oracle ""
for off, key in ((-0.12, fld), (0.12, "random")):
    m = np.array([r["relative_skill"].get(key, na)["relative_skill"] for r in rs])
    lo = np.array([r["relative_skill"].get(key, na)["rs_lo"] for r in rs])
    hi = np.array([r["relative_skill"].get(key, na)["rs_hi"] for r in rs])
    ax.errorbar(x + off, m, yerr=[m - lo, hi - m], fmt="o", capsize=4, label=f"one seat vs {key}")
ax.axhline(0.5, color="grey", lw=0.6, ls=":")
ax.set_xticks(x, names)
ax.set_ylabel("relative skill (95% interval)")
ax.legend()
plt.show()
for r in rs:
    if fld not in r["relative_skill"]:
        print(f"{r['ruleset']:>14}: no fictive player")
        continue
    s = r["relative_skill"][fld]
    print(f"{r['ruleset']:>14}: beginner {s['means'][s['beginner']]:+.3f}, best real ({s['best']}) "
          f"{s['means'][s['best']]:+.3f}, fictive {s['means'][s['fictive']]:+.3f} -> RS {s['relative_skill']:.2f}")
""")
md("""
## Win rate by agent strength

Each agent alone against three `random` agents, in every seat of the same deals. The dotted line of each ruleset
is the luck-only win rate: 1/4 in og and fatality (one winner), 3/4 in the Shithead rulesets (everyone but the
Shithead wins).
""")
code("""
agents_ = list(rs[0]["field_random"])
nan = {"win_rate": np.nan, "win_rate_lo": np.nan, "win_rate_hi": np.nan}
fig, ax = plt.subplots(figsize=(7, 3.4))
for k, r in enumerate(rs):
    m = np.array([r["field_random"].get(a, nan)["win_rate"] for a in agents_])
    lo = np.array([r["field_random"].get(a, nan)["win_rate_lo"] for a in agents_])
    hi = np.array([r["field_random"].get(a, nan)["win_rate_hi"] for a in agents_])
    line = ax.errorbar(np.arange(len(agents_)) + 0.04 * k, m, yerr=[m - lo, hi - m], marker="o", capsize=3,
                       label=r["ruleset"])
    ax.axhline(r["baseline"], color=line[0].get_color(), ls=":", lw=0.8)
ax.set_xticks(np.arange(len(agents_)), agents_)
ax.set_ylabel("win rate vs three random (95%)")
ax.legend(fontsize=8)
plt.show()
""")
md("""
## Games to lead

How many games the better agent needs before it is ahead in total reward with 95% confidence, each agent playing
alone against the reference field, on fresh deals (the normal approximation). Duplicate deals (both agents playing
the same cards) need fewer.
""")
code("""
pairs = [(p["a"], p["b"]) for p in rs[0]["reward_lead"]]
fig, ax = plt.subplots(figsize=(7, 3.2))
width = 0.8 / len(pairs)
for i, (a, b) in enumerate(pairs):
    found = [next((p for p in r["reward_lead"] if (p["a"], p["b"]) == (a, b)), None) for r in rs]
    vals = [p["games_to_lead"] if p and np.isfinite(p["games_to_lead"]) else np.nan for p in found]
    ax.bar(np.arange(len(rs)) + (i - len(pairs) / 2 + 0.5) * width, vals, width, label=f"{a} vs {b}")
ax.set_yscale("log")
ax.set_xticks(np.arange(len(rs)), names)
ax.set_ylabel(f"games to lead (field of {fld})")
ax.legend(fontsize=8)
plt.show()
""")
md("""
## Where the variance comes from

The reward of one seat against the reference field, split into the hand it was dealt, the agent that played it
(random, greedy, expert, search, every hand played once by each) and the rest (how the two interact, and the
play's own randomness).
""")
code("""
fig, ax = plt.subplots(figsize=(7, 3))
bottom = np.zeros(len(rs))
for key in ("hand", "agent", "rest"):
    v = np.array([r["variance"][key] for r in rs])
    ax.bar(names, v, bottom=bottom, label=key)
    bottom += v
ax.set_ylabel("share of variance")
ax.legend()
plt.show()
""")
md("""
## What it shows

- **og is the luck-heavy one.** Against a field of `greedy` players its relative skill is 0.25: most of what
  separates the best real agent from the player who sees every hidden card is information, not play. The agent
  explains 4% of the variance of a seat's reward. A `random` player still wins about 1 game in 18 against three
  `greedy` players, and `expert` does not beat `greedy` reliably (about 4,600 games to lead). Seed 000's claim,
  that a newcomer sometimes wins and skill does not let anyone crush the table, holds for the agents measured.
- **fatality sits in the middle** (0.59): its forced plays and finishing-position scoring reward good play more.
- **core and south_african are skill-heavy** (0.91): a competent player is almost never the Shithead against
  beginners, and the agent explains most of the variance. south_african's field-of-`greedy` numbers rest on the
  games that end (most games among `greedy` players hit the ply cap: Joker ping-pong).
- Against a field of `random` every ruleset measures close to 1: relative skill depends on the opponents.
- **omg** is luck-heavy at the top (0.33): `greedy` wins 96% against three `random` players, but above `greedy`
  the real agents barely gain, while the oracle, which sees the hands and the deck, wins 78% against `greedy`.
""")
md("""
## The revised measures: beginners, player counts, a certified fictive player

The tables above are the first report. The revision (`experiments/RESULTS.md`, "Skill versus luck, revised")
changes the method: the heuristics no longer loop (games end), capped games are decided by cards left
(`most_cards`), the best real player is chosen on the even deals and measured on the odd ones, relative skill is
given with `random` and with `greedy` as the beginner, the oracle models the field it sits at and its budget is
doubled until its random effect settles, and every field also gets the lower bound that puts the game's best
payoff in the fictive player's place. At 2 and 6 players there is no oracle run: the bound is the measure. Filled
markers: the oracle; open squares: the bound.
""")
code("""
results = root / "experiments" / "results"
v2 = {p: json.loads((results / f"skill_luck-v2-{p}p.json").read_text()) for p in (2, 4, 6)}
fig, axes = plt.subplots(1, 3, figsize=(15, 3.6), sharey=True)
for ax, (players, rep) in zip(axes, v2.items()):
    names_ = [r["ruleset"] for r in rep["rulesets"]]
    x = np.arange(len(names_))
    k = 0
    for fld in ("greedy", "random"):
        for beg in ("random", "greedy"):
            off = (k - 1.5) * 0.15
            for key, marker in (("relative_skill_by_beginner", "o"), ("relative_skill_bound", "s")):
                vals = [r.get(key, {}).get(fld, {}).get(beg) for r in rep["rulesets"]]
                m = np.array([v["relative_skill"] if v else np.nan for v in vals], float)
                lo = np.array([v["rs_lo"] if v else np.nan for v in vals], float)
                hi = np.array([v["rs_hi"] if v else np.nan for v in vals], float)
                ax.errorbar(x + off, m, yerr=[m - lo, hi - m], fmt=marker, ms=4, capsize=2, color=f"C{k}",
                            mfc=None if marker == "o" else "none",
                            label=f"field {fld}, beginner {beg}" if marker == "o" else None)
            k += 1
    ax.set_xticks(x, names_, rotation=20)
    ax.set_title(f"{players} players")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axhline(1, color="grey", lw=0.5)
axes[0].set_ylabel("relative skill")
axes[0].set_ylim(-0.3, 1.15)
axes[1].legend(fontsize=7, loc="lower right")
plt.show()
""")
md("""
Seat advantage in fields of copies: each seat's mean reward minus the table's, and the Wald test of "no seat
advantage" (a small p would refute it).
""")
code("""
for players, rep in v2.items():
    for r in rep["rulesets"]:
        for name, e in r.get("seat_effects", {}).items():
            print(f"{players}p {r['ruleset']:14s} {name:7s} seat excess reward",
                  " ".join(f"{t['excess']:+.3f}" for t in e["seats"]),
                  f"(+-{e['half_width']:.3f}), no-advantage p = {e['p_value']:.2f}")
""")
md("""
## Make your own report

`python -m experiments.skill_luck --all` measures every ruleset; here is the same on a tiny budget (two deals,
searches of two rollouts) so the notebook runs in seconds. Such numbers are noise; the committed run uses 80 deals.
""")
code("""
from experiments import skill_luck as S

cfg = S.Config(rulesets=["fatality"], deals=2, agents=["random", "greedy", "search:budget=2"],
               oracle="oracle:budget=2", copies=["greedy"], bootstrap=20, out=tempfile.mkdtemp())
tiny = S.run(cfg, progress=False)
print(S.report_markdown(tiny).split("## fatality")[0])
""")

def build(name: str):
    return nbf.v4.new_notebook(cells=NOTEBOOKS[name], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})


def execute(nb, cwd: Path):
    """Run a notebook top to bottom in a kernel on this interpreter; drop the kernel's start-up warnings."""
    from nbclient import NotebookClient

    # ipykernel's kernel spec runs "python": put this interpreter's directory first on the PATH
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = [o for o in c.outputs
                         if not (o.get("name") == "stderr" and "IPKernelApp" in o.get("text", ""))]
    return nb


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for name in sys.argv[1:] or list(NOTEBOOKS):
        nb = execute(build(name), here.parent)
        nbf.write(nb, here / f"{name}.ipynb")
        print(f"wrote {here / name}.ipynb")
