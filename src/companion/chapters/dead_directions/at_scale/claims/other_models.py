"""Beyond the registry's small checkpoints (``shirodkar.sigma_min_whisper``,
``shirodkar.sigma_min_split``, ``shirodkar.classifier_whisper``,
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
