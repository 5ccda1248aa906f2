// shedders in the browser: one page, no framework, no CDN. It talks to the JSON API of shedders.web.app.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};

let OPTIONS = null;
let GAME = null;      // {id, delay, shown (events shown), busy}
let REPLAY = null;    // {id, frame, frames, seat}

async function api(method, path, body) {
  const init = {method, headers: {}};
  if (body === undefined && method !== "GET") body = {};  // the server takes state changes as JSON only
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = typeof body === "string" ? "application/x-ndjson" : "application/json";
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({error: `HTTP ${res.status}`}));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function show(section) {
  for (const id of ["start", "game", "replay", "leaderboard"]) $("#" + id).hidden = id !== section;
  if (section === "leaderboard") loadBoard();
}

// ---- cards --------------------------------------------------------------------------------------------
const OMG_COLORS = {Fire: "fire", Leaf: "leaf", Wave: "wave", Thunder: "thunder"};

function card(name, family) {
  if (family === "omg") {
    const [god, color, num] = name.replace("*", "").split(" ");
    const power = name.endsWith("*");
    return el("span", {class: `card omg ${OMG_COLORS[color] || ""}`, title: name + (power ? " (power)" : "")},
      el("b", {text: num}), el("small", {text: god + (power ? " ★" : "")}), el("i", {text: color}));
  }
  const [rank, as] = name.split(":");
  const label = rank === "JOKER" ? "Joker" : rank;
  return el("span", {class: "card" + (rank === "JOKER" ? " joker" : ""), title: as ? `${rank} as ${as}` : rank},
    el("b", {text: label}), as ? el("small", {text: "as " + as}) : null);
}

function backs(k) {
  const box = el("span", {class: "cards"});
  for (let i = 0; i < k; i++) box.append(el("span", {class: "card back", title: "face down"}));
  return box;
}

function cards(list, family, cap) {
  const box = el("span", {class: "cards"});
  const shown = cap && list.length > cap ? list.slice(-cap) : list;
  if (cap && list.length > cap) box.append(el("span", {class: "more", text: `+${list.length - cap}`}));
  for (const c of shown) box.append(card(c, family));
  if (!list.length) box.append(el("span", {class: "none", text: "none"}));
  return box;
}

// ---- the table ----------------------------------------------------------------------------------------
function seatName(q, view, labels) {
  let name = q === view.viewer ? `player_${q} (you)` : `player_${q}`;
  if (labels && labels[q] && labels[q] !== "human") name += ` · ${labels[q]}`;
  if (view.shithead === q) name += " · “Shithead”";
  return name;
}

function renderTable(view, box, labels) {
  box.replaceChildren();
  const fam = view.family;
  const seats = el("div", {class: "seats"});
  for (const p of view.players) {
    const tags = [];
    if (!view.over && view.actor === p.seat) tags.push("to act");
    if (p.finished || (view.placing || []).includes(p.seat)) tags.push(`out #${view.placing.indexOf(p.seat) + 1}`);
    if (p.skip_next) tags.push("loses the next turn");
    const seat = el("div", {class: "seat" + (p.seat === view.viewer ? " me" : "") +
                                       (tags.includes("to act") ? " acting" : ""), "data-seat": p.seat},
      el("div", {class: "who", text: seatName(p.seat, view, labels) + (tags.length ? ` — ${tags.join(", ")}` : "")}));
    const hand = p.hand !== null ? cards(p.hand, fam) :
      el("span", {class: "count", text: `${p.hand_count} card${p.hand_count === 1 ? "" : "s"}`});
    seat.append(el("div", {class: "zone"}, el("span", {class: "label", text: "hand"}), hand));
    if (fam === "palace") {
      if (p.hand === null && p.known.length)
        seat.append(el("div", {class: "zone"}, el("span", {class: "label", text: "known (picked up)"}),
                       cards(p.known, fam)));
      seat.append(el("div", {class: "zone"}, el("span", {class: "label", text: "face-up"}),
        p.face_up === null ? el("span", {class: "count", text: "hidden during setup"}) : cards(p.face_up, fam)));
      seat.append(el("div", {class: "zone"}, el("span", {class: "label", text: "face-down"}),
        p.face_down ? cards(p.face_down, fam) : backs(p.face_down_count)));
    }
    seats.append(seat);
  }
  const centre = el("div", {class: "centre"});
  centre.append(el("div", {class: "zone"}, el("span", {class: "label", text: `pile (${view.pile.length})`}),
                   cards(view.pile, fam, 8)));
  centre.append(el("div", {class: "constraint", text: view.constraint}));
  if (view.window) centre.append(el("div", {class: "window", text: view.window}));
  let deck = `draw pile: ${view.deck}`;
  if (fam === "palace") deck += ` · out of play: ${view.out_of_play.length}` +
    ` · ${view.direction === 1 ? "clockwise" : "counter-clockwise"}`;
  if (fam === "omg" && view.revealed) deck += ` · revealed by Apollo: ${view.revealed}`;
  centre.append(el("div", {class: "deck", text: deck}));
  box.append(centre, seats);
}

// ---- a game -------------------------------------------------------------------------------------------
const sleep = ms => new Promise(r => setTimeout(r, ms));

function status(data) {
  const v = data.view;
  const who = data.spectate ? "watching" : `you are player_${data.seat}`;
  const seed = data.seed === null ? "seed shown at the end" : `seed ${data.seed}`;
  const phase = data.over ? "the game is over" : v.phase;
  return `${data.ruleset}, ${data.players} players, ${seed} — ${who} — ${phase}, decision ${data.decisions}`;
}

function renderMoves(data) {
  const box = $("#moves");
  box.replaceChildren();
  if (data.over) return;
  if (data.spectate) {
    box.append(el("span", {class: "hint", text: "agents are playing…"}));
    return;
  }
  for (const m of data.view.legal) {
    const b = el("button", {type: "button", "data-action": m.action, text: m.label});
    b.addEventListener("click", () => act(m.action));
    box.append(b);
  }
}

function renderResult(data) {
  const box = $("#result");
  if (!data.result) { box.hidden = true; box.replaceChildren(); return; }
  const r = data.result;
  const order = r.placing.map(q => `player_${q}`).join(", ");
  let text = r.truncated ? "The game reached the ply cap. " : "Game over. ";
  text += order ? `Out in order: ${order}. ` : "";
  if (r.shithead !== null && r.shithead !== undefined) text += `Shithead: player_${r.shithead}. `;
  else if (r.last !== null && r.last !== undefined) text += `Last: player_${r.last}. `;
  text += "Rewards: " + r.rewards.map((x, q) => `player_${q} ${x >= 0 ? "+" : ""}${x.toFixed(3)}`).join(", ");
  box.replaceChildren(el("p", {text}),
    el("a", {href: `/api/games/${GAME.id}/replay`, download: "", "data-download": "replay",
             text: "Download the replay"}),
    document.createTextNode(" "),
    el("button", {type: "button", "data-nav": "start", text: "New game"}));
  box.setAttribute("data-result", JSON.stringify({placing: r.placing, rewards: r.rewards, truncated: r.truncated}));
  box.hidden = false;
  wireNav(box);
}

async function showEvents(events, final) {
  for (const ev of events) {
    const text = ev.text.join("; ");
    const who = `player_${ev.seat}`;
    const line = el("li", {"data-seat": ev.seat});
    if (ev.label !== "human" && text.startsWith(who + " "))
      line.append(el("b", {text: `${who} (${ev.label})`}), text.slice(who.length));
    else line.append(text);
    $("#log").prepend(line);
    GAME.shown = ev.n + 1;
    if (GAME.delay > 0 && ev !== events[events.length - 1]) await sleep(GAME.delay);
  }
  render(final);
}

function render(data) {
  $("#status").textContent = status(data);
  renderTable(data.view, $("#table"), data.labels);
  $("#rules-text").textContent = data.rules;
  renderMoves(data);
  renderResult(data);
}

async function act(action) {
  if (GAME.busy) return;
  GAME.busy = true;
  $("#moves").querySelectorAll("button").forEach(b => (b.disabled = true));
  try {
    const data = await api("POST", `/api/games/${GAME.id}/action`, {action});
    await showEvents(data.events, data);
  } catch (e) {
    $("#log").prepend(el("li", {class: "error", text: e.message}));
    render(await api("GET", `/api/games/${GAME.id}?since=${GAME.shown}`));
  } finally {
    GAME.busy = false;
  }
}

async function spectate() {
  while (GAME && GAME.spectating) {
    const data = await api("POST", `/api/games/${GAME.id}/step`);
    await showEvents(data.events, data);
    if (data.over) break;
    await sleep(Math.max(GAME.delay, 0));
  }
}

async function start(ev) {
  ev.preventDefault();
  const f = new FormData($("#start-form"));
  const body = {ruleset: f.get("ruleset"), players: f.get("players"), opponents: f.get("opponents"),
                seed: f.get("seed") || null, spectate: f.get("spectate") === "on"};
  if (!body.spectate) body.seat = f.get("seat");
  if (body.ruleset === "house") {
    body.base = f.get("base");
    body.rules = {};
    for (const t of OPTIONS.house_toggles) body.rules[t] = f.get("toggle-" + t) === "on";
  }
  $("#start-error").textContent = "";
  const button = $('[data-action="start"]');
  button.disabled = true;
  $("#start-status").textContent = "Starting the game: the agents are loading and playing up to your first " +
    "decision (the first game with a search or network opponent takes a few seconds)…";
  try {
    const data = await api("POST", "/api/games", body);
    GAME = {id: data.id, delay: Number(f.get("delay") || 0), shown: 0, busy: false, spectating: data.spectate};
    $("#log").replaceChildren();
    show("game");
    await showEvents(data.events, data);
    if (data.spectate) spectate();
  } catch (e) {
    $("#start-error").textContent = e.message;
  } finally {
    button.disabled = false;
    $("#start-status").textContent = "";
  }
}

// ---- replays ------------------------------------------------------------------------------------------
async function openReplay() {
  const file = $('input[name="replay-file"]').files[0];
  $("#replay-error").textContent = "";
  if (!file) { $("#replay-error").textContent = "choose a replay file first"; return; }
  try {
    startReplay(await api("POST", "/api/replays", await file.text()));
  } catch (e) {
    $("#replay-error").textContent = e.message;
  }
}

function startReplay(data) {
  REPLAY = {id: data.id, frames: data.frames, seat: ""};
  const sel = $('select[name="replay-seat"]');
  sel.replaceChildren(el("option", {value: "", text: "every card (spectator)"}));
  for (let q = 0; q < data.header.num_players; q++) sel.append(el("option", {value: q, text: `player_${q}`}));
  $("#replay-controls").hidden = false;
  renderFrame(data);
}

function renderFrame(data) {
  REPLAY.frame = data.frame;
  const h = data.header;
  $("#replay-pos").textContent = `decision ${data.frame} of ${data.frames - 1} · ${h.ruleset}, ` +
    `${h.num_players} players, seed ${h.seed}`;
  const m = data.move;
  $("#replay-move").textContent = m ? `next: player_${m.seat} — ${m.name}` +
    (m.text.length ? ` (${m.text.join("; ")})` : "") :
    (data.end ? `end: placing ${JSON.stringify(data.end.placing)}, rewards ${JSON.stringify(data.end.rewards)}` : "end");
  renderTable(data.view, $("#replay-table"), h.players);
}

async function gotoFrame(i) {
  if (!REPLAY) return;
  i = Math.max(0, Math.min(REPLAY.frames - 1, i));
  const q = new URLSearchParams({frame: i, seat: REPLAY.seat});
  renderFrame(await api("GET", `/api/replays/${REPLAY.id}?${q}`));
}

// ---- the leaderboard ----------------------------------------------------------------------------------
let BOARD = {rows: [], key: "headline", desc: true, filled: false};
const fmt = (x, d = 3) => (x >= 0 ? "+" : "") + x.toFixed(d);
const ci = (m, lo, hi) => `${fmt(m)} ` + (lo === null ? "[n/a]" : `[${fmt(lo)}, ${fmt(hi)}]`);

async function loadBoard() {
  $("#lb-error").textContent = "";
  try {
    const data = await api("GET", "/api/leaderboard");
    BOARD.rows = data.entries;
    if (!BOARD.filled) {
      const rs = $('select[name="lb-ruleset"]'), ps = $('select[name="lb-players"]');
      for (const r of [...new Set(BOARD.rows.map(e => e.ruleset))]) rs.append(el("option", {value: r, text: r}));
      for (const p of [...new Set(BOARD.rows.map(e => e.players))].sort((a, b) => a - b))
        ps.append(el("option", {value: p, text: p}));
      BOARD.filled = true;
    }
    renderBoard();
  } catch (e) {
    $("#lb-error").textContent = e.message;
  }
}

function renderBoard() {
  const rs = $('select[name="lb-ruleset"]').value, ps = $('select[name="lb-players"]').value;
  let rows = BOARD.rows.filter(e => (!rs || e.ruleset === rs) && (!ps || String(e.players) === ps));
  const ranked = rows.filter(e => e.ranked).sort((a, b) => b.headline - a.headline);
  rows.forEach(e => { e.rank = e.ranked ? ranked.indexOf(e) + 1 : null; });
  const k = BOARD.key, sign = BOARD.desc ? -1 : 1;
  rows = [...rows].sort((a, b) => {
    const x = a[k] ?? -Infinity, y = b[k] ?? -Infinity;
    return (x < y ? -1 : x > y ? 1 : 0) * sign || a.id - b.id;
  });
  const body = $("#lb-table tbody");
  body.replaceChildren();
  for (const e of rows) {
    const tr = el("tr", {"data-leaderboard-row": e.agent, "data-entry": e.id, tabindex: "0"},
      e.ranked ? el("td", {text: e.rank}) :
        el("td", {title: `${(100 * e.capped).toFixed(0)}% of its games reached the ply cap: not ranked`,
                  text: "–"}),
      el("td", {class: "spec", text: e.agent}), el("td", {text: e.ruleset}),
      el("td", {text: e.players}),
      el("td", {"data-headline": e.headline, text: ci(e.headline, e.headline_lo, e.headline_hi)}),
      el("td", {text: e.deals + (e.quick ? " (quick)" : "")}),
      el("td", {text: e.ms_per_decision === null ? "" : e.ms_per_decision.toFixed(3)}),
      el("td", {text: e.origin.startsWith("shipped") ? "reference" : "submitted"}));
    tr.addEventListener("click", () => openCard(e.id));
    tr.addEventListener("keydown", ev => { if (ev.key === "Enter") openCard(e.id); });
    body.append(tr);
  }
  document.querySelectorAll("#lb-table th[data-sort]").forEach(th => {
    th.dataset.order = th.dataset.sort === k ? (BOARD.desc ? "desc" : "asc") : "";
  });
}

async function openCard(entry) {
  const box = $("#lb-card");
  try {
    const c = await api("GET", `/api/leaderboard/${entry}`);
    const table = el("table", {class: "board"}, el("thead", {}, el("tr", {},
      ...["opponent", "format", "mean reward a seat (95%)", "win share", "games", "capped"].map(t => el("th", {text: t})))));
    const tb = el("tbody");
    for (const r of c.results)
      tb.append(el("tr", {"data-result": `${r.opponent} ${r.format}`}, el("td", {text: r.opponent}),
        el("td", {text: r.format}), el("td", {text: ci(r.mean, r.lo, r.hi)}),
        el("td", {text: r.win_rate.toFixed(3)}), el("td", {text: r.games}),
        el("td", {text: (100 * r.capped).toFixed(1) + "%"})));
    table.append(tb);
    const replays = el("p", {}, c.replays.length ? "Replays: " : "No replays kept.");
    for (const r of c.replays) {
      const b = el("button", {type: "button", "data-card-replay": r.k, text: `vs ${r.opponent} (${r.format})`});
      b.addEventListener("click", () => openBoardReplay(entry, r.k));
      replays.append(b, " ");
    }
    const h = c.headline;
    box.replaceChildren(
      el("h3", {"data-card-entry": entry, text: `${c.agent}: ${c.ruleset}, ${c.players} players`}),
      el("p", {text: `${c.protocol}, ${c.deals} deals${c.quick ? " (quick)" : ""}, deals sha256 ` +
        `${c.deals_digest.slice(0, 16)}…, agent seed ${c.seed}; shedders ${c.shedders_version || "?"}` +
        (c.git_commit ? ` (${c.git_commit.slice(0, 12)})` : "")}),
      el("p", {text: `headline ${ci(h.mean, h.lo, h.hi)}; ${(100 * c.capped).toFixed(1)}% of games capped` +
        (c.ranked ? "" : " (not ranked: stalling is not play)") +
        (c.timing ? `; ${c.timing.ms_per_decision.toFixed(3)} ms a decision` : "")}),
      table, replays);
    box.hidden = false;
    box.scrollIntoView({block: "nearest"});
  } catch (e) {
    $("#lb-error").textContent = e.message;
  }
}

async function openBoardReplay(entry, k) {
  $("#lb-error").textContent = "";
  try {
    const res = await fetch(`/api/leaderboard/${entry}/replays/${k}`);
    if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || `HTTP ${res.status}`);
    const data = await api("POST", "/api/replays", await res.text());
    show("replay");
    startReplay(data);
  } catch (e) {
    $("#lb-error").textContent = e.message;
  }
}

// ---- wiring -------------------------------------------------------------------------------------------
function wireNav(root) {
  root.querySelectorAll("[data-nav]").forEach(b => b.addEventListener("click", () => {
    if (GAME) GAME.spectating = false;
    show(b.dataset.nav);
  }));
}

function houseFields() {
  $("#house").hidden = $('select[name="ruleset"]').value !== "house";
}

async function init() {
  OPTIONS = await api("GET", "/api/options");
  const rs = $('select[name="ruleset"]');
  for (const r of OPTIONS.rulesets) rs.append(el("option", {value: r, text: r}));
  rs.value = "core";
  const base = $('select[name="base"]');
  for (const b of OPTIONS.house_bases) base.append(el("option", {value: b, text: b}));
  const toggles = $("#toggles");
  for (const t of OPTIONS.house_toggles)
    toggles.append(el("label", {class: "check"}, el("input", {type: "checkbox", name: "toggle-" + t}), " " + t));
  const baseDefaults = () => {
    const d = OPTIONS.house_defaults[base.value];
    for (const t of OPTIONS.house_toggles) $(`input[name="toggle-${t}"]`).checked = d[t];
  };
  base.addEventListener("change", baseDefaults);
  baseDefaults();
  $("#agent-names").textContent = OPTIONS.agents.concat(OPTIONS.outside_agents || []).join(", ");
  rs.addEventListener("change", houseFields);
  $("#start-form").addEventListener("submit", start);
  $('[data-replay="open"]').addEventListener("click", openReplay);
  $('[data-replay="first"]').addEventListener("click", () => gotoFrame(0));
  $('[data-replay="prev"]').addEventListener("click", () => gotoFrame(REPLAY.frame - 1));
  $('[data-replay="next"]').addEventListener("click", () => gotoFrame(REPLAY.frame + 1));
  $('[data-replay="last"]').addEventListener("click", () => gotoFrame(REPLAY.frames - 1));
  $('select[name="replay-seat"]').addEventListener("change", e => {
    REPLAY.seat = e.target.value;
    gotoFrame(REPLAY.frame);
  });
  document.querySelectorAll("#lb-table th[data-sort]").forEach(th => th.addEventListener("click", () => {
    BOARD.desc = BOARD.key === th.dataset.sort ? !BOARD.desc : th.dataset.sort !== "rank";
    BOARD.key = th.dataset.sort;
    renderBoard();
  }));
  $('select[name="lb-ruleset"]').addEventListener("change", renderBoard);
  $('select[name="lb-players"]').addEventListener("change", renderBoard);
  wireNav(document);
  houseFields();
  if (location.pathname === "/leaderboard") show("leaderboard");
  document.body.dataset.ready = "1";
}

init();
