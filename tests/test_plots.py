"""The experiment modules draw their plots without pyplot: importing them and plotting never picks or changes the
user's matplotlib backend (so notebooks keep their inline plots)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys, json
import matplotlib
before = matplotlib.get_backend()
from experiments import skill_luck, tournament, train_ppo
cfg = tournament.Config(ruleset="core", agents=["random", "greedy"], games=4, out=sys.argv[1], name="t")
summary = tournament.run(cfg, progress=False)
tournament.plot(summary, __import__("pathlib").Path(sys.argv[1]) / "again.png")
print(json.dumps({"before": before, "after": matplotlib.get_backend(),
                  "pyplot": "matplotlib.pyplot" in sys.modules}))
"""


def test_plotting_leaves_the_backend_alone(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         env={"MPLBACKEND": "svg", "PATH": "", "HOME": str(tmp_path)}, timeout=600,
                         check=False)
    assert out.returncode == 0, out.stderr
    got = __import__("json").loads(out.stdout.strip().splitlines()[-1])
    assert got == {"before": "svg", "after": "svg", "pyplot": False}
    assert (tmp_path / "again.png").stat().st_size > 1000
    assert (tmp_path / "t" / "ratings.png").stat().st_size > 1000
