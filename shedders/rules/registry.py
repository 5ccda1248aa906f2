"""One record per ruleset: every fact about a ruleset that code outside the engine asks for, in one place.

``make_rules`` builds a ruleset's config from its record, and the tables other modules keep (``RULESETS``,
``PLAYER_RANGE``, ``PRESETS``, ``HOUSE_BASES``, the reward bounds and versions) are read off these records, so a
ruleset is described once. A name that is not registered is a ``ValueError`` listing the registered ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType

from shedders.rules.palace import FATALITY, FATALITY_TOGGLES, HOUSE_TOGGLES, OG, SOUTH_AFRICAN


@dataclass(frozen=True)
class Ruleset:
    """The facts of one ruleset.

    - ``family``: ``"palace"`` (hand, face-up and face-down cards, a pile to beat) or ``"omg"``.
    - ``players``: the player range, (lo, hi); a ruleset built on ``bases`` takes its base's.
    - ``preset``: the ``PalaceRules`` fields it sets over the defaults (core's rules).
    - ``toggles``: the rule names ``rules=`` accepts (each True or False); ``toggle_word`` names them in errors.
    - ``bases``: rulesets it may start from (``base=``, the first the default); their preset comes first.
    - ``two_decks_from``: from this many players the game uses two decks and sets of 5 (og, seed 000).
    - ``takes_deck``: the game is played with a deck file (``deck=``; omg).
    - ``payout``: how a game pays: ``"loser"`` (the last holding cards -1, every other seat +1/(N-1), on going
      out), ``"places"`` (by finishing place) or ``"winner"`` (the first out +1, every other seat -1/(N-1)).
    - ``reward_bounds``: the least and most a seat can collect in one game.
    - ``version``: the env's ``_vN``, bumped with each change that alters play; ``version_notes``: why, one line
      per version after v0.
    - Rule features code asks about: ``first_out_wins`` (``payout == "winner"``: the game ends at its first player
    out),
      ``three_forces_pickup`` (a 3 leaves play and the next player must pick up), ``opens_after_pickup`` (who
      picks up opens a fresh pile in the same turn).
    - Docs (the env module's page and the rules in short): ``title``; ``seed_text`` and ``specs``, data files of
      ``shedders/data/rulesets`` joined in order (a ruleset built on another lists the other's first);
      ``rewards_doc``, a data file; ``short_rules``, a format string (``{common}``: the family's common rules,
      ``{base}``, ``{on}``: the toggles on, ``{powers}``: omg's powers).
    """

    name: str
    family: str = "palace"
    players: tuple[int, int] | None = None
    preset: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    toggles: tuple[str, ...] = ()
    toggle_word: str = "rule"
    bases: tuple[str, ...] = ()
    two_decks_from: int | None = None
    takes_deck: bool = False
    payout: str = "loser"
    reward_bounds: tuple[float, float] = (-1.0, 1.0)
    version: int = 0
    version_notes: tuple[str, ...] = ()
    three_forces_pickup: bool = False
    opens_after_pickup: bool = False
    title: str = ""
    seed_text: tuple[str, ...] = ()
    specs: tuple[str, ...] = ()
    rewards_doc: str = "rewards_shithead.md"
    short_rules: str = ""

    @property
    def first_out_wins(self) -> bool:
        return self.payout == "winner"

    def doc(self, part: str) -> str:
        """The text of ``part`` (``"seed_text"``, ``"specs"`` or ``"rewards_doc"``) from its data files."""
        names = getattr(self, part)
        return "\n".join(data_text(n) for n in ((names,) if isinstance(names, str) else names))


DOCS_DIR = Path(__file__).resolve().parents[1] / "data" / "rulesets"


@cache
def data_text(name: str) -> str:
    """A docs data file of ``shedders/data/rulesets``, without its final newline."""
    return (DOCS_DIR / name).read_text(encoding="utf-8").rstrip("\n")


def _frozen(fields: dict) -> MappingProxyType:
    return MappingProxyType(dict(fields))


#: every ruleset, in the order the package lists them
REGISTRY: dict[str, Ruleset] = {r.name: r for r in (
    Ruleset(
        "og", players=(2, 8), preset=_frozen(OG), two_decks_from=6, payout="winner",
        three_forces_pickup=True, opens_after_pickup=True,
        title="# og: the restaurant game with covers, blinds and sneaking (seed 000)",
        seed_text=("seed_000_og.md",), specs=("specs_og.md",), rewards_doc="rewards_og.md",
        short_rules="og: 3-5 players. {common} 2 on anything, resets. 3 on anything: it leaves play and the next "
                    "player must pick up the pile. 7 only on 2-7; next must play 7 or lower. 10 burns. A full set "
                    "(4 of a rank on top) burns. Out of turn, you may sneak a card of the rank just played. No "
                    "voluntary pickup. The first out wins.",
    ),
    Ruleset(
        "fatality", players=(2, 6), preset=_frozen(FATALITY), toggles=FATALITY_TOGGLES,
        toggle_word="fatality rule",
        payout="places",
        title="# fatality: forced play, named Jokers, 8 skips and finishing-position scoring (seed 002)",
        seed_text=("seed_002_fatality.md",), specs=("specs_fatality.md",),
        rewards_doc="rewards_fatality.md",
        short_rules="fatality: {common} 2 and 3 are wild. 7: next must play 7 or lower. 8 skips one player per 8. "
                    "10 burns and you play again. Four of a rank burns. Jokers stand for any rank. With an empty "
                    "hand you may pick up the pile with face-up cards of one rank. Last holding cards loses.",
    ),
    Ruleset(
        "core", players=(2, 5),
        title="# core: Shithead's foundation (seed 003, variant Core)",
        seed_text=("seed_003_core.md",), specs=("specs_core.md",),
        short_rules="core: {common} 2 resets the pile. 5 mirrors the card beneath it. 7: next must play under 7 "
                    "(or a wild). 10 burns and you go again. Four of a rank burns. Last holding cards loses.",
    ),
    Ruleset(
        "south_african", players=(2, 6), preset=_frozen(SOUTH_AFRICAN),
        title="# south_african: eight special cards (seed 003, variant South African)",
        seed_text=("seed_003_core.md", "seed_003_south_african.md"),
        specs=("specs_core.md", "specs_south_african.md"),
        short_rules="south_african: core's rules, plus: 8 skips (one per 8), Q reverses the direction, A "
                    "nominates a player who must answer with a 2, 5, A or Joker or pick up the pile, and a Joker "
                    "makes the next player pick up the pile unless someone counters with a Joker.",
    ),
    Ruleset(
        "house", toggles=HOUSE_TOGGLES, bases=("core", "south_african"), version=1,
        version_notes=((
            "v1: who starts looks for a 3 before the lowest plain card, whatever `reset_2` is (seed 003: \"Anyone "
            "holding a 3 in their hole cards goes first. Nobody has one? The player with the lowest plain card "
            "starts.\"); in v0, with `rules={\"reset_2\": False}`, a plain 2 started ahead of a 3. `house_v0` "
            "still imports, as this version."
        ),),
        title="# house: every special card a toggle, plus prison rules (seed 003, House Rules)",
        seed_text=("seed_003_core.md", "seed_003_south_african.md", "seed_003_house.md"),
        specs=("specs_core.md", "specs_south_african.md", "specs_house.md"),
        short_rules="house (on {base}'s base): {common} Special cards on: {on}.",
    ),
    Ruleset(
        "omg", family="omg", players=(2, 8), takes_deck=True, payout="winner",
        title="# omg: the god-themed matching game (seed 001)",
        seed_text=("seed_001_omg.md",), specs=("specs_omg.md",),
        short_rules="omg: play any card; it strikes when it matches the top card's number or god. Otherwise you "
                    "draw a penalty: the difference of the numbers, plus 1 if the colors differ. A card with a * "
                    "has its god's power. The first empty hand at the end of its own turn wins. Powers: {powers}.",
    ),
)}


def lookup(name) -> Ruleset:
    """The record of ruleset ``name``; ``ValueError`` naming it and the registered ones otherwise."""
    record = REGISTRY.get(name) if isinstance(name, str) else None
    if record is None:
        raise ValueError(f"unknown ruleset {name!r}; allowed: {', '.join(REGISTRY)}")
    return record


def accepting(option: str) -> list[str]:
    """The rulesets that take ``option`` (``"rules"``, ``"base"`` or ``"deck"``), for error messages."""
    test = {"rules": lambda r: bool(r.toggles), "base": lambda r: bool(r.bases), "deck": lambda r: r.takes_deck}
    return [r.name for r in REGISTRY.values() if test[option](r)]


def members(family: str) -> tuple[str, ...]:
    """The rulesets of ``family``, in the package's order."""
    return tuple(r.name for r in REGISTRY.values() if r.family == family)


def player_range(record: Ruleset, base: str | None = None) -> tuple[int, int]:
    """The player range of a ruleset (one built on bases: of ``base``, by default its first)."""
    if record.bases:
        return REGISTRY[base or record.bases[0]].players
    return record.players
