"""The claims of ``book/sign_magnitude/theorem3.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`): ``dong.thm3.*`` (limit, small_p, finite_p, author_code, table2,
hidden_equals_output, post_norm_trap). Each measure and its control read ``SIZES[scale]``."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.chapters.sign_magnitude.theorem3 import CHAPTER
from companion.chapters.sign_magnitude.theorem3.records import (
    author_estimate,
    author_theorem3,
    ladder,
    our_estimate,
    per_p,
    table2_records,
    width_extrapolation,
    z_score,
)
from companion.chapters.sign_magnitude.theorem3.sizes import LADDER_PS, SIZES
from companion.claims import Claim, Measurement, per_setting
from companion.theory import transverse_ratio as _tr
from companion.theory.transverse_ratio import (
    PAPER_TABLE2,
    post_norm_inflation,
    simulate_transverse_ratio_grid,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_paper,
)


def _extrapolated(scale: str) -> dict:
    """``{p: (C_inf, chi2)}`` from :func:`ladder`."""
    lad = ladder(scale)
    ns = sorted(lad)
    return {p: width_extrapolation(ns, [lad[n][i] for n in ns]) for i, p in enumerate(LADDER_PS)}


def _ladder_text(scale: str, ps) -> str:
    s = SIZES[scale]
    lad, ext = ladder(scale), _extrapolated(scale)
    parts = []
    for p in ps:
        i = LADDER_PS.index(p)
        rungs = ", ".join(f"n={n}: {lad[n][i]:.4f}" for n in sorted(lad))
        c, chi2 = ext[p]
        parts.append(
            f"p = {p:g}: {rungs} → C∞ = {c:.4f} (χ² {chi2:.2f}); exact kernel "
            f"{transverse_ratio_exact(p):.4f} (z = {c.z(transverse_ratio_exact(p)):+.1f})"
        )
    return (
        f"{s.ladder_seeds} weight draws × {s.ladder_samples} sphere inputs per width, fitted "
        "C(n) = C∞ + b/n. " + "; ".join(parts)
    )


def _limit_identity(model) -> tuple[bool, str]:
    """Does ``model(p)`` tend to π/(π−2) with an O(√p) correction? (the limit's check; below
    p ≈ 1e-7 the kernel's arccos near 1 loses the digits that matter, so it stops there)."""
    lim = transverse_ratio_limit()
    ps = (1e-4, 1e-5, 1e-6)
    slopes = [(1 - float(model(p)) / lim) / np.sqrt(p) for p in ps]
    small = float(model(ps[-1]))
    ok = abs(small / lim - 1) < 1e-3 and abs(slopes[-1] - slopes[-2]) < 0.05 * abs(slopes[-1])
    text = (
        f"value at p = 1e-6: {small:.6f} against π/(π−2) = {lim:.6f}; (1 − C/L)/√p at p = "
        + ", ".join(f"{p:g}: {a:.4f}" for p, a in zip(ps, slopes, strict=True))
    )
    return ok, text


def _thm3_limit(scale: str = "cpu", full: bool = False) -> Measurement:
    ok, text = _limit_identity(transverse_ratio_exact)
    return Measurement(
        value=float(transverse_ratio_exact(1e-6)),
        agrees=ok,
        reason="" if ok else "the exact-kernel ratio does not tend to π/(π−2) as √p → 0",
        detail=f"exact arc-cosine-kernel ratio C_exact(p), both branches unexpanded: {text} "
        "(it converges: C = π/(π−2)(1 − a√p + O(p)), a ≈ 0.17). An identity of the kernel, "
        "not a measurement: no simulation reaches p → 0 (dong.thm3.small_p faces "
        "C_exact(0.005)).",
    )


def _thm3_limit_control(scale: str = "cpu", full: bool = False) -> Measurement:
    ok, text = _limit_identity(_tr.transverse_ratio_noise)
    return Measurement(
        value=float(_tr.transverse_ratio_noise(1e-6)),
        agrees=ok,
        detail=f"independent noise in place of the Bussgang-aligned magnitude partner: {text}",
    )


def _small_p(reference: float, what: str, scale: str) -> Measurement:
    c, _ = _extrapolated(scale)[0.005]
    ok = c.agrees_with(reference)
    return Measurement(
        value=c.value,
        stderr=c.stderr,
        agrees=ok,
        reason=""
        if ok
        else f"C∞ = {c:.4f} is {c.z(reference):+.1f} SE from {what} = {reference:.4f}",
        detail=_ladder_text(scale, (0.005,)),
    )


def _thm3_small_p(scale: str = "cpu", full: bool = False) -> Measurement:
    return _small_p(float(transverse_ratio_exact(0.005)), "C_exact(0.005)", scale)


def _thm3_small_p_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _small_p(transverse_ratio_limit(), "the limit π/(π−2)", scale)


def _finite(reference, what: str, scale: str) -> Measurement:
    ext = _extrapolated(scale)
    ps = sorted(PAPER_TABLE2)
    zs = {p: ext[p][0].z(float(reference(p))) for p in ps}
    ok = all(abs(z) <= 4 for z in zs.values())
    c05 = ext[0.05][0]
    bad = ", ".join(f"p = {p:g}: {z:+.1f} SE" for p, z in zs.items() if abs(z) > 4)
    return Measurement(
        value=c05.value,
        stderr=c05.stderr,
        agrees=ok,
        reason="" if ok else f"the width-extrapolated C is more than 4 SE from {what} ({bad})",
        detail=_ladder_text(scale, ps),
        shown=per_setting({f"p = {p:g}": (ext[p][0].value, ext[p][0].stderr) for p in ps}),
    )


def _thm3_finite(scale: str = "cpu", full: bool = False) -> Measurement:
    return _finite(transverse_ratio_exact, "the exact kernel", scale)


def _thm3_finite_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _finite(transverse_ratio_paper, "the author's closed form c(p)", scale)


def _author_sd(a: dict, p: float) -> float:
    return a["C"][f"{p:g}"]["sd"]


def _thm3_author(scale: str = "cpu", full: bool = False, shift: int = 0) -> Measurement:
    recs, on = table2_records(scale, full)
    a = author_theorem3()
    ps = sorted(PAPER_TABLE2)
    # the control compares each p with the author's value at the next p of the table
    zs = {
        p: z_score(our_estimate(recs[p]), author_estimate(a, ps[(i + shift) % len(ps)]))
        for i, p in enumerate(ps)
    }
    ok = all(abs(z) <= 4 for z in zs.values())
    n = recs[ps[0]]["n"]
    text = "; ".join(
        f"p = {p:g}: ours {our_estimate(recs[p]):.4f}, author's code {author_estimate(a, p):.4f} "
        f"(z = {z_score(our_estimate(recs[p]), author_estimate(a, p)):+.2f})"
        for p in ps
    )
    return Measurement(
        value=recs[0.01]["C"],
        stderr=recs[0.01]["C_se"],
        agrees=ok,
        reason=""
        if ok
        else "ours differs from the author's code by more than 4 combined SE ("
        + ", ".join(f"{p:g}: {z:+.1f}" for p, z in zs.items())
        + ")",  # fmt: skip
        detail=f"n = m = d = {n}, {recs[0.01]['seeds']} weight draws × "
        f"{recs[0.01]['samples']} inputs, one independent run per p. "
        f"{text}. Author's code: {a['script']} at commit {a['commit']}, "
        f"{a['call']}, seeds {a['seed_list']}, run on {a['machine']} ({a['time'][:10]}).",
        source=f"theorem3/table2-{scale}.jsonl; author/theorem3_v1.json",
        measured_on=on,
        shown=per_p(recs),
    )


def _thm3_author_control(scale: str = "cpu", full: bool = False) -> Measurement:
    """Ours against the author's closed form c(p) in place of the author's code: a plausible
    wrong hypothesis (the code computes the paper's formula), up to 5.6% low."""
    recs, on = table2_records(scale, full)
    ps = sorted(PAPER_TABLE2)
    zs = {p: our_estimate(recs[p]).z(float(transverse_ratio_paper(p))) for p in ps}
    return Measurement(
        value=recs[0.01]["C"],
        agrees=all(abs(z) <= 4 for z in zs.values()),
        detail="each p of ours against the author's closed form c(p): "
        + ", ".join(
            f"p = {p:g}: c(p) {float(transverse_ratio_paper(p)):.4f}, z = {z:+.1f}"
            for p, z in zs.items()
        ),  # fmt: skip
        measured_on=on,
    )


def _thm3_table2(scale: str = "cpu", full: bool = False) -> Measurement:
    recs, on = table2_records(scale, full)
    a = author_theorem3()
    ps = sorted(PAPER_TABLE2)
    rows, zs = [], {}
    for p in ps:
        ours, readme = our_estimate(recs[p]), PAPER_TABLE2[p]
        zs[p] = ours.z(readme[0])
        auth = author_estimate(a, p)
        rows.append(
            f"p = {p:g}: README {readme[0]:.3f} ± {readme[1]:.3f}; ours {ours:.4f} (README − ours "
            f"= {readme[0] - ours.value:+.4f} = {-zs[p]:+.1f} of our SE); author's code "
            f"{auth:.4f} (README − author = {(readme[0] - auth.value) / auth.stderr:+.1f} of "
            "its SE)"
        )
    ok = all(abs(z) <= 4 for z in zs.values())
    stored = a["stored_json"]["C"]
    return Measurement(
        value=recs[0.01]["C"],
        stderr=recs[0.01]["C_se"],
        agrees=ok,
        reason=""
        if ok
        else "the README's Table 2 disagrees with the author's own script and with ours "
        "(which agree with each other, see dong.thm3.author_code): "
        + ", ".join(f"p = {p:g}: {-z:+.1f} SE" for p, z in zs.items())
        + f". Its ± ({', '.join(f'{PAPER_TABLE2[p][1]:.3f}' for p in ps)}) is about 3× the "
        "seed-to-seed SD of the author's code "
        f"({', '.join(f'{_author_sd(a, p):.4f}' for p in ps)}), so it is neither that "
        "code's SE nor its SD; the author's stored 20-seed JSON gives "
        + ", ".join(f"{stored[f'{p:g}']['mean']:.4f}" for p in ps if f"{p:g}" in stored),
        detail="; ".join(rows),
        source=f"theorem3/table2-{scale}.jsonl; author/theorem3_v1.json",
        measured_on=on,
        shown=per_p(recs),
    )


def _thm3_hidden(scale: str = "cpu", full: bool = False) -> Measurement:
    lad = ladder(scale)
    n, parts, ok, res, hidden = max(lad), [], True, [], {}
    for p in (0.01, 0.05):
        r = lad[n][LADDER_PS.index(p)]
        diff, se = r.value - r.C_hidden.value, r.C_out_minus_hidden.stderr  # SE paired
        ok &= abs(diff) <= 4 * se
        res.append(4 * se / r.value)
        hidden[f"C_hidden at p = {p:g}"] = (r.C_hidden.value, r.C_hidden.stderr)
        parts.append(f"p = {p:g}: C_out {r:.4f}, C_hidden {r.C_hidden:.4f}, difference "
                     f"{diff:+.5f} ± {se:.5f} (z = {diff / se:+.2f})")  # fmt: skip
    first = lad[n][LADDER_PS.index(0.01)].C_hidden
    return Measurement(
        value=first.value,
        stderr=first.stderr,
        agrees=bool(ok),
        reason="" if ok else "C on the hidden layer differs from C on the output by > 4 SE",
        shown=per_setting(hidden),
        detail=f"n = m = d = {n} (the ladder's widest run): "
        + "; ".join(parts)
        + f" (SE of the difference paired per seed; 4 SE resolves a relative difference of "
        f"{max(res):.2%}, against 1/d = {1 / n:.2%})",
    )


@lru_cache(maxsize=4)
def _trap_sims(scale: str):
    s, n = SIZES[scale], SIZES[scale].ladder_widths[0]
    rng = np.random.default_rng([20261203, n])
    sims = simulate_transverse_ratio_grid(
        (0.01, 0.05), n, samples=s.ladder_samples, seeds=s.ladder_seeds, rng=rng
    )
    return tuple(sims)


def _no_sqrt_term(p: float) -> float:
    """The inflation without its √p term, 1 + 4p: the plausible wrong expansion."""
    return 1 + 4 * p


def _trap(scale: str, readout: str, inflation=None) -> Measurement:
    sims, parts, ok = _trap_sims(scale), [], True
    for s in sims:
        infl = float((inflation or post_norm_inflation)(s.p))
        fd, c = s.C_post_norm_fd, s
        meas = fd if readout == "finite-difference" else c
        ratio = meas.value / c.value
        se = ratio * float(np.hypot(fd.stderr / fd.value, c.stderr / c.value))
        z = (ratio - infl) / se
        ok &= abs(z) <= 4
        parts.append(
            f"p = {s.p:g}: {readout} {meas:.3f} / first-order {c:.3f} = ×{ratio:.3f} against "
            f"{'1 + 4p' if inflation else '1 + 4√(2p/π) + 4p'} = ×{infl:.3f} (z = {z:+.1f})"
        )
    return Measurement(
        value=sims[0].C_post_norm_fd.value,
        stderr=sims[0].C_post_norm_fd.stderr,
        agrees=bool(ok),
        reason="" if ok else f"the {readout} readout is not the first-order C × the inflation",
        detail=f"n = m = d = {sims[0].n_in}: "
        + "; ".join(parts)
        + ". The author's V2 chain at m = 2048 gives C₁ = 3.617 at p = 0.01 (its V0 "
        "control: 'NOT matching Theorem 3').",
    )


def _thm3_trap(scale: str = "cpu", full: bool = False) -> Measurement:
    return _trap(scale, "finite-difference")


def _thm3_trap_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _trap(scale, "finite-difference", inflation=_no_sqrt_term)


_COMMON = dict(paper="dong", chapter=CHAPTER)


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="dong.thm3.limit",
        statement="The exact-kernel ratio C_exact(p) = T_sign/T_mag of the two-layer ReLU model "
        "tends to π/(π−2) ≈ 2.7519 as p → 0, with an O(√p) correction (an identity of the "
        "kernel; no simulation reaches the limit).",
        paper_value="π/(π−2) ≈ 2.7519 as p → 0",
        method="both branches through the arc-cosine kernel, unexpanded, at p = 1e-4, 1e-5, 1e-6",
        tolerance="within 1e-3 relative at p = 1e-6, and (1 − C/L)/√p converged to 5%",
        provenance=("abstract", "author-code", "reconstruction"),
        measure=_thm3_limit,
        evidence="identity",
        control=_thm3_limit_control,
        control_method="the same limit with independent noise in place of the Bussgang-aligned "
        "magnitude partner: tends to 1",
        **_COMMON,
        depends_on=(
            "companion.theory.transverse_ratio.transverse_ratio_limit",
            "companion.theory.transverse_ratio.transverse_ratio_exact",
            "companion.theory.transverse_ratio.transverse_ratio_noise",
        ),
    ),
    Claim(
        id="dong.thm3.small_p",
        statement="Simulated at p = 0.005 and extrapolated in width (n = m = d), the two-layer "
        "model's C agrees with C_exact(0.005) = 2.7001, below the limit 2.7519.",
        paper_value="C → π/(π−2) as p → 0 (Theorem 3)",
        method="ratio of summed pre-norm transverse energies at three widths, fitted "
        "C(n) = C∞ + b/n, against the exact kernel at the same p",
        tolerance="C∞ within 4 SE of C_exact(0.005)",
        provenance=("abstract", "author-code", "reconstruction"),
        measure=_thm3_small_p,
        evidence="simulation",
        control=_thm3_small_p_control,
        control_method="the same C∞ against the limit π/(π−2): a finite-p simulation must not "
        "reach it",
        **_COMMON,
        depends_on=(
            "companion.theory.transverse_ratio.transverse_ratio_exact",
            "companion.theory.transverse_ratio.transverse_ratio_limit",
        ),
    ),
    Claim(
        id="dong.thm3.finite_p",
        statement="At p = 0.01, 0.02, 0.05, 0.10 the two-layer model's C, simulated and "
        "extrapolated in width, agrees with the exact arc-cosine kernel (2.668, 2.614, 2.479, "
        "2.292), where the author's closed form c(p) is 2–5% low.",
        paper_value="C(p) = (1 − R_sign)/(1 − 2/π) · R_A(p) = 2.610 / 2.538 / 2.378 / 2.176 "
        "(the author's formula)",
        method="the width ladder of dong.thm3.small_p at Table 2's four p",
        tolerance="each C∞ within 4 SE of C_exact(p) (the extrapolation resolves about 1%: "
        "C_exact off by 0.5% would pass)",
        provenance=("author-code", "reconstruction"),
        measure=_thm3_finite,
        evidence="simulation",
        control=_thm3_finite_control,
        control_method="the same C∞ against the author's closed form c(p)",
        **_COMMON,
        depends_on=(
            "companion.theory.transverse_ratio.transverse_ratio_exact",
            "companion.theory.transverse_ratio.transverse_ratio_paper",
        ),
    ),
    Claim(
        id="dong.thm3.author_code",
        statement="At Table 2's protocol (V1, n = m = d = 2048, 10,000 sphere inputs per seed) "
        "our estimator of C agrees with the author's own verify_theorem3.py at every p.",
        paper_value="author's code, 5 seeds: 2.6612 / 2.6092 / 2.4756 / 2.2902 (p = 0.01 … 0.10)",
        method="ours: one independent 5-seed run per p (results file); the author's: "
        "verify_single_layer at their first 5 seeds, run by tools/author_theorem3.py",
        tolerance="within 4 combined SE at every p",
        provenance=("author-code",),
        measure=_thm3_author,
        evidence="author-result",
        control=_thm3_author_control,
        control_method="each p of ours against the author's closed form c(p) in place of the "
        "author's code (the code does not compute the formula: it undershoots by up to 5.6%)",
        heavy=True,
        **_COMMON,
        depends_on=("companion.theory.transverse_ratio.simulate_transverse_ratio",),
    ),
    Claim(
        id="dong.thm3.table2",
        statement="The README's Table 2 gives C = 2.639 ± 0.012, 2.583 ± 0.010, 2.465 ± 0.010, "
        "2.299 ± 0.008 at p = 0.01, 0.02, 0.05, 0.10 (V1, n = 2048, 20 seeds).",
        paper_value="2.639 / 2.583 / 2.465 / 2.299 (README, Table 2)",
        method="our n = 2048 run (as in dong.thm3.author_code) against each README value",
        tolerance="within 4 of our SE at every p",
        provenance=("author-code",),
        measure=_thm3_table2,
        evidence="paper-number",
        control_none="the claim deviates; the same estimator agrees with the author's own code "
        "(dong.thm3.author_code, whose control deviates), so the comparison can both pass and "
        "fail and the deviation is the README's",
        heavy=True,
        **_COMMON,
        depends_on=("companion.theory.transverse_ratio.simulate_transverse_ratio",),
    ),
    Claim(
        id="dong.thm3.hidden_equals_output",
        statement="In the two-layer model W₂ hardly matters: C measured on the hidden layer "
        "equals C on the pre-norm output (the paper: within O(1/d); this check resolves the "
        "relative difference its detail states, coarser than 1/d).",
        paper_value="C_hidden ≈ C_out (the author's code reports both)",
        method="the width ladder's widest run reports both ratios (p = 0.01, 0.05)",
        tolerance="difference within 4 SE, paired per seed",
        provenance=("author-code", "reconstruction"),
        measure=_thm3_hidden,
        evidence="simulation",
        control_none="no honest control within the model: W₂ is Gaussian in every "
        "configuration the simulator offers, and even a 4-dimensional output (d = 4) gives "
        "C_out = C_hidden within its SE (the O(1/d) offsets of the two branches cancel in the "
        "ratio); breaking it needs a non-Gaussian W₂",
        **_COMMON,
    ),
    Claim(
        id="dong.thm3.post_norm_trap",
        statement="Measuring the transverse change after RMSNorm (a finite difference) instead "
        "of first order inflates C by 1 + 4√(2p/π) + 4p: about 3.6 at p = 0.01, the value of "
        "the author's V0/V2 chains.",
        paper_value="author's V2 chain C₁ = 3.617 (m = 2048, p = 0.01); V0 'NOT matching "
        "Theorem 3'",
        method="one simulation with both readouts at p = 0.01 and 0.05",
        tolerance="finite-difference / first-order within 4 SE of the inflation factor",
        provenance=("author-code", "reconstruction"),
        measure=_thm3_trap,
        evidence="simulation",
        control=_thm3_trap_control,
        control_method="the same finite-difference ratio against the inflation without its √p "
        "term, 1 + 4p (the expansion a reader might write down)",
        **_COMMON,
        depends_on=("companion.theory.transverse_ratio.post_norm_inflation",),
    ),
)
