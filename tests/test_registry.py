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
    """core with one card's power off, registered as one record: make_rules builds it from the record, its
    ``<name>_v0`` shim (one line, as every palace ruleset's) gives an env that passes PettingZoo's API test and
    plays a whole game, VectorGame steps it, and its docs page is generated, with no other file touched."""
    from pettingzoo.test import api_test

    from shedders.envs import _docs
    from shedders.explain import rules_text

    record = replace(REGISTRY["core"], name="core_no_burn", preset=MappingProxyType({"burn_10": False}),
                     title="# core_no_burn: core without the 10's burn",
                     short_rules="core_no_burn: {common} 10 is a plain card.")
    monkeypatch.setitem(RG.REGISTRY, "core_no_burn", record)
    rules = make_rules("core_no_burn", 4)
    assert rules.name == "core_no_burn" and not rules.burn_10 and rules.mirror_5
    env_fn, raw_env_fn, doc = _docs.palace_module("core_no_burn")  # what core_no_burn_v0.py would hold
    api_test(env_fn(3), num_cycles=200)
    env = raw_env_fn(4)
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
    assert doc.startswith("# core_no_burn: core without the 10's burn")
    assert "`from shedders.envs import core_no_burn_v0`" in doc and "N = 2-5" in doc
    assert "Quoted from seed 003" in doc and "## Version history\n- v0: first release." in doc
    assert rules_text(rules).startswith("core_no_burn: Play one or more cards") and "{" not in rules_text(rules)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_record_documents_itself(name):
    """Each record names its docs: a title, its seed's text and its specs as data files that exist, and short
    rules whose every placeholder is filled."""
    from shedders.explain import rules_text

    record = REGISTRY[name]
    assert record.title.startswith(f"# {name}: ")
    assert record.doc("seed_text") and record.doc("specs") and record.doc("rewards_doc")
    text = rules_text(make_rules(name, RG.player_range(record)[0]))
    assert text.startswith(name) and "{" not in text
    assert len(record.version_notes) == record.version
