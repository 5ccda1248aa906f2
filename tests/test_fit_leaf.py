"""experiments/fit_leaf.py: fits the leaf weights of ``search:leaf=value`` at a tiny budget, reproducibly."""

import json
import math

import numpy as np
import pytest

import agents
from experiments import fit_leaf as F
from shedders.engine.search import palace_search as KS


def test_a_tiny_fit_writes_finite_weights_reproducibly_that_the_search_can_load(tmp_path, monkeypatch):
    args = ["--samples", "300", "--test-samples", "200", "--seed", "4", "--quiet"]
    one = F.main(args + ["--out", str(tmp_path / "a.json")])
    two = F.main(args + ["--out", str(tmp_path / "b.json")])
    assert one["weights"] == two["weights"]  # the same seed, the same fit
    saved = json.loads((tmp_path / "a.json").read_text())
    assert saved["weights"] == one["weights"] and len(saved["weights"]) == KS.LEAF_FEATURES
    assert all(math.isfinite(x) for x in saved["weights"])
    out = ["--out", str(tmp_path / "a.json")]
    assert saved["command"] == "python -m experiments.fit_leaf " + " ".join(args + out)
    assert not list(tmp_path.glob("*.tmp"))  # written atomically
    # the states are real: the seats still in are 2 to 4, and the loser is one of them
    x, alive, loser = F.sample("core", 4, 200, 9, 0.2, 2000, progress=False)
    assert np.all(alive.sum(axis=1) >= 2) and np.all(alive[np.arange(200), loser])
    assert np.all(x[..., :KS.LEAF_FEATURES - 4].sum(axis=-1)[alive] > 0)  # a seat still in holds cards (any zone)
    # the search loads weights from the folder it is given
    monkeypatch.setattr("agents.search.LEAF_WEIGHTS", tmp_path)
    (tmp_path / "a.json").rename(tmp_path / "leaf-core-4p.json")
    assert np.array_equal(agents.make("search", "core", 4, leaf="value")._leaf_w, one["weights"])


@pytest.mark.parametrize("bad,match", [(["--ruleset", "fatality"], "invalid choice"),
                                       (["--samples", "5"], "at least"), (["--eps", "2"], "--eps"),
                                       (["--players", "9"], "--players")])
def test_bad_arguments_are_refused(bad, match, capsys):
    with pytest.raises(SystemExit):
        F.main(bad)
    assert match in capsys.readouterr().err
