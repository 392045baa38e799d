"""Field dynamics: hotness, crowding, funding climate, compute shocks, observables (MECHANICS §4).

All functions take the :class:`world.engine.World` (``w``) and mutate ``w.s`` (the state).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .config import TOPICS
from .people import boost_next_season, spend_attention

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World


def build_trajectory(w: World) -> list[list[float]]:
    """Precompute hotness for indices 0..months+padding from stream ``field_traj`` (§4).

    Returns:
        A list of rows, one per month index, each a list of hotness per topic (``TOPICS``
        order). Index 0 holds the initial values. Under ``frozen_field`` every row equals
        the initial values and no draw is made (Decisions §4).
    """
    cfg = w.cfg
    h0 = cfg.hotness0()
    n = cfg.months + cfg.trajectory_padding + 1
    if cfg.frozen_field:
        return [list(h0) for _ in range(n)]
    gen = w.rng.stream("field_traj")
    nk = len(TOPICS)
    lo, hi = math.log(cfg.hot_min), math.log(cfg.hot_max)
    boom_mean = math.log(cfg.boom_log_mean_factor)
    if n <= 1:
        return [list(h0)]
    if cfg.bust_high < cfg.bust_low:  # as numpy's uniform(bust_low, bust_high) refused it
        raise ValueError(f"bust_high ({cfg.bust_high}) is below bust_low ({cfg.bust_low})")
    # Each month draws, in this order, drift ~ N(0, drift_sd), noise ~ N(0, noise_sd),
    # u ~ U[0, 1), boom ~ N(boom_mean, boom_sd) and bust ~ U(bust_low, bust_high), one value
    # per topic. numpy computes N(loc, sd) as loc + sd × (a standard normal) and U(a, b) as
    # a + (b − a) × (a uniform double), element by element in draw order, so the month's raw
    # draws are taken in four calls (drift and noise together) into preallocated rows, and
    # the scaling is done afterwards: the same IEEE operations on the same draws, the same
    # floats (tests/world/test_field_trajectory.py).
    months = n - 1
    z_walk = np.empty((months, 2 * nk))
    u = np.empty((months, nk))
    z_boom = np.empty((months, nk))
    u_bust = np.empty((months, nk))
    standard_normal, random = gen.standard_normal, gen.random
    for zw_row, u_row, zb_row, ub_row in zip(z_walk, u, z_boom, u_bust, strict=True):  # row views, in month order
        standard_normal(out=zw_row)
        random(out=u_row)
        standard_normal(out=zb_row)
        random(out=ub_row)
    drift = 0.0 + cfg.hot_drift_sd * z_walk[:, :nk]
    noise = 0.0 + cfg.hot_noise_sd * z_walk[:, nk:]
    # Running sums in numpy over all months at once, and the recursion in plain floats: the
    # same IEEE operations in the same order as month-by-month arrays
    # (``m if m < hi else hi`` of ``m = v if v > lo else lo`` is exactly np.clip's rule).
    # log and exp are the C library's (math.log, math.exp), one float at a time: numpy's
    # array log/exp pick a SIMD kernel by the CPU (AVX-512 or not) whose last bits differ,
    # and the world must be the same on every machine (tests/world/test_field_trajectory.py)
    log = math.log
    x0 = [log(h) for h in h0]
    mus = np.add.accumulate(np.vstack([np.array([x0]), drift]), axis=0)[1:].tolist()
    # The jump of each month and topic: the boom if u < boom_p, else the bust if u < boom_p +
    # bust_p, else 0.0 (a choice, as np.where makes it). Only the few chosen jumps (~3 % of
    # the draws; found by one array comparison) are computed, each as a float the way numpy
    # scales a whole array (boom_mean + boom_sd × z; bust_low + (bust_high − bust_low) × u,
    # then its log): the same floats, without scaling and logging the draws no jump uses
    p_boom, p_jump = cfg.boom_p, cfg.boom_p + cfg.bust_p
    boom_sd, bust_low, bust_span = cfg.boom_log_sd, cfg.bust_low, cfg.bust_high - cfg.bust_low
    jumps = [[0.0] * nk for _ in range(months)]
    chosen = np.nonzero(u < p_jump)
    for t, k, uk, zb, ub in zip(
        chosen[0].tolist(),
        chosen[1].tolist(),
        u[chosen].tolist(),
        z_boom[chosen].tolist(),
        u_bust[chosen].tolist(),
        strict=True,
    ):
        jumps[t][k] = boom_mean + boom_sd * zb if uk < p_boom else log(bust_low + bust_span * ub)
    rev = cfg.hot_reversion
    exp = math.exp
    x = x0
    traj: list[list[float]] = [list(h0)]
    for mu_t, no_t, j_t in zip(mus, noise.tolist(), jumps, strict=True):
        # v = x + rev (mu − x) + noise + jump, then clipped to [lo, hi]; one list per month
        x = [
            c if (c := (v if (v := xk + rev * (mk - xk) + nk_ + jk) > lo else lo)) < hi else hi
            for xk, mk, nk_, jk in zip(x, mu_t, no_t, j_t, strict=True)
        ]
        traj.append(list(map(exp, x)))
    return traj


def hotness(w: World, month: int) -> list[float]:
    """True hotness per topic in month ``month`` (clamped to the precomputed range)."""
    traj = w.s.trajectory
    # traj[max(0, min(month, len(traj) - 1))] without the two calls: the same row
    if 0 <= month < len(traj):
        row: list[float] = traj[month]
        return row
    edge: list[float] = traj[0 if month < 0 else len(traj) - 1]
    return edge


def climate_target(w: World, month: int) -> float:
    """Funding-climate target 1 + A sin(2πm/P + φ) (§4)."""
    cfg = w.cfg
    return 1.0 + cfg.climate_amplitude * math.sin(2.0 * math.pi * month / cfg.climate_period + w.s.phi)


def field_step(w: World, m: int) -> None:
    """The field step that opens month ``m`` ≥ 2: crowding, climate, compute shocks (§4)."""
    cfg, s = w.cfg, w.s
    if not cfg.frozen_field:
        h = hotness(w, m)
        gen = w.rng.streams["crowd"]
        # one vector draw equals the per-topic scalar draws in order (same sampler per element)
        noise = gen.normal(0.0, cfg.crowd_noise_sd, len(s.crowding)).tolist()
        cmin, rate = cfg.crowd_min, cfg.crowd_rate
        # v if v > cmin else cmin is max(cmin, v), without the call
        s.crowding = [
            v if (v := c + rate * (hk - c) + e) > cmin else cmin for c, hk, e in zip(s.crowding, h, noise, strict=True)
        ]
    streams = w.rng.streams
    target = climate_target(w, m)
    climate = s.climate
    # normal(0.0, sd) as numpy computes it (0.0 + sd × a standard normal): the same float
    noise = 0.0 + cfg.climate_noise_sd * streams["climate"].standard_normal()
    v = climate + cfg.climate_rate * (target - climate) + noise
    v = v if v > cfg.climate_min else cfg.climate_min  # min(max, max(min, v)) without the calls
    s.climate = v if v < cfg.climate_max else cfg.climate_max
    if s.shock_until < m:
        gen = streams["shock"]
        if gen.random() < cfg.shock_p:
            up = gen.random() < cfg.shock_up_p
            s.compute_mult = cfg.shock_up if up else cfg.shock_down
            s.shock_until = m + cfg.shock_months - 1
            word = "surged" if up else "dropped"
            pct = round(abs(s.compute_mult - 1.0) * 100)
            # dated m: the field step runs before month m is opened (s.month is still m − 1)
            w.s.news.append([m, "compute", None, f"Compute prices {word} ~{pct}%, for a few months."])
        else:
            s.compute_mult = 1.0


def magnitude_word(w: World, h: float) -> str:
    """The news magnitude word for true hotness ``h`` (§4)."""
    cfg = w.cfg
    if h >= cfg.word_surging:
        return "surging"
    if h >= cfg.word_gaining:
        return "gaining steam"
    if h >= cfg.word_steady:
        return "steady"
    return "quiet"


_FIELD_NEWS: dict[tuple[int, str, str], str] = {}
"""Field news texts by (item count, topic, magnitude word), formatted on first use
(:func:`generate_observables`; a few hundred at most: counts are small Poisson draws)."""


def generate_observables(w: World, m: int) -> None:
    """News, preprint feed, conference reports and funding news at the open of month ``m`` (§4).

    News, preprints and funding news use one generator keyed by ``("observables", m)``;
    conference reports are keyed by ``(venue, m, topic)``.
    """
    cfg, s = w.cfg, w.s
    h = hotness(w, m)
    gen = w.rng.keyed_text(f"observables|{m}")
    # Scalar draws in topic order consume the stream exactly as one vector draw would
    # (numpy fills a vector element by element with the same sampler) and cost less; a
    # scalar Poisson draw is a Python int.
    poisson = gen.poisson
    rate = cfg.news_rate
    counts = [poisson(rate * hk) for hk in h]
    rate = cfg.preprint_rate
    preprints = [poisson(rate * c) for c in s.crowding]
    # gen.normal(1.0, sd) as numpy computes it (1.0 + sd × a standard normal): the same float
    funding_noise = 1.0 + cfg.funding_news_noise_sd * gen.standard_normal()
    news, today = s.news, s.month  # dated as World.add_news dates them
    texts = _FIELD_NEWS
    for topic, n, hk in zip(TOPICS, counts, h, strict=True):
        if n > 0:
            word = magnitude_word(w, hk)
            # the text formatted once per (count, topic, word) and kept: the same string
            text = texts.get((n, topic, word))
            if text is None:
                items = "item" if n == 1 else "items"
                text = texts[n, topic, word] = f"{n} {items} on {topic} this month; the area is {word}."
            news.append([today, "field", topic, text])
    s.preprints.extend([[m, topic, n] for topic, n in zip(TOPICS, preprints, strict=True)])
    venues, month_of_year = cfg.venues, m % 12
    for venue in ("NAIC", "CLAR"):
        if month_of_year in venues[venue]["deadlines"]:
            lagged = hotness(w, max(1, m - cfg.conference_report_lag))
            rate = cfg.conference_report_rate
            keyed_text = w.rng.keyed_text
            reports = s.conference_reports
            key = f"conference_report|{venue}|{m}|"  # + topic: the key keyed("conference_report", venue, m, topic)
            for topic, hk in zip(TOPICS, lagged, strict=True):
                reports.append([m, venue, topic, keyed_text(key + topic).poisson(rate * hk)])
    if m % 3 == 0 and m > 2:
        value = climate_target(w, m - cfg.funding_news_lag) * funding_noise
        mood = (
            "expanding" if value > cfg.funding_word_up else ("tightening" if value < cfg.funding_word_down else "flat")
        )
        w.add_news("funding", None, f"Funding outlook {mood} (index {value:.2f}).")


def conference_intel(w: World, m: int) -> dict[str, str]:
    """Hallway intel from attending a conference in month ``m``: a bucket per topic (§11)."""
    cfg = w.cfg
    h = hotness(w, m)
    gen = w.rng.keyed("conference_intel", m)
    out = {}
    for k, topic in enumerate(TOPICS):
        v = h[k] + float(gen.normal(0.0, cfg.intel_noise_sd))
        if v > cfg.intel_very_hot:
            out[topic] = "very hot"
        elif v > cfg.intel_hot:
            out[topic] = "hot"
        elif v > cfg.intel_warm:
            out[topic] = "warm"
        else:
            out[topic] = "quiet"
    return out


def hallway_talk(w: World) -> list[dict[str, Any]]:
    """What the PI heard at each conference trip of the career, oldest first:
    ``[{"month": m, "intel": conference_intel(w, m)}]``, one per ``field.attend_conference``
    in the action log (§11). The same words as the trip's reply: the intel depends only on the
    seed, the month and the trajectory drawn at construction, so a loaded or replayed career
    hears it again without keeping it (nothing is saved, no stream is advanced)."""
    return [
        {"month": int(month), "intel": conference_intel(w, int(month))}
        for month, name, _kwargs in w.s.action_log
        if name == "field.attend_conference"
    ]


def attend_conference(w: World) -> dict[str, str]:
    """A conference trip (§11): PI hours, travel cost, reputation, next season's pool boosted.

    The caller checked the gap since the last trip and the hours. Returns the hallway intel
    (topic → what people say, :func:`conference_intel`).
    """
    s, cfg = w.s, w.cfg
    m = s.month
    spend_attention(w, cfg.conference_hours)
    w.spend(-cfg.conference_cost, "travel", "conference")
    w.reputation_impulse("conference", cfg.rep_conference)
    boost_next_season(w)
    s.last_conference_month = m
    return conference_intel(w, m)
