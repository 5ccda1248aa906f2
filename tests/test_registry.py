"""The ruleset registry: one record per ruleset, the tables read off it, and ``make_rules`` building any record,
a throwaway one too, without a branch per name."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest

import shedders
from shedders.rules import HOUSE_BASES, OMG_PLAYER_RANGE, PLAYER_RANGE, PRESETS, REGISTRY, RULESETS, make_rules
from shedders.rules import registry as RG


def test_the_tables_are_read_off_the_records():
    assert RULESETS == tuple(REGISTRY) == ("og", "fatality", "core", "south_african", "house", "omg")
    assert PLAYER_RANGE == {"og": (2, 8), "fatality": (2, 6), "core": (2, 5), "south_african": (2, 6)}
    assert HOUSE_BASES == ("core", "south_african") and OMG_PLAYER_RANGE == (2, 8)
    assert set(PRESETS) == set(PLAYER_RANGE) and PRESETS["core"] == {}
    from shedders.envs.info import REWARD_BOUNDS
    from shedders.envs.palace_env import VERSIONS

    assert REWARD_BOUNDS == {name: r.reward_bounds for name, r in REGISTRY.items()}
    assert VERSIONS == {"house": 1}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_record_builds_at_both_ends_of_its_player_range_and_refuses_beyond(name):
    record = REGISTRY[name]
    lo, hi = RG.player_range(record)
    for n in (lo, hi):
        rules = make_rules(name, n)
        assert rules.name == name and rules.num_players == n
    for n in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match=f"num_players {n}"):
            make_rules(name, n)


def test_an_unknown_ruleset_names_the_registered_ones():
    with pytest.raises(ValueError, match="unknown ruleset 'poker'; allowed: og, fatality, core"):
        make_rules("poker", 4)
    with pytest.raises(ValueError, match="unknown ruleset"):
        RG.lookup(["core"])


def test_a_throwaway_palace_ruleset_is_one_record(monkeypatch):
    """core with one card's power off, registered as one record: make_rules builds it from the record, the AEC env
    plays a whole game of it and VectorGame steps it, with no other file touched."""
    record = replace(REGISTRY["core"], name="core_no_burn", preset=MappingProxyType({"burn_10": False}))
    monkeypatch.setitem(RG.REGISTRY, "core_no_burn", record)
    rules = make_rules("core_no_burn", 4)
    assert rules.name == "core_no_burn" and not rules.burn_10 and rules.mirror_5
    env = shedders.raw_env("core_no_burn", 4)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not env.game_over:
        agent = env.agent_selection
        dead = env.terminations.get(agent) or env.truncations.get(agent)
        env.step(None if dead else int(rng.choice(env.legal_actions())))
    assert env.game_over
    vg = shedders.VectorGame("core_no_burn", 8, 4, seed=0)
    vg.reset()
    for _ in range(50):
        vg.step(vg.sample_legal())
