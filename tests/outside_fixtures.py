"""Agents written outside the package, for the tests: a file, and an installed distribution with an entry point.

``write_agent_file(folder)`` writes ``my_agent.py`` with a working agent (``Uniform``) and broken ones;
``install_entry_point(folder)`` writes a module and the ``.dist-info`` metadata that ``importlib.metadata`` finds
on ``sys.path`` (what ``pip install`` of a package offering ``[project.entry-points."shedders.agents"]`` leaves
behind).
"""

from __future__ import annotations

from pathlib import Path

AGENT_FILE = '''
import numpy as np


class Uniform:
    """A uniformly random legal action; with ``lowest`` > 0, the legal action of lowest id that often."""

    def __init__(self, ruleset, num_players, seed=None, lowest=0.0):
        self.rng = np.random.default_rng(seed)
        self.lowest = lowest

    def act(self, observation, action_mask):
        mask = np.asarray(action_mask).astype(bool)
        out = np.empty(len(mask), np.int64)
        for i, row in enumerate(mask):
            legal = np.flatnonzero(row)
            out[i] = legal[0] if self.rng.random() < self.lowest else self.rng.choice(legal)
        return out


class Illegal:
    def __init__(self, ruleset, num_players, seed=None):
        pass

    def act(self, observation, action_mask):
        return np.array([int(np.flatnonzero(np.asarray(m) == 0)[0]) for m in action_mask])


class WrongShape:
    def __init__(self, ruleset, num_players, seed=None):
        pass

    def act(self, observation, action_mask):
        return np.zeros((len(action_mask), 2), np.int64)


class Exploding:
    def __init__(self, ruleset, num_players, seed=None):
        raise RuntimeError("no weights found")

    def act(self, observation, action_mask):
        return None


NOT_A_CLASS = 3
'''

EP_MODULE = '''
import numpy as np


class LastLegal:
    """The legal action with the highest id."""

    def __init__(self, ruleset, num_players, seed=None, **options):
        self.options = options

    def act(self, observation, action_mask):
        m = np.asarray(action_mask)
        return (m.shape[1] - 1 - np.argmax(m[:, ::-1], axis=1)).astype(np.int64)
'''

EP_NAME = "last_legal_ep"


def write_agent_file(folder: Path) -> Path:
    path = Path(folder) / "my_agent.py"
    path.write_text(AGENT_FILE)
    return path


def install_entry_point(folder: Path) -> Path:
    """A distribution ``shedders-test-ep`` in ``folder`` offering ``last_legal_ep`` in ``shedders.agents``; put
    ``folder`` on ``sys.path`` (or ``PYTHONPATH``) to install it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shedders_test_ep.py").write_text(EP_MODULE)
    info = folder / "shedders_test_ep-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shedders-test-ep\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[shedders.agents]\n{EP_NAME} = shedders_test_ep:LastLegal\n")
    return folder
