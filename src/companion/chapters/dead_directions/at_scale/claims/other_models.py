"""Beyond the registry's small checkpoints (``shirodkar.sigma_min_whisper``,
``shirodkar.sigma_min_split``, ``shirodkar.sigma_min_paper``, ``shirodkar.classifier_whisper``,
``shirodkar.pythia_trajectory``, ``shirodkar.trained_vision``, ``shirodkar.classifier_paper``):
the encoders and decoders of Whisper-base and Whisper tiny.en, and the paper's checkpoints that
need the hub or a GPU."""

from __future__ import annotations

from companion.chapters.dead_directions.at_scale import CHAPTER
from companion.chapters.dead_directions.at_scale.claims._common import (
    COMMON,
    records_source,
    whisper_claim_records,
)
from companion.chapters.dead_directions.at_scale.records import (
    WHISPER,
    min_step,
    verdict,
)
from companion.claims import Claim, Measurement, NotRun


def _not_here(needs: str, command: str):
    raise NotRun(needs, needs=needs, command=command)


def _sigma_min_split(scale: str = "cpu", full: bool = False) -> Measurement:
    from companion.chapters.dead_directions.at_scale.split import (
        split_claim_records,
        split_parts,
        split_source,
    )

    use, _, on = split_claim_records(scale, full)
    by, parts = split_parts(use)
    n = sum(len(v) for v in by.values())
    mlp = len(by.get("mlp", []))
    other = {c: v for c, v in by.items() if c != "mlp"}
    where = "; ".join(
        f"{c}: " + ", ".join(f"{m} block {b}" for m, b in v) for c, v in other.items()
    )
    return Measurement(
        value=f"{mlp}/{n} declines in the MLP",
        agrees=n > 0 and not other,
        unresolved=n == 0,
        detail="uncentred float64 σ_min of the pre-norm stream before each block, after its "
        "attention's residual add and after its MLP's, position 0 excluded; SE by a "
        "delete-one-fold jackknife over 4 folds of the sequences. " + "; ".join(parts),
        reason="" if n and not other else (
            "no block declines below 1 − 4 SE: nothing to localise" if not n else
            f"{n - mlp} of {n} declining blocks are not carried by the MLP alone ({where})"
        ),
        source=split_source(list(use.values()), scale),
        measured_on=on,
    )  # fmt: skip


def _sigma_min_split_control(scale: str = "cpu", full: bool = False) -> Measurement:
    from companion.chapters.dead_directions.at_scale.split import (
        CONTROL_MODEL,
        declines,
        split_claim_records,
    )

    _, ctl, on = split_claim_records(scale, full)
    said = {}
    for cancel, r in ctl.items():
        sub, _, block = cancel.partition(":")
        at = [d for d in declines(r) if d["block"] == int(block)]
        said[cancel] = (sub, at[0]["carrier"] if at else "no decline", at[0] if at else None)
    right = all(want == got for want, got, _ in said.values())
    text = "; ".join(
        f"{CONTROL_MODEL} with block {c.partition(':')[2]}'s {w} cancelling: found in {g}"
        + (f" (block ×{d['block_ratio']:.3g}, attention ×{d['attn']:.3g} ± {d['attn_se']:.2g}, "
           f"MLP ×{d['mlp']:.3g} ± {d['mlp_se']:.2g})" if d else "")
        for c, (w, g, d) in said.items()
    )  # fmt: skip
    return Measurement(
        value="; ".join(f"{c} → {g}" for c, (_, g, _) in said.items()),
        agrees=not right,
        detail=text,
        reason=""
        if not right
        else "the rule finds each cancelled sublayer where it is, so "
        "the decline it plants in the attention is not called an MLP decline: " + text,
        measured_on=on,
    )


def _sigma_min_paper(scale: str = "cpu", full: bool = False) -> Measurement:
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


def _sigma_min_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = whisper_claim_records(scale, full)
    worst = {r["model"]: min_step(r) for r in use.values()}
    down = [m for m, (_, s, se) in worst.items() if not s >= 1 - 4 * se]
    return Measurement(
        value=f"{len(worst) - len(down)}/{len(worst)}",
        agrees=not down,
        detail="smallest block-to-block step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) of the pre-norm stream "
        "(uncentred, float64, position 0 excluded; jackknife SE over 4 folds of the clips): "
        + ", ".join(f"{m} {s:.3f} ± {se:.3f} at block {b}" for m, (b, s, se) in worst.items()),
        reason="" if not down else f"a step below 1 − 4 SE in {', '.join(down)}",
        source=records_source(list(use.values()), scale),
        measured_on=on,
    )


def _sigma_min_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = whisper_claim_records(scale, full, kinds=("random-full",))
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
    use, on = whisper_claim_records(scale, full, kinds=("trained", "random-full", "random"))
    said = {k: verdict(r) for k, r in use.items()}
    wrong = [k for k in use if said[k] != "layernorm"]
    return Measurement(
        value=f"{len(use) - len(wrong)}/{len(use)}",
        agrees=not wrong,
        detail="verdict from the final LayerNorm's γ plus one forward pass (ρ against the float32 "
        "rounding floor, recomputed from the records' statistics) on "
        + ", ".join(f"{k}: {said[k]} (ρ {r['diag_rayleigh']:.1e})" for k, r in use.items()),
        reason="" if not wrong else "misclassified: " + ", ".join(wrong),
        source=records_source(list(use.values()), scale),
        measured_on=on,
    )


def _classifier_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = whisper_claim_records(scale, full, kinds=("trained", "random-full", "random"))
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


#: These claims, in the order the chapter shows them.
CLAIMS = (
    Claim(
        id="shirodkar.sigma_min_whisper",
        evidence="model",
        control=_sigma_min_whisper_control,
        control_method="the same test on the random-init twins of every stack (same "
        "architecture, same speech): a decline in any shows that the test can fail",
        models=WHISPER,
        statement="On trained pre-LN LayerNorm stacks (the decoders and encoders of Whisper-base "
        "and Whisper tiny.en), the smallest singular value of the pre-norm residual stream "
        "does not decrease from one block to the next.",
        paper_value="σ_min preserved block to block on 13/14 models",
        provenance=("abstract",),
        method="uncentred float64 XᵀX of the embedding output and of every block's output, "
        "position 0 excluded, on 2,100 (base) and 2,058 (tiny.en) decoder positions and 12,000 "
        "encoder frames of espeak-ng speech; SE of each step by a delete-one-fold jackknife "
        "over 4 folds of the clips",
        tolerance="every step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) ≥ 1 − 4 SE on all four stacks",
        measure=_sigma_min_whisper,
        **COMMON,
    ),
    Claim(
        id="shirodkar.sigma_min_split",
        statement="On the trained checkpoints available offline whose blocks are pre-norm "
        "(SmolLM2-135M-Instruct, Gemma-3-270M, the decoders and encoders of Whisper-base and "
        "tiny.en; MiniLM is "
        "post-LN and has no pre-norm stream to split), every block whose pre-norm σ_min "
        "declines is declining in its MLP sublayer, as the paper localises Gemma 4-31B's "
        "decline to the MLP.",
        paper_value="Gemma 4-31B's σ_min decline localised to the MLP sublayer (seed summary "
        "only; the paper's 14 checkpoints are not offline)",
        provenance=("seed-only",),
        method="σ_min of the uncentred pre-norm stream before each block, after its "
        "attention's residual add and after its MLP's (position 0 excluded, the σ_min records' "
        "tokens); per block the ratios attention σ(A)/σ(X_in) and MLP σ(X_out)/σ(A), which "
        "multiply to the block's, each with a delete-one-fold jackknife SE over 4 folds",
        tolerance="every block with a ratio below 1 − 4 SE has its MLP ratio below 1 − 4 SE and "
        "its attention ratio not; unresolved when no block declines",
        measure=_sigma_min_split,
        control=_sigma_min_split_control,
        control_method="the same rule on SmolLM2 with block 10's attention (then its MLP) "
        "replaced by a map removing 99% of the stream along its smallest singular direction: "
        "the attention decline must not be called an MLP one, and the MLP decline must be",
        models=("smollm2-135m", "gemma3-270m", *WHISPER),
        evidence="model",
        **COMMON,
    ),
    Claim(
        id="shirodkar.sigma_min_paper",
        statement="σ_min is preserved block to block on 13 of the paper's 14 models; Gemma 4-31B "
        "declines (about 18×, under multimodal calibration).",
        paper_value="13/14 (abstract); Gemma 4-31B ~18× (seed summary only)",
        provenance=("abstract", "seed-only"),
        method="the σ_min profile of each of the paper's 14 checkpoints",
        tolerance="13 preserved, Gemma 4-31B declining",
        measure=_sigma_min_paper,
        needs="the paper's 14 checkpoints (hub) and a GPU with about 64 GB for Gemma 4-31B",
        command="companion run dead-directions --model <each of the 14> --init trained "
        "--scale full",
        control_none="not run here, so there is nothing to control yet; the planned control "
        "is the block-to-block test on a residual stream with a cancelling branch added",
        models=("gemma4-31b",),
        evidence="model",
        **COMMON,
    ),
    Claim(
        id="shirodkar.classifier_whisper",
        evidence="model",
        control=_classifier_whisper_control,
        control_method="the classifier on the same activations through an RMSNorm of the same "
        "γ (the norm swapped): it must say rmsnorm",
        models=WHISPER,
        statement="The γ⁻¹ kernel's exactness, from γ plus one forward pass, classifies the "
        "final LayerNorms of Whisper-base's and Whisper tiny.en's decoder and encoder as "
        "LayerNorm, trained and at random init.",
        paper_value="correct on all 14 models",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (ρ against the float32 rounding floor) on the trained stacks and "
        "their random-init twins at full depth (6 blocks for base, 4 for tiny.en) and 2 blocks",
        tolerance="every verdict layernorm",
        measure=_classifier_whisper,
        **COMMON,
        depends_on=(
            "companion.theory.null_classifier.norm_verdict",
            "companion.theory.null_classifier.dead_share",
            "companion.theory.null_classifier.precision_floor",
        ),
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
        **COMMON,
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
        **COMMON,
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
