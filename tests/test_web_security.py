"""``shedders serve`` against a hostile client: agent options from an allow-list (no paths, capped budgets), no
seed
or deal before the game ends, no handler waiting on a game's lock, same-origin JSON for every state change, a
``Host`` check, security headers, slow headers and bodies cut off, and malformed input answered 4xx, never 500."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

import agents
from shedders.web import app as web_app
from shedders.web.app import Guard, create_app
from shedders.web.serve import allowed_hosts
from shedders.web.sessions import WEB_AGENT_OPTIONS
from shedders.web.testing import serving

SECRET = "/etc/passwd"  # a file every test machine has; its first line starts "root:"


@pytest.fixture(scope="module")
def served():
    app = create_app(max_games=64)
    with serving(app, header_timeout=1.0) as base:
        yield app, base


@pytest.fixture()
def http(served):
    with httpx.Client(base_url=served[1], timeout=60) as client:
        yield client


def create(http, **fields):
    return http.post("/api/games", json={"ruleset": "core", "players": 4, "opponents": "greedy", **fields})


def test_the_allow_list_names_only_real_options_and_none_that_reads_a_file_or_a_device():
    for name, opts in WEB_AGENT_OPTIONS.items():
        for ruleset in ("core", "omg"):
            try:
                valid = agents.agent_options(name, ruleset)
            except ValueError:  # not offered for omg (guided)
                continue
            assert set(opts) <= set(valid), (name, ruleset)
        assert not {"deck", "checkpoint", "device", "rules", "ply_cap", "base", "cap_rule"} & set(opts), name


@pytest.mark.parametrize("spec", [f"random:deck={SECRET}", f"expert:deck={SECRET}", f"search:deck={SECRET}",
                                  "random:deck=/proc/self/environ", "random:deck=/dev/zero",
                                  f"ppo:checkpoint={SECRET}", "ppo:checkpoint=/nonexistent.pt",
                                  f"guided:checkpoint={SECRET}", "ppo:device=meta", "random:ply_cap=1",
                                  "search:rules=x"])
def test_no_agent_option_names_a_file_or_a_device(http, spec):
    for ruleset in ("core", "omg"):
        r = create(http, ruleset=ruleset, players=3, opponents=spec)
        assert r.status_code == 400, (ruleset, spec, r.text)
        error = r.json()["error"]
        assert "root:" not in error and "exist" not in error and "PATH" not in error, error


@pytest.mark.parametrize("spec", ["search:budget=400000000", "search:budget=100000000000000", "oracle:budget=5000",
                                  "champion:time_budget=30", "guided:worlds=100000000", "search:eps=nan",
                                  "ppo:temperature=inf", "ppo:sample=7", "search:max_plies=100000",
                                  "search:budget=1.5"])
def test_every_budget_is_capped_and_every_value_checked(http, spec):
    r = create(http, opponents=spec)
    assert r.status_code == 400, (spec, r.text)
    assert spec.split(":")[1].split("=")[0] in r.json()["error"]


def test_capped_options_within_their_bounds_are_taken(http):
    r = create(http, opponents="search:budget=8+eps=0.5,ppo:sample=false+temperature=0.5,greedy@2")
    assert r.status_code == 201, r.text
    assert r.json()["labels"][1:] == ["search:budget=8+eps=0.5", "ppo:sample=false+temperature=0.5", "greedy@2"]


def test_no_endpoint_serves_the_seed_or_the_deal_before_the_game_ends(http):
    d = create(http, seed=4242).json()
    assert d["seed"] is None and not d["over"]
    assert "4242" not in json.dumps(d)
    assert http.get(f"/api/games/{d['id']}").json()["seed"] is None
    r = http.get(f"/api/games/{d['id']}/replay")
    assert r.status_code == 409 and "over" in r.json()["error"]
    others = [p for p in d["view"]["players"] if p["seat"] != d["seat"]]
    assert all(p["hand"] is None and p["face_down"] is None for p in others)
    assert all(p["face_down"] is None for p in d["view"]["players"])
    while not d["over"]:
        d = http.post(f"/api/games/{d['id']}/action", json={"action": d["view"]["legal"][0]["action"]}).json()
    assert d["seed"] == 4242
    assert http.get(f"/api/games/{d['id']}/replay").status_code == 200


def test_no_handler_waits_on_a_games_lock(served, http):
    """While a game's agents think (its lock held), reading it, the options and other games answer at once, and a
    second move for the busy game is refused at once rather than queued."""
    app, _ = served
    d = create(http, seed=5).json()
    other = create(http, seed=6).json()
    game = app.state.games.get(d["id"])
    assert game.lock.acquire(timeout=5)
    try:
        t0 = time.perf_counter()
        busy = http.get(f"/api/games/{d['id']}").json()
        assert busy["thinking"] is True and busy["view"] == d["view"]
        assert http.get("/api/options").status_code == 200
        assert http.get(f"/api/games/{other['id']}").json()["thinking"] is False
        r = http.post(f"/api/games/{d['id']}/action", json={"action": d["view"]["legal"][0]["action"]})
        assert r.status_code == 409 and "still deciding" in r.json()["error"]
        assert time.perf_counter() - t0 < 5
    finally:
        game.lock.release()
    r = http.post(f"/api/games/{d['id']}/action", json={"action": d["view"]["legal"][0]["action"]})
    assert r.status_code == 200 and r.json()["thinking"] is False


@pytest.mark.parametrize("headers,status", [
    ({"content-type": "text/plain"}, 415),
    ({"content-type": "application/x-www-form-urlencoded"}, 415),
    ({"content-type": "multipart/form-data; boundary=x"}, 415),
    ({}, 415),
    ({"content-type": "application/json", "origin": "http://evil.example"}, 403),
    ({"content-type": "application/json", "origin": "null"}, 403),
    ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403),
])
def test_a_cross_site_request_changes_nothing(served, http, headers, status):
    app, _ = served
    before = len(app.state.games)
    body = json.dumps({"ruleset": "core", "players": 4, "opponents": "greedy"})
    r = http.post("/api/games", content=body, headers=headers)
    assert r.status_code == status, r.text
    assert len(app.state.games) == before


def test_a_same_origin_browser_request_is_served(served, http):
    origin = served[1]
    r = http.post("/api/games", json={"ruleset": "core", "players": 4, "opponents": "greedy"},
                  headers={"origin": origin, "sec-fetch-site": "same-origin"})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("host", ["evil.example", "attacker.example:80", "localhost.evil.example", "[::2]:1",
                                  "a b"])
def test_a_foreign_host_header_is_refused(http, host):
    for path in ("/", "/api/options"):
        r = http.get(path, headers={"host": host})
        assert r.status_code == 400 and "host" in r.json()["error"], (path, host)


def test_which_hosts_a_server_answers_for():
    assert allowed_hosts("127.0.0.1") == (("127.0.0.1", "localhost", "127.0.0.1", "::1"), False)
    names, any_ip = allowed_hosts("0.0.0.0", ["cards.lan"])
    assert any_ip and "cards.lan" in names and "localhost" in names
    assert allowed_hosts("192.168.1.5") == (("192.168.1.5",), False)
    guard = Guard(None, *allowed_hosts("0.0.0.0"))
    assert guard.host_ok("10.1.2.3") and guard.host_ok("::1") and not guard.host_ok("rebind.evil.example")


def test_every_answer_forbids_framing_and_sniffing(http):
    for path in ("/", "/static/app.js", "/api/options", "/api/games/nope", "/favicon.ico"):
        r = http.get(path)
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
    assert http.get("/favicon.ico").status_code == 200


def test_slow_headers_are_cut_off(served):
    """Connections trickling their headers are closed after the header timeout (1 s in this fixture; 10 s in
    ``shedders serve``) instead of being held for ever; the server answers others meanwhile and after."""
    _, base = served
    port = int(base.rsplit(":", 1)[1])
    socks = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    time.sleep(0.2)
    with httpx.Client(base_url=base, timeout=10) as http:
        assert http.get("/api/options").status_code == 200
    time.sleep(2.0)
    closed = 0
    for s in socks:
        s.settimeout(2)
        try:
            closed += s.recv(100) == b""
        except (ConnectionResetError, TimeoutError):
            closed += 0
        s.close()
    assert closed == len(socks)


def test_a_slow_body_times_out(served, monkeypatch):
    monkeypatch.setattr(web_app, "BODY_TIMEOUT", 0.5)
    _, base = served
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{\"ruleset\"")
        s.settimeout(5)
        answer = s.recv(1000)
    assert answer.startswith(b"HTTP/1.1 408"), answer


@pytest.mark.parametrize("body", ["[" * 1000 + "]" * 1000, "[" * 30000 + "]" * 30000,
                                  '{"seed": ' + "9" * 5000 + "}", '{"opponents": "\\ud800"}',
                                  '{"opponents": "search:budget=\\ud800"}', '{"ruleset": "\\udfff"}',
                                  '{"rules": {"\\ud800": true}, "ruleset": "house"}',
                                  '{"opponents": ["x\\u0000"]}'])
def test_malformed_input_is_a_4xx_with_a_json_answer(http, body):
    r = http.post("/api/games", content=body.encode(), headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, (body[:40], r.status_code, r.text[:200])
    assert "error" in json.loads(r.content)


def test_a_long_game_id_or_query_is_a_4xx(http):
    assert http.get("/api/games/" + "x" * 5000).status_code == 404
    d = create(http).json()
    assert http.get(f"/api/games/{d['id']}", params={"since": "9" * 5000}).status_code == 400


def test_an_uploaded_replay_naming_a_deck_file_is_refused_unread(http, tmp_path):
    """An uploaded replay's ``env_kwargs`` may not name a deck: that would be a path on the server."""
    from shedders import replay as R
    from tests.test_replay import record_random_game

    rec, _ = record_random_game("omg", 3, {}, seed=2)
    lines = [json.loads(t) for t in rec.dumps().splitlines()]
    for deck in (SECRET, "/dev/zero", "/proc/self/environ"):
        lines[0]["env_kwargs"] = {"deck": deck}
        prev = ""
        for line in lines:
            line.pop("chain")
            line["chain"] = prev = R.chain_digest(prev, line)
        body = "\n".join(json.dumps(line) for line in lines)
        r = http.post("/api/replays", content=body.encode(), headers={"content-type": "application/x-ndjson"})
        assert r.status_code == 400 and "'deck'" in r.json()["error"] and "root:" not in r.text, r.text


@pytest.mark.parametrize("deck", [SECRET, "/dev/zero", "/proc/self/environ", "fifo"])
def test_a_deck_that_is_not_a_deck_file_is_refused_without_quoting_it(tmp_path, deck):
    import os

    import shedders

    if deck == "fifo":
        deck = str(tmp_path / "fifo")
        os.mkfifo(deck)  # opening it to read would block for ever
    with pytest.raises(ValueError) as e:
        shedders.raw_env("omg", 3, deck=deck)
    assert "root:" not in str(e.value) and "PATH=" not in str(e.value)


def test_a_stored_replay_keeps_compressed_frames_and_a_long_one_is_refused(http):
    """A replay's frames are kept compressed (a 19,761-decision replay took 63 MB before; the store holds 32), and
    one of more than 5,000 decisions is refused before it is replayed."""
    from shedders.web.sessions import MAX_REPLAY_DECISIONS, ReplaySession
    from tests.test_replay import record_random_game

    rec, states = record_random_game("omg", 4, {}, seed=3)
    text = rec.dumps()
    session = ReplaySession(text)
    assert all(isinstance(f, bytes) for f in session.frames) and len(session.frames) == len(states)
    assert sum(map(len, session.frames)) / len(session.frames) < 1500  # bytes a frame, compressed
    lines = [json.loads(t) for t in text.splitlines()]
    step = lines[1]
    many = [lines[0]] + [step] * (MAX_REPLAY_DECISIONS + 1) + [lines[-1] | {"decisions": MAX_REPLAY_DECISIONS + 1}]
    from shedders import replay as R

    prev = ""
    for i, line in enumerate(many):
        line = dict(line)
        line.pop("chain", None)
        line["chain"] = prev = R.chain_digest(prev, line)
        many[i] = line
    r = http.post("/api/replays", content="\n".join(map(json.dumps, many)).encode(),
                  headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 400 and "too long" in r.json()["error"]
