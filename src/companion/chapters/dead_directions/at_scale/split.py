"""Part II at scale, the σ_min split by sublayer: the records ``companion run sigma-split``
wrote (one per trained offline checkpoint whose blocks can be split, and the two cancelling
controls on SmolLM2), and what the claim ``shirodkar.sigma_min_split`` and the page's table
read from them: for every block whose σ_min ratio is below 1 − 4 SE, the sublayer that
carries the decline (:func:`companion.llm.dead_directions.sublayers.localise`, recomputed
from the records' ratios and SEs)."""

from __future__ import annotations

__all__ = [
    "CONTROLS",
    "CONTROL_MODEL",
    "controls",
    "claim_models",
    "split_claim_records",
    "declines",
    "split_commands",
    "split_parts",
    "split_source",
    "product_gap",
]

#: The controls' model and settings: block 10's MLP, then its attention, cancelling.
CONTROL_MODEL = "smollm2-135m"
CONTROLS = ("mlp:10", "attention:10")


def controls(scale: str) -> tuple:
    """The controls' settings at ``scale`` (the smoke scale builds one block: block 1)."""
    return ("mlp:1", "attention:1") if scale == "smoke" else CONTROLS


def claim_models(scale: str) -> tuple:
    """The checkpoints the claim reads at ``scale``: every splittable offline one (at smoke
    scale the text ones, built tiny: Whisper's stacks are not built small there)."""
    from companion.llm.dead_directions.sublayers_run import split_models
    from companion.llm.registry import get_spec

    names = split_models()
    if scale == "smoke":
        names = tuple(m for m in names if get_spec(m).modality != "speech")
    return names


def split_commands(scale: str = "cpu") -> str:
    """The commands that write the records the claim reads."""
    c = "companion run sigma-split --resume" + ("" if scale == "cpu" else f" --scale {scale}")
    return "; ".join(
        [f"{c} --model " + " --model ".join(claim_models(scale))]
        + [f"{c} --model {CONTROL_MODEL} --cancel {x}" for x in controls(scale)]
    )


def _key(r: dict) -> str:
    cancel = (r.get("settings") or {}).get("cancel")
    return r["model"] + (f" (cancel {cancel})" if cancel else "")


def split_claim_records(scale: str, full: bool) -> tuple[dict, dict, dict]:
    """``({model: record}, {cancel: record}, measured_on)`` of the trained records at
    ``scale`` (the last written wins); :class:`~companion.claims.NotRun` naming the missing
    ones (``full`` runs them first, resumably)."""
    from companion.claims import complete, measured_on_records
    from companion.llm.dead_directions.sublayers_run import load_split_results, run_sigma_split

    models, ctls = claim_models(scale), controls(scale)
    want = [*models, *(f"{CONTROL_MODEL} (cancel {c})" for c in ctls)]

    def recs():
        got = [r for r in load_split_results(scale=scale) if r.get("init") == "trained"]
        return {_key(r): r for r in got if r.get("scale") == scale}

    def run(missing):
        for k in missing:
            name, _, rest = k.partition(" (cancel ")
            cancel = rest.rstrip(")") or None
            run_sigma_split(name, scale=scale, cancel=cancel, resume=True)

    cmd = split_commands(scale)
    count = complete(want, lambda: list(recs()), command=cmd, full=full, run=run)
    have = recs()
    use = {m: have[m] for m in models}
    ctl = {c: have[f"{CONTROL_MODEL} (cancel {c})"] for c in ctls}
    folder = "sigma_split" if scale == "cpu" else f"sigma_split_{scale}"
    on = measured_on_records(
        [*use.values(), *ctl.values()], file=f"{folder}/sigma_split.jsonl", scale=scale,
        models=list(models),
    )  # fmt: skip
    return use, ctl, {**on, "records": count}


def declines(rec: dict, k: float = 4.0) -> list[dict]:
    """The record's declining blocks and the sublayer carrying each (recomputed from its
    ratios and SEs, not read from its ``localised`` field)."""
    from companion.llm.dead_directions.sublayers import SublayerSplit, localise

    return localise(SublayerSplit.from_record(rec), k=k)


def product_gap(rec: dict) -> float:
    """max over blocks of |attn · MLP / block − 1|: the identity the split must satisfy."""
    import numpy as np

    from companion.llm.dead_directions.sublayers import SublayerSplit

    s = SublayerSplit.from_record(rec)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.abs(s.attn * s.mlp / s.block - 1)
    return float(np.nanmax(gap)) if gap.size else float("nan")


def split_parts(use: dict) -> tuple[dict, list]:
    """``({carrier: [(model, block)]}, per-model phrases)`` of every declining block."""
    by, parts = {}, []
    for m, r in use.items():
        found = declines(r)
        for d in found:
            by.setdefault(d["carrier"], []).append((m, d["block"]))
        worst = min(found, key=lambda d: d["block_ratio"], default=None)
        said = ", ".join(
            f"{c} {sum(d['carrier'] == c for d in found)} (blocks "
            + " ".join(str(d["block"]) for d in found if d["carrier"] == c) + ")"
            for c in ("mlp", "attention", "both", "unresolved")
            if any(d["carrier"] == c for d in found)
        )  # fmt: skip
        parts.append(
            f"{m}: {len(found)} of {len(r['split_block'])} blocks below 1 − 4 SE"
            + (f" ({said}; worst ×{worst['block_ratio']:.3f} ± {worst['block_se']:.3f} at "
               f"block {worst['block']}: attention ×{worst['attn']:.3f} ± {worst['attn_se']:.3f}, "
               f"MLP ×{worst['mlp']:.3f} ± {worst['mlp_se']:.3f})" if found else "")
            + f"; max |attn·MLP/block − 1| {product_gap(r):.0e}"
        )  # fmt: skip
    return by, parts


def split_source(recs: list, scale: str) -> str:
    cmds = sorted({r.get("command", "") for r in recs})
    folder = "sigma_split" if scale == "cpu" else f"sigma_split_{scale}"
    return f"results/{folder}/sigma_split.jsonl (written by: {'; '.join(cmds)})"
