"""The skill-versus-luck report: ``report.md`` (the summary table, relative skill by field and beginner, then a
section per ruleset) and ``skill_luck.png``, from the report dict ``experiments.skill_luck.run`` writes as
``report.json``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from experiments.skill_measures import outside_note, spec_label


def report_markdown(report: dict) -> str:
    """The report in Markdown: the summary table, relative skill by field and beginner, then a section per
    ruleset."""
    cfg = report["config"]
    lines = [f"# Skill and luck at {cfg['players']} players", "", f"`{report['command']}`", "",
             (f"{cfg['deals']} deals per tournament, each in every seat rotation; agents "
              f"{', '.join(cfg['agents'])}; fictive player {cfg['oracle']}; reference field {cfg['field_agent']}. "
              "Intervals are 95%."), ""]
    lines += _summary_table(report)
    if any(r.get("relative_skill_bound") for r in report["rulesets"]):
        lines += _bounds_table(report)
    for r in report["rulesets"]:
        lines += _ruleset_section(r, cfg)
    return "\n".join(lines) + "\n"


_NO_SKILL = {"relative_skill": math.nan, "rs_lo": math.nan, "rs_hi": math.nan}


def ci(m: float, lo: float, hi: float, form: str = ".2f") -> str:
    """``m [lo, hi]``, or words where the interval cannot be estimated: no number pretends to be exact. A
    zero-width interval (every resample the same) and a missing one (too few deals) say so."""
    if not math.isfinite(m):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{m:{form}} (no interval: too few deals)"
    return iv_text(m, lo, hi, form, same="(no interval: every resample gave the same value; more deals needed)")


def separating_form(form: str, lo: float, hi: float, extra: int = 2) -> str:
    """``form`` with up to ``extra`` more decimals where its precision would print a nonzero interval [lo, hi]
    with equal ends (a narrow interval must not read as one of zero width)."""
    head, digits = form.rsplit(".", 1)
    places, kind = int(digits[:-1]), digits[-1]
    for more in range(extra + 1):
        f = f"{head}.{places + more}{kind}"
        if f"{lo:{f}}" != f"{hi:{f}}":
            return f
    return f


def _skill_text(x: dict) -> str:
    if not math.isfinite(x["relative_skill"]):
        return "n/a (no fictive player)"
    pre = "at least " if x.get("bound") else ""
    return f"{pre}{ci(x['relative_skill'], x['rs_lo'], x['rs_hi'])}"


def _bracket(lower: float, upper: float) -> str:
    """The bracket [lower bound, fictive player's value]: two estimates, each with its own interval elsewhere in
    the row; where they meet at the printed precision, that in words (it is no interval of zero width)."""
    if not math.isfinite(lower):
        return "n/a (no lower bound)"
    if f"{lower:.2f}" == f"{upper:.2f}":
        return f"{_num(lower, '.2f')} at both ends"
    return f"[{_num(lower, '.2f')}, {_num(upper, '.2f')}]"


def no_learning_shown(lower: dict) -> bool:
    """The best real player shows no learning effect over the beginner on the measured deals: relative skill is
    then 0 by the formula, with an interval that can span several units, so the cell has no bracket to read."""
    le = lower.get("learning_effect", math.nan)
    return math.isfinite(lower["relative_skill"]) and math.isfinite(le) and le <= 1e-9


def bracket_text(lower: dict, upper: float) -> str:
    """The bracket of one cell from its lower-bound cell and the upper end's value; in words where
    ``no_learning_shown``."""
    if no_learning_shown(lower):
        return "none shown (the best player no better than the beginner on the measured deals)"
    return _bracket(lower["relative_skill"], upper)


def iv_text(m: float, lo: float, hi: float, form: str, same: str = "(the same in every game: no interval)") -> str:
    """An estimate with its interval; where the interval has no width, ``same`` in words instead (by default for a
    mean over games: a t interval of zero width is no interval, exact only where the design makes it so, as a
    field's mean over all its seats); an interval narrower than ``form`` prints gets the digits that part it."""
    wide = separating_form(form, lo, hi)
    if lo == hi or f"{lo:{wide}}" == f"{hi:{wide}}":  # no width, or none two more digits can show (float noise)
        return f"{_num(m, form)} {same}"
    form = wide
    return f"{_num(m, form)} [{_num(lo, form)}, {_num(hi, form)}]"


def _num(x: float, form: str, extra: int = 2) -> str:
    """``x`` in ``form``; a negative number that would print as a signed zero ("-0.00") gets up to ``extra`` more
    digits ("-0.003"), and one still zero there prints as zero: no "-0.00"."""
    text = f"{x:{form}}"
    if not (x < 0 and float(text) == 0):
        return text
    head, digits = form.rsplit(".", 1)
    for more in range(1, extra + 1):
        wider = f"{x:{head}.{int(digits[:-1]) + more}{digits[-1]}}"
        if float(wider) != 0:
            return wider
    return f"{0.0:{form}}"


def _gain_text(g: dict) -> str:
    """What one doubling of the oracle's budget bought, paired by deal; in words where every deal gave the same
    difference (a t interval of zero width is no interval)."""
    return "x2 buys " + iv_text(g["diff"], g["lo"], g["hi"], "+.3f",
                            same="on every deal (no interval: no deal's difference varied)")


def _elo(spread: dict) -> str:
    return f"{spread['elo_gap']:.0f}" if math.isfinite(spread["elo_gap"]) else "n/a (never at one table)"


def _games_to_lead(r: dict, a: str, b: str) -> str:
    x = next((x for x in r["reward_lead"] if (x["a"], x["b"]) == (a, b)), None)
    if not x:
        return "n/a"
    lead_by = "" if x["leader"] == a else f" ({b} leads)"
    return f"{_n(x['games_to_lead'])} ({_n(x['duplicate_games_to_lead'])} duplicate){lead_by}"


def _summary_table(report: dict) -> list[str]:
    cfg = report["config"]
    lines = ["## Summary", "",
             (f"| ruleset | relative skill, field of {cfg['field_agent']} | relative skill, field of random | "
             "variance of a seat's reward: hand / agent / rest | games for expert to lead random | games for "
             "search to lead expert | rating spread (Elo) |"), "|---|---|---|---|---|---|---|"]
    for r in report["rulesets"]:
        rs, bound = r["relative_skill"], r.get("relative_skill_bound", {})

        def skill(fld, rs=rs, bound=bound):  # the measured relative skill, else the lower bound
            return rs.get(fld) or {**(next(iter(bound[fld].values())) if bound.get(fld) else _NO_SKILL),
                                   "bound": True}

        v = r["variance"]
        vtxt = f"{v['hand']:.2f} / {v['agent']:.2f} / {v['rest']:.2f}" if v else "n/a"
        lines.append(f"| {r['ruleset']} | {_skill_text(skill(cfg['field_agent']))} "
                     f"| {_skill_text(skill('random'))} | {vtxt} | {_games_to_lead(r, 'expert', 'random')} "
                     f"| {_games_to_lead(r, _search_label(cfg), 'expert')} "
                     f"| {_elo(r['spread'])} ({r['spread']['strongest']} vs {r['spread']['weakest']}) |")
    return lines


def _bounds_table(report: dict) -> list[str]:
    cfg = report["config"]
    how = ("best real player chosen on the even deals, measured on the odd ones" if cfg.get("split", False)
           else "best real player chosen and measured on every deal")
    lines = ["", (f"Relative skill by field and beginner ({how}). With the fictive player `oracle`, its budget "
                  "certified when a paired test on the same deals showed a doubling buys less than the "
                  "tolerance (the first reports: when one doubling happened to move the random effect by less);"
                  " the lower bound puts the game's best payoff in the fictive player's place (no player can "
                  "score more, so no fictive player can give less relative skill). Capped: the largest share of"
                  " games at the ply cap over the ruleset's tournaments. The bracket: the true fictive player "
                  "(who knows every chance outcome and best-responds) scores at most the best payoff and at least "
                  "any feasible oracle, so relative skill lies between the lower bound and the oracle's value; "
                  "each end carries its own interval, and a stronger oracle narrows it from above. The fictive "
                  "network (where trained: `--fictive-steps`) is a second feasible fictive player, a network that "
                  "reads every seat's observation, trained against the field; the bracket's upper end is then the "
                  "relative skill with the stronger of the two on the even deals."), "",
             ("| ruleset | field | beginner | best real | relative skill, oracle (95%) | fictive network (95%) "
              "| lower bound (95%) | bracket | oracle budget | capped |"), "|---" * 10 + "|"]
    for r in report["rulesets"]:
        for fld, by_b in r.get("relative_skill_bound", {}).items():
            c = r.get("certification", {}).get(fld)
            if c:
                effects = " → ".join(f"{e:+.3f}" for e in c["random_effect"])
                gains = "; ".join(_gain_text(g) for g in c.get("gains", []))
                btxt = (f"{c['budgets'][-1]} ({'certified' if c['certified'] else 'not certified'}: RE {effects}"
                        + (f"; {gains}" if gains else "") + ")")
            else:
                btxt = "as given" if fld in r.get("relative_skill_by_beginner", {}) else "not played"
            net = r.get("fictive_network", {}).get(fld)
            for b, lb in by_b.items():
                x = r.get("relative_skill_by_beginner", {}).get(fld, {}).get(b)
                orc = "n/a"
                if x:
                    orc = ci(x["relative_skill"], x["rs_lo"], x["rs_hi"]) + cell_note(x)
                fic = "n/a"
                if net:
                    y = net["relative_skill"][b]
                    fic = ci(y["relative_skill"], y["rs_lo"], y["rs_hi"]) + cell_note(y)
                upper, source = bracket_upper(r, fld, b)
                if upper is None:
                    bracket = f"{bracket_text(lb, 1.0)} (no oracle played)"
                else:  # which fictive player gave the upper end, said where there were two
                    bracket = bracket_text(lb, upper["relative_skill"]) + (f" ({source})" if net else "")
                lines.append(f"| {r['ruleset']} | {fld} | {b} | {lb['best']} | {orc} | {fic} "
                             f"| {ci(lb['relative_skill'], lb['rs_lo'], lb['rs_hi'])} | {bracket} | {btxt} "
                             f"| {r.get('capped_max', r['truncated_share']):.1%} |")
    return lines


def cell_note(x: dict) -> str:
    """Why a relative-skill cell's interval leaves [0, 1], as " (...)" ("" when it does not): worded afresh from
    the cell (so every report, old ones too, reads as ``outside_note`` words it today), else the note it stored."""
    why = outside_note(x) if {"means", "best", "beginner", "fictive"} <= set(x) else x.get("note", "")
    return f" ({why})" if why else ""


def bracket_upper(r: dict, fld: str, b: str) -> tuple[dict | None, str]:
    """The bracket's upper end in one ruleset's report for a field and beginner: the relative skill with the
    stronger feasible fictive player (the oracle; the fictive network where it was the stronger on the even deals,
    or the only one played) and which it was; ``(None, "no fictive player")`` where neither was played (the upper
    end is then 1, the most relative skill can be)."""
    x = r.get("relative_skill_by_beginner", {}).get(fld, {}).get(b)
    net = r.get("fictive_network", {}).get(fld)
    if net and (net["stronger"] == "fictive" or not x):
        return net["relative_skill"][b], "fictive network"
    return (x, "oracle") if x else (None, "no fictive player")


def _ruleset_section(r: dict, cfg: dict) -> list[str]:
    """One ruleset's section: its seats, its fields of copies, relative skill, games to lead, spread, variance."""
    return [*_seat_tables(r, cfg), *_skill_table(r), *_tier_table(r), *_lead_tables(r, cfg),
            *_spread_and_variance(r, cfg)]


def _tier_table(r: dict) -> list[str]:
    """The learning effect of each real player over each beginner, weakest first: where it stops rising with the
    players' strength, the table has found the skill there is."""
    tiers = r.get("learning_tiers")
    if not tiers:
        return []
    lines = ["", ("Learning effect of each real player over the beginner (alone in the field, paired by deal, "
                  "on the measured deals), weakest first: where it stops rising, stronger players find no more "
                  "skill."),
             "",
             "| field | beginner | player | learning effect (95%) |", "|---|---|---|---|"]
    trained = r.get("best_response") or {}
    if trained:
        steps = next(iter(trained.values()))["steps"]
        lines[1] += (f" `best-response`: a network trained from scratch against that field alone (`train_ppo`, "
                     f"{steps:,} engine steps, one learner seat), the strongest player its own opponents can "
                     "teach.")
    for fld, by_b in tiers.items():
        for b, rows in by_b.items():
            for x in rows:
                effect = ci(x["learning_effect"], x["lo"], x["hi"], "+.3f")
                lines.append(f"| {fld} | {b} | {x['player']} | {effect} |")
    return lines


def _seat_tables(r: dict, cfg: dict) -> list[str]:
    ref_field = cfg["field_agent"]
    lines = ["", f"## {r['ruleset']}", "",
             (f"Luck-only win rate (share of seats that win): {r['baseline']:.3f}. Mean length of the all-agent "
             f"games {r['mean_length']:.0f} decisions, {r['truncated_share']:.1%} truncated."), "",
             "One seat against three others, every seat of every deal (95% intervals):", "",
             (f"| agent | win rate vs random | mean rank vs random | mean reward vs random "
             f"| win rate vs {ref_field} | mean reward vs {ref_field} |"), "|---|---|---|---|---|---|"]
    for name, s in r["field_random"].items():
        f = r.get("field_reference", {}).get(name)
        ref = (f"| {iv_text(f['win_rate'], f['win_rate_lo'], f['win_rate_hi'], '.3f')} "
               f"| {iv_text(f['reward'], f['reward_lo'], f['reward_hi'], '+.3f')} |") if f else "| | |"
        lines.append(f"| {name} | {iv_text(s['win_rate'], s['win_rate_lo'], s['win_rate_hi'], '.3f')} "
                     f"| {iv_text(s['rank'], s['rank_lo'], s['rank_hi'], '.2f')} "
                     f"| {iv_text(s['reward'], s['reward_lo'], s['reward_hi'], '+.3f')} " + ref)
    seats = " | ".join(f"seat {i}" for i in range(r["players"]))
    lines += ["", "Fields of copies, win rate by seat (seat 0 first in the seat order):", "",
              f"| agent | {seats} |", "|---" * (r["players"] + 1) + "|"]
    for name, c in r["copies"].items():
        lines.append(f"| {name} | " + " | ".join(f"{s['win_rate']:.3f} [{s['win_lo']:.3f}, {s['win_hi']:.3f}]"
                                                  for s in c["seats"]) + " |")
    if r.get("seat_effects"):
        lines += ["", ("Seat advantage in fields of copies: each seat's mean reward minus the table's, per deal "
                  "(95% intervals), and the Wald test of no seat advantage:"), "",
                  f"| agent | {seats} | chi2 (dof) | p |", "|---" * (r["players"] + 3) + "|"]
        for name, x in r["seat_effects"].items():
            lines.append(f"| {name} | " + " | ".join(iv_text(t["excess"], t["lo"], t["hi"], "+.3f")
                                                      for t in x["seats"])
                         + f" | {x['chi2']:.2f} ({x['dof']}) | {x['p_value']:.3f} |")
    if r.get("capped"):
        lines += ["", "Share of games that reached the ply cap, per tournament: "
                  + ", ".join(f"{k} {v:.1%}" for k, v in r["capped"].items()) + "."]
    return lines


def _skill_table(r: dict) -> list[str]:
    lines = ["", "| field | beginner | best real | fictive | learning effect | random effect | relative skill |",
             "|---|---|---|---|---|---|---|"]
    if not r["relative_skill"]:
        lines.append("| - | - | - | - | - | - | n/a: no fictive player (`oracle`) for this ruleset yet |")
    rows_rs = [(fld, x) for fld, by_b in r.get("relative_skill_by_beginner", {}).items() for x in by_b.values()]
    for fld, s in rows_rs or r["relative_skill"].items():
        m = s["means"]
        n = [_num(x, "+.3f") for x in (m[s["beginner"]], m[s["best"]], m[s["fictive"]], s["learning_effect"],
                                       s["random_effect"])]
        lines.append(f"| {fld} | {s['beginner']} {n[0]} | {s['best']} {n[1]} | {s['fictive']} {n[2]} | {n[3]} "
                     f"| {n[4]} | {ci(s['relative_skill'], s['rs_lo'], s['rs_hi'])} |")
    return lines


def _lead_tables(r: dict, cfg: dict) -> list[str]:
    lines = ["", (f"Games to lead in total reward, each agent alone in a field of {cfg['field_agent']} (95% "
             "confidence, normal approximation):"), "",
             "| A | B | reward gap A - B (95%) | leader | games, fresh deals | games, duplicate format |",
             "|---|---|---|---|---|---|"]
    for x in r["reward_lead"]:
        fresh, dup = _n(x["games_to_lead"]), _n(x["duplicate_games_to_lead"])
        if "lead_lo" in x:  # reports from before the intervals have none
            fresh = _games_iv(x["games_to_lead"], x["lead_lo"], x["lead_hi"])
            dup = _games_iv(x["duplicate_games_to_lead"], x["dup_lo"], x["dup_hi"])
        lines.append(f"| {x['a']} | {x['b']} | {x['reward_gap']:+.3f} [{x['gap_lo']:+.3f}, {x['gap_hi']:+.3f}] "
                     f"| {x['leader']} | {fresh} | {dup} |")
    table = ", ".join(r.get("agents", cfg["agents"]))
    lines += ["", (f"Head to head at the all-agent table ({table}; finishing ahead, ties half; games to lead "
              "computed exactly, interval from resampling deals):"), "",
              "| A | B | A ahead of B | leader | games to lead, fresh deals (95%) | in duplicate format |",
              "|---|---|---|---|---|---|"]
    for x in r["lead"]:
        if not x["games"]:
            lines.append(f"| {x['a']} | {x['b']} | never at one table (more deals would seat them together) "
                         "| n/a | n/a | n/a |")
            continue
        lines.append(f"| {x['a']} | {x['b']} | {x['ahead']:.3f} ({x['games']} games) | {x['leader']} "
                     f"| {_games_iv(x['games_to_lead'], x['lo'], x['hi'])} "
                     f"| {_n(x['duplicate_games_to_lead'])} |")
    return lines


def _spread_and_variance(r: dict, cfg: dict) -> list[str]:
    sp = r["spread"]
    h2h = (f"head to head {sp['ahead']:.3f}, about {sp['elo_gap']:.0f} Elo" if math.isfinite(sp["ahead"])
           else "never at one table, so no head-to-head share")
    lines = ["", (f"Rating spread: {sp['strongest']} - {sp['weakest']} = {sp['mu_gap']:.1f} +- "
                  f"{sp['mu_gap_ci']:.1f} OpenSkill mu; {h2h}.")]
    v = r["variance"]
    if v:
        lines += ["", (f"Variance of the reward of one seat against {cfg['field_agent']} "
                  f"(agents {', '.join(r.get('agents', cfg['agents']))}): hand {v['hand']:.3f} "
                  f"[{v['hand_lo']:.3f}, {v['hand_hi']:.3f}], agent {v['agent']:.3f} "
                  f"[{v['agent_lo']:.3f}, {v['agent_hi']:.3f}], rest {v['rest']:.3f} "
                  f"[{v['rest_lo']:.3f}, {v['rest_hi']:.3f}].")]
    return lines


def _games_iv(m: float, lo: float, hi: float) -> str:
    """A count of games to lead with its bootstrap interval; in words where every resample gave the same count."""
    if _n(lo) == _n(hi):  # the same count in every resample, as printed
        return f"{_n(m)} (every resample the same: no interval)"
    return f"{_n(m)} [{_n(lo)}, {_n(hi)}]"


def _search_label(cfg: dict) -> str:
    return spec_label(cfg["agents"][-1])


def _n(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "never"
    return "> 10^6" if x > 1e6 else f"{x:,.0f}"


def plot(report: dict, path: Path) -> None:
    """Relative skill with intervals, win rate in a field of random, games to lead and variance shares, one panel
    each, the rulesets side by side."""
    from matplotlib.figure import Figure  # no pyplot: a library must not pick (or change) the user's backend

    rs = report["rulesets"]
    names = [r["ruleset"] for r in rs]
    x = np.arange(len(rs))
    fld = report["config"]["field_agent"]
    fig = Figure(figsize=(18, 3.8))
    axes = fig.subplots(1, 4)
    ax = axes[0]
    for off, key in ((-0.15, fld), (0.15, "random")):
        vals = [r["relative_skill"].get(key) for r in rs]
        m = np.array([v["relative_skill"] if v else np.nan for v in vals])
        lo = np.array([v["rs_lo"] if v else np.nan for v in vals])
        hi = np.array([v["rs_hi"] if v else np.nan for v in vals])
        ax.errorbar(x + off, m, yerr=[m - lo, hi - m], fmt="o", capsize=3, label=f"field of {key}")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel("relative skill LE / (LE + RE)")
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.legend(fontsize=8)
    ax = axes[1]
    agents_ = list(dict.fromkeys(a for r in rs for a in r["field_random"]))
    nan = {"win_rate": np.nan, "win_rate_lo": np.nan, "win_rate_hi": np.nan}
    for i, a in enumerate(agents_):
        m = np.array([r["field_random"].get(a, nan)["win_rate"] for r in rs])
        lo = np.array([r["field_random"].get(a, nan)["win_rate_lo"] for r in rs])
        hi = np.array([r["field_random"].get(a, nan)["win_rate_hi"] for r in rs])
        ax.errorbar(x + (i - len(agents_) / 2) * 0.08, m, yerr=[m - lo, hi - m], fmt="o", ms=3, capsize=2, label=a)
    ax.scatter(x, [r["baseline"] for r in rs], marker="_", s=400, color="k", label="luck only")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel("win rate, one seat vs random")
    ax.legend(fontsize=7)
    ax = axes[2]
    pairs = list(dict.fromkeys((p["a"], p["b"]) for r in rs for p in r["reward_lead"]))
    for i, (a, b) in enumerate(pairs):
        vals = [next((p for p in r["reward_lead"] if (p["a"], p["b"]) == (a, b)), None) for r in rs]
        m = np.array([v["games_to_lead"] if v else np.nan for v in vals], float)
        m[~np.isfinite(m)] = np.nan
        ax.scatter(x + (i - len(pairs) / 2) * 0.1, m, label=f"{a} vs {b}")
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel(f"games to lead in reward (field of {fld})")
    ax.legend(fontsize=7)
    ax = axes[3]
    bottom = np.zeros(len(rs))
    for key in ("hand", "agent", "rest"):
        v = np.array([r["variance"][key] if r["variance"] else np.nan for r in rs])
        ax.bar(x, v, bottom=bottom, label=key)
        bottom += np.nan_to_num(v)
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel(f"share of variance, one seat vs {fld}")
    ax.legend(fontsize=8)
    fig.suptitle(f"skill and luck, {report['config']['players']} players")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
