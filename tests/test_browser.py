"""The web app in a real headless browser (Debian's chromium, driven by playwright): whole games of core, og and
omg
played by clicking the ``data-action`` buttons, a spectated game, and the replay viewer; screenshots must show
something. CI installs chromium (``.ci/run``); there a missing browser fails these tests instead of skipping
them."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from shedders import replay as R
from shedders.web.testing import serving

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("the browser tests need Debian's chromium (.ci/run installs it: apt-get install "
                           "chromium)")
    pytest.skip("chromium is not installed (apt-get install chromium); CI fails instead of skipping",
                allow_module_level=True)

from playwright.sync_api import sync_playwright

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def site():
    with serving() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield url, browser
        browser.close()


@pytest.fixture()
def page(site, tmp_path):
    url, browser = site
    context = browser.new_context(viewport={"width": 1300, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert not errors, errors


def start(page, ruleset, players, opponents, seed, spectate=False):
    page.select_option("select[name=ruleset]", ruleset)
    page.fill("input[name=players]", str(players))
    page.fill("input[name=opponents]", opponents)
    page.fill("input[name=seed]", str(seed))
    page.fill("input[name=delay]", "0")
    if spectate:
        page.check("input[name=spectate]")
    page.click("button[data-action=start]")


def pick(names: list[str]) -> int:
    """A simple player: ready at once, otherwise the first play (or flip, cover, discard), else the first move."""
    for prefix in ("ready", "play ", "flip", "cover ", "discard "):
        for i, name in enumerate(names):
            if name.startswith(prefix):
                return i
    return 0


def play_by_clicking(page, limit=3000) -> tuple[dict, int]:
    clicks = 0
    while True:
        page.wait_for_selector("#moves button[data-action]:not([disabled]), #result[data-result]")
        if page.query_selector("#result[data-result]"):
            return json.loads(page.get_attribute("#result", "data-result")), clicks
        buttons = page.query_selector_all("#moves button[data-action]")
        names = [b.get_attribute("data-action") for b in buttons]
        assert names and len(set(names)) == len(names)
        if clicks < 5:  # the visible data-action buttons are exactly the legal moves, as the API says
            visible = page.eval_on_selector_all("button[data-action]", "bs => bs.filter(b => b.offsetParent)"
                                                                         ".map(b => b.dataset.action)")
            legal = page.evaluate("fetch('/api/games/' + GAME.id).then(r => r.json())"
                                  ".then(d => d.view.legal.map(m => m.action))")
            assert sorted(visible) == sorted(legal) == sorted(names)
        buttons[pick(names)].click()
        clicks += 1
        assert clicks < limit


def not_blank(png_path) -> float:
    from matplotlib.image import imread

    pixels = imread(str(png_path))[..., :3]
    return float(pixels.std())


@pytest.mark.parametrize("ruleset,players,opponents,seed", [
    ("core", 4, "expert", 5), ("og", 3, "greedy,expert", 2), ("omg", 3, "expert", 3)])
def test_a_whole_game_by_clicking_then_its_replay_in_the_viewer(page, tmp_path, ruleset, players, opponents, seed):
    start(page, ruleset, players, opponents, seed)
    page.wait_for_selector("#status:has-text('you are player_0')")
    result, clicks = play_by_clicking(page)
    assert clicks > 0 and len(result["rewards"]) == players
    assert page.locator("#log li").count() > clicks  # opponents' moves told one by one
    shot = tmp_path / "game.png"
    page.screenshot(path=str(shot))
    assert not_blank(shot) > 0.05
    with page.expect_download() as download:
        page.click("#result a[data-download=replay]")
    saved = tmp_path / "replay.jsonl"
    download.value.save_as(saved)
    rep = R.load(saved)
    assert rep.end["placing"] == result["placing"] and R.verify(saved) == len(rep.steps)
    # the replay viewer: open the file, step forward and back, change whose view
    page.click("nav button[data-nav=replay]")
    page.set_input_files("input[name=replay-file]", str(saved))
    page.click("button[data-replay=open]")
    page.wait_for_selector("#replay-pos:has-text('decision 0 of')")
    page.click("button[data-replay=next]")
    page.wait_for_selector("#replay-pos:has-text('decision 1 of')")
    page.click("button[data-replay=prev]")
    page.wait_for_selector("#replay-pos:has-text('decision 0 of')")
    page.click("button[data-replay=last]")
    page.wait_for_selector(f"#replay-pos:has-text('decision {len(rep.steps)} of')")
    page.select_option("select[name=replay-seat]", "1")
    page.wait_for_selector("#replay-table .seat[data-seat='1'].me")
    shot = tmp_path / "replay.png"
    page.screenshot(path=str(shot))
    assert not_blank(shot) > 0.05


def test_a_spectated_game_runs_to_the_end_by_itself(page):
    start(page, "south_african", 4, "expert,greedy", 8, spectate=True)
    page.wait_for_selector("#result[data-result]", timeout=120_000)
    assert page.locator("#log li").count() > 20
    assert page.locator("#moves button[data-action]").count() == 0


def test_a_bad_start_shows_the_message_and_starts_nothing(page):
    page.fill("input[name=opponents]", "nobody")
    page.click("button[data-action=start]")
    page.wait_for_selector("#start-error:has-text(\"unknown agent 'nobody'\")")
    assert page.is_hidden("#game")


def test_the_page_loads_its_icon_shows_no_seed_before_the_end_and_keeps_log_numbers_whole(page, site):
    """The favicon is served (no 404 on every page); the status line shows no seed while the game runs and says
    the game is over at its end; the event log's numbers (from 100 on) sit inside the list, not clipped at its
    edge;
    the content security policy blocks nothing the page itself uses."""
    url, _ = site
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("fetch('/favicon.ico').then(r => r.status)") == 200
    assert page.evaluate("getComputedStyle(document.querySelector('#log')).listStylePosition") == "inside"
    start(page, "core", 3, "greedy", 11)
    page.wait_for_selector("#moves button[data-action]")
    assert "seed shown at the end" in page.inner_text("#status") and "seed 11" not in page.inner_text("#status")
    play_by_clicking(page)
    status = page.inner_text("#status")
    assert "seed 11" in status and "the game is over" in status and "waiting" not in page.inner_text("#table")
    assert failed == []


def test_the_leaderboard_page_sorts_opens_a_card_and_replays_a_game(site, tmp_path):
    """The reference agents' shipped cards and a newly submitted outside agent's card, in a fresh database."""
    from outside_fixtures import write_agent_file

    from experiments import bench as B
    from shedders import leaderboard as L
    from shedders.web.app import create_app

    spec = f"{write_agent_file(tmp_path)}:Uniform"
    card = B.run(B.Config(agent=spec, ruleset="core", games=2, work=str(tmp_path / "work")), progress=False)
    db = tmp_path / "board.sqlite"
    with L.open_db(db) as board:
        entry, _ = board.submit(card)
        references = {e["agent"] for e in board.entries() if e["origin"].startswith("shipped:")}
    assert {"expert"} <= references
    _, browser = site
    with serving(create_app(db=db)) as url:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/leaderboard")
        page.wait_for_selector(f"tr[data-leaderboard-row='{spec}']")
        shown = set(page.eval_on_selector_all("tr[data-leaderboard-row]",
                                              "rows => rows.map(r => r.dataset.leaderboardRow)"))
        assert references | {spec} <= shown
        page.select_option("select[name=lb-ruleset]", "core")
        headline = "rows => rows.map(r => Number(r.querySelector('td[data-headline]').dataset.headline))"
        for order in ("desc", "asc"):
            if page.get_attribute("th[data-sort=headline]", "data-order") != order:
                page.click("th[data-sort=headline]")
            assert page.get_attribute("th[data-sort=headline]", "data-order") == order
            values = page.eval_on_selector_all("tr[data-leaderboard-row]", headline)
            assert values == sorted(values, reverse=order == "desc") and len(values) >= 2
        page.click(f"tr[data-leaderboard-row='{spec}']")
        page.wait_for_selector(f"#lb-card h3[data-card-entry='{entry}']")
        assert page.locator("#lb-card tr[data-result]").count() == len(card["results"])
        page.click("#lb-card button[data-card-replay]")
        page.wait_for_selector("#replay-pos:has-text('decision 0 of')")
        assert page.is_visible("#replay") and not page.is_visible("#leaderboard")
        page.click("button[data-replay=last]")
        page.wait_for_selector("#replay-move:has-text('end')")
        shot = tmp_path / "leaderboard.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        context.close()
        assert not errors, errors
