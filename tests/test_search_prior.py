"""``search:prior=...``: a network narrows the searched actions to its ``top_k`` likeliest. The kernels search only
those, batched and for a lone decision over the threads; with every legal action allowed the search is the plain
one, choice for choice; bad settings are refused."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import agents
import shedders
from shedders.engine.search import palace_search as KS

SPEC = "search:budget=48+eps=0.2+max_plies=12+leaf=value"


def midgame(ruleset: str = "core", games: int = 12, seed: int = 3, plies: int = 40):
    vg = shedders.VectorGame(ruleset, games, 4, seed=seed)
    vg.reset()
    for _ in range(plies):
        vg.step(vg.sample_legal())
    live = np.flatnonzero(~(vg.terminated | vg.truncated))
    return vg, live


def test_allowed_marks_the_networks_top_k_legal_actions():
    vg, live = midgame()
    agent = agents.make_spec(f"{SPEC}+prior=learned+top_k=2", "core", 4, seed=1)
    obs, mask = vg.observation[live], vg.action_mask[live]
    allow = agent.allowed(obs, mask)
    p = agent._prior.probabilities(obs, mask)
    assert np.all(allow <= (mask != 0))  # never an illegal action
    assert np.array_equal(allow.sum(1), np.minimum(2, (mask != 0).sum(1)))
    for r in range(len(live)):
        kept, left = p[r][allow[r] == 1], p[r][(allow[r] == 0) & (mask[r] != 0)]
        assert len(left) == 0 or kept.min() >= left.max()  # the likeliest ones


def test_the_search_tries_only_the_allowed_actions_batched_and_alone():
    vg, live = midgame()
    assert (vg.num_legal[live] > 2).sum() >= 3  # real narrowing happens in this position
    agent = agents.make_spec(f"{SPEC}+prior=learned+top_k=2", "core", 4, seed=1)
    allow = agent.allowed(vg.observation[live], vg.action_mask[live])
    acts = agent.act(vg.observation[live], vg.action_mask[live], state=vg.state, games=live)
    assert all(allow[j, a] for j, a in enumerate(acts))
    g = int(live[np.argmax(vg.num_legal[live])])
    one = agent.allowed(vg.observation[[g]], vg.action_mask[[g]])
    for threads in (1, numba.config.NUMBA_NUM_THREADS):  # one thread, then the decision over every thread
        numba.set_num_threads(threads)
        try:
            a = agent.act(vg.observation[[g]], vg.action_mask[[g]], state=vg.state, games=np.array([g]))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert one[0, a[0]] == 1


@pytest.mark.parametrize("select", ["uniform", "halving"])
def test_with_every_legal_action_allowed_the_search_is_the_plain_one(select):
    vg, live = midgame(seed=7)
    wide = agents.make_spec(f"{SPEC}+select={select}+prior=learned+top_k=1000", "core", 4, seed=5)
    plain = agents.make_spec(f"{SPEC}+select={select}", "core", 4, seed=5)
    a = wide.act(vg.observation[live], vg.action_mask[live], state=vg.state, games=live)
    b = plain.act(vg.observation[live], vg.action_mask[live], state=vg.state, games=live)
    assert np.array_equal(a, b)


def test_keep_allowed_keeps_the_order_and_never_empties_the_search():
    ids = np.array([3, 7, 9, 12, 0, 0], np.int16)
    allow = np.zeros(20, np.int8)
    allow[[9, 3]] = 1
    assert KS.keep_allowed_nb(ids, 4, allow) == 2 and list(ids[:2]) == [3, 9]
    ids = np.array([3, 7, 9], np.int16)
    assert KS.keep_allowed_nb(ids, 3, np.zeros(20, np.int8)) == 3 and list(ids) == [3, 7, 9]


def test_bad_priors_are_refused(tmp_path):
    for spec, words in ((f"{SPEC}+prior=learned+top_k=0", "top_k"), (f"{SPEC}+prior=nothing", "prior"),
                        (f"{SPEC}+prior={tmp_path / 'missing.pt'}", "prior")):
        with pytest.raises(ValueError, match=words):
            agents.make_spec(spec, "core", 4)
    with pytest.raises(ValueError, match="no network"):  # learned falls back to expert at 3 players
        agents.make_spec("search:budget=32+prior=learned", "core", 3)
    with pytest.raises(ValueError, match="prior"):  # omg's kernel tries every action
        agents.make_spec("search:budget=32+prior=learned", "omg", 4)
    vg, live = midgame()
    agent = agents.make_spec(f"{SPEC}+prior=learned", "core", 4)
    with pytest.raises(ValueError, match="every legal action"):
        agent.evaluate(vg.state, live)
