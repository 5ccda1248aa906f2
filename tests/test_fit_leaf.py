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
    x, alive, order = F.sample("core", 4, 200, 9, 0.2, 2000, progress=False)
    loser = order[np.arange(200), (order >= 0).sum(axis=1) - 1]
    assert np.all(alive.sum(axis=1) >= 2) and np.all(alive[np.arange(200), loser])
    assert np.all(x[..., :KS.LEAF_FEATURES - 4].sum(axis=-1)[alive] > 0)  # a seat still in holds cards (any zone)
    # the search loads weights from the folder it is given
    monkeypatch.setattr("agents.search.LEAF_WEIGHTS", tmp_path)
    (tmp_path / "a.json").rename(tmp_path / "leaf-core-4p.json")
    assert np.array_equal(agents.make("search", "core", 4, leaf="value")._leaf_w, one["weights"])


@pytest.mark.parametrize("ruleset", ["fatality", "og"])
def test_the_order_targets_list_the_seats_still_in_as_they_went_out(ruleset):
    """``--model order``'s targets: every seat still in at the state, each once, in the order the target rollout
    put them out (it closes with the loser); og's game ends at its first out, so only that seat is known."""
    _x, alive, order = F.sample(ruleset, 4, 300, 3, 0.2, 2000, progress=False)
    for a, o in zip(alive, order):
        known = o[o >= 0]
        assert len(set(known)) == len(known) and np.all(a[known])
        if ruleset == "og":
            assert len(known) == 1 and a.sum() == 4
        else:
            assert sorted(known) == sorted(np.flatnonzero(a))


def test_the_order_likelihood_is_plackett_lucess_and_the_loser_likelihood_a_softmax():
    """``order_nll`` against a direct sum: for each state, minus the log of each known next-out seat's share of
    exp(score) among the seats left (a lone seat costs nothing); ``loser``: minus the log of the loser's softmax
    over the seats still in."""
    import torch

    rng = np.random.default_rng(0)
    n, p = 50, 5
    score = rng.normal(size=(n, p))
    alive = rng.random((n, p)) < 0.75
    alive[:, 0] = alive[:, 1] = True
    order = np.full((n, p), -1)
    for i in range(n):
        seats = rng.permutation(np.flatnonzero(alive[i]))
        k = len(seats) if i % 3 else 1  # some rows know only the first out, as og's
        order[i, :k] = seats[:k]
    want_order = want_loser = 0.0
    for i in range(n):
        left = list(np.flatnonzero(alive[i]))
        for q in order[i][order[i] >= 0]:
            if len(left) >= 2:
                want_order -= score[i, q] - np.log(np.exp(score[i, left]).sum())
            left.remove(q)
        if i % 3:
            seats = np.flatnonzero(alive[i])
            want_loser -= score[i, order[i, len(seats) - 1]] - np.log(np.exp(score[i, seats]).sum())
    t = [torch.from_numpy(a) for a in (score, alive, order)]
    assert F.order_nll(*t, "order").item() == pytest.approx(want_order / n)
    full = torch.tensor([i % 3 != 0 for i in range(n)])
    got = F.order_nll(t[0][full], t[1][full], t[2][full], "loser").item()
    assert got == pytest.approx(want_loser / full.sum().item())


def test_a_tiny_order_fit_is_reproducible_and_learns_more_than_uniform(tmp_path):
    args = ["--ruleset", "fatality", "--samples", "600", "--test-samples", "300", "--seed", "2", "--quiet"]
    one = F.main(args + ["--out", str(tmp_path / "a.json")])
    two = F.main(args + ["--out", str(tmp_path / "b.json")])
    assert one["model"] == "order" and one["weights"] == two["weights"]
    assert all(math.isfinite(x) for x in one["weights"]) and one["train_nll"] < one["uniform_nll"]
    assert json.loads((tmp_path / "a.json").read_text())["model"] == "order"


@pytest.mark.parametrize("bad,match", [(["--ruleset", "house_rules"], "invalid choice"),
                                       (["--ruleset", "fatality", "--model", "loser"], "fatality's models: order"),
                                       (["--model", "winner"], "core's models: loser, order"),
                                       (["--ruleset", "omg", "--model", "order"], "omg's models: winner"),
                                       (["--samples", "5"], "at least"), (["--eps", "2"], "--eps"),
                                       (["--players", "9"], "--players")])
def test_bad_arguments_are_refused(bad, match, capsys):
    with pytest.raises(SystemExit):
        F.main(bad)
    assert match in capsys.readouterr().err


def test_a_tiny_omg_fit_is_reproducible_learns_more_than_uniform_and_targets_the_winner(tmp_path):
    """``--ruleset omg`` fits the winner model (omg's 20 features) to where its search's rollouts end (expert with
    10% random moves): the same seed gives the same weights, and each state's target is one seat, the winner."""
    from shedders.engine.search import omg_search as OS

    args = ["--ruleset", "omg", "--samples", "600", "--test-samples", "300", "--seed", "2", "--quiet"]
    one = F.main(args + ["--out", str(tmp_path / "a.json")])
    two = F.main(args + ["--out", str(tmp_path / "b.json")])
    assert one["model"] == "winner" and one["eps"] == 0.1 and one["weights"] == two["weights"]
    assert len(one["weights"]) == one["features"] == OS.LEAF_FEATURES
    assert all(math.isfinite(x) for x in one["weights"]) and one["train_nll"] < one["uniform_nll"]
    x, alive, order = F.sample_omg(4, 200, 5, 0.1, 2000, progress=False)
    assert alive.all() and np.all((order[:, 0] >= 0) & (order[:, 0] < 4)) and np.all(order[:, 1:] == -1)
    assert np.all(x[..., 0] >= 0) and np.all(x[..., 0].sum(axis=1) > 0)  # hand sizes, cards in play
