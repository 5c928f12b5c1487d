"""Moments → :class:`Diagnosis` (:func:`read_out`), the record it writes and reads back, and
:func:`diagnose` (:func:`~companion.llm.dead_directions.moments.accumulate` then
:func:`read_out`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from companion._validate import check_instance
from companion.llm.dead_directions.moments import Moments, accumulate
from companion.llm.dead_directions.reads import KernelRead, SchurRead, SigmaProfile
from companion.llm.norms import FinalNorm, find_final_norm

__all__ = ["Diagnosis", "read_out", "diagnose", "SHUFFLES"]

#: Shuffled-γ control draws.
SHUFFLES = 3


@dataclass
class Diagnosis:
    """What :func:`read_out` measures (see the module docs). Arrays are float64.

    ``forward`` reads the norm's output as the forward pass computed it (in ``dtype``);
    ``fp64`` the norm recomputed in float64 from its input (None if not recomputed);
    ``controls`` holds the reads that must fail: ``"shuffled_gamma"`` (a list, one per
    permutation of γ, on the float64 covariance) and ``"norm_swap"`` (the other norm
    kind on the same input, same γ). ``verdict``, ``cos`` … are the forward read's.
    """

    norm_name: str
    norm_kind: str
    post_ln: bool
    d: int
    n_tokens: int
    dtype: str
    device: str
    vstar: np.ndarray = field(repr=False)
    gamma_stats: dict
    forward: KernelRead
    fp64: KernelRead | None
    schur: SchurRead
    profile: SigmaProfile
    null_q999: float
    null_mean: float
    controls: dict = field(default_factory=dict, repr=False)
    timings: dict = field(default_factory=dict)

    verdict = property(lambda self: self.forward.verdict)
    classifier_reason = property(lambda self: self.forward.reason)
    cos = property(lambda self: self.forward.cos)
    rayleigh = property(lambda self: self.forward.rayleigh)
    diag_rayleigh = property(lambda self: self.forward.diag_rayleigh)
    spectrum = property(lambda self: self.forward.spectrum)
    bottom = property(lambda self: self.forward.bottom)
    sigma_min = property(lambda self: self.profile.sigma_min)
    sigma_min_no_pos0 = property(lambda self: self.profile.sigma_min_no_pos0)
    sigma_ratio = property(lambda self: self.profile.ratio)
    sigma_ratio_no_pos0 = property(lambda self: self.profile.ratio_no_pos0)
    profile_degenerate = property(lambda self: self.profile.degenerate)

    def to_record(self) -> dict:
        """The flat, JSON-able record of the results files (the keys of every earlier
        record, plus the controls, ρ of the float64 read and the step SEs)."""
        p, s = self.profile, self.schur
        return {
            **{k: getattr(self, k) for k in ("norm_name", "norm_kind", "post_ln", "d")},
            **{k: getattr(self, k) for k in ("n_tokens", "dtype", "device")},
            "vstar": self.vstar.tolist(),
            **self.forward.fields(),
            **(self.fp64.fields("_fp64", arrays=False) if self.fp64 is not None else {}),
            "null_q999": self.null_q999,
            "null_mean": self.null_mean,
            "schur_ratio": s.ratio,
            "schur_mp_baseline": s.mp_baseline,
            "schur_random": s.random.tolist(),
            "sigma_min": p.sigma_min.tolist(),
            "sigma_min_no_pos0": p.sigma_min_no_pos0.tolist(),
            "sigma_ratio": p.ratio.tolist(),
            "sigma_ratio_no_pos0": p.ratio_no_pos0.tolist(),
            "sigma_step_no_pos0": p.steps.tolist(),
            "sigma_step_se_no_pos0": p.step_se.tolist(),
            "profile_tokens": p.tokens,
            "profile_degenerate": p.degenerate,
            "profile_folds": p.folds,
            "gamma_stats": self.gamma_stats,
            "controls": _controls_record(self.controls),
            "timings": self.timings,
        }

    @classmethod
    def from_record(cls, rec: dict) -> Diagnosis:
        """A :class:`Diagnosis` from a stored record (any version: keys an older record
        lacks read as NaN or empty)."""
        arr = lambda k: np.asarray(rec.get(k) or [], dtype=float)  # noqa: E731
        profile = SigmaProfile(
            sigma_min=arr("sigma_min"),
            sigma_min_no_pos0=arr("sigma_min_no_pos0"),
            step_se=arr("sigma_step_se_no_pos0"),
            tokens=rec.get("profile_tokens", 0),
            degenerate=rec.get("profile_degenerate", False),
            folds=rec.get("profile_folds", 1),
        )
        nan = float("nan")
        return cls(
            **{k: rec[k] for k in ("norm_name", "norm_kind", "post_ln", "d", "n_tokens")},
            dtype=rec["dtype"],
            device=rec.get("device", ""),
            vstar=arr("vstar"),
            gamma_stats=dict(rec.get("gamma_stats", {})),
            forward=KernelRead.from_record(rec),
            fp64=KernelRead.from_record(rec, "_fp64"),
            schur=SchurRead(
                rec.get("schur_ratio", nan), rec.get("schur_mp_baseline", nan), arr("schur_random")
            ),
            profile=profile,
            null_q999=rec.get("null_q999", nan),
            null_mean=rec.get("null_mean", nan),
            controls=_controls_from_record(rec.get("controls") or {}),
            timings=dict(rec.get("timings", {})),
        )


def _controls_record(controls: dict) -> dict:
    out = {}
    for name, reads in controls.items():
        many = isinstance(reads, list)
        rows = [r.fields(arrays=False) for r in (reads if many else [reads])]
        out[name] = rows if many else rows[0]
    return out


def _controls_from_record(stored: dict) -> dict:
    out = {}
    for name, rows in stored.items():
        many = isinstance(rows, list)
        reads = [KernelRead.from_record(r) for r in (rows if many else [rows])]
        out[name] = reads if many else reads[0]
    return out


def _gamma_stats(fn) -> dict:
    g, a = fn.gamma, np.abs(fn.gamma)
    return {
        "mean": float(g.mean()),
        "std": float(g.std()),
        "min": float(g.min()),
        "max": float(g.max()),
        "abs_min": float(a.min()),
        "abs_max": float(a.max()),
        "n_negative": int(np.sum(g < 0)),
        "offset": fn.offset,
    }


def _shuffled(fn, acc, dtype: str) -> list:
    """v* of γ permuted (seeds 0 … SHUFFLES−1) read on ``acc``: must not be a kernel.
    Empty when γ is constant (random init: a permutation changes nothing)."""
    from companion.theory.ln_kernel import inverse_scale_direction

    if np.ptp(fn.gamma) == 0:
        return []
    reads = []
    for seed in range(SHUFFLES):
        g = np.random.default_rng(seed).permutation(fn.gamma)
        reads.append(KernelRead.of(g, acc, dtype=dtype, vstar=inverse_scale_direction(g)))
    return reads


def read_out(moments: Moments, final_norm) -> Diagnosis:
    """:class:`Moments` and the final norm's parameters → :class:`Diagnosis`.

    Raises
    ------
    ValueError
        When the moments hold N ≤ d tokens (the bottom direction is not unique).
    """
    from companion.theory.null_classifier import random_direction_null

    m = check_instance(moments, "moments", Moments)
    fn = check_instance(final_norm, "final_norm", FinalNorm)
    n, d = m.out.n, fn.d
    if n <= d:
        raise ValueError(
            f"`batches` must provide more than d = {d} tokens for a unique bottom "
            f"direction (the centred rank is at most N - 1); got {n}"
        )
    t0 = time.perf_counter()
    forward = KernelRead.of(fn.gamma, m.out, dtype=m.dtype, vstar=fn.vstar)
    t_eig = time.perf_counter() - t0
    fp64 = None
    if m.fp64 is not None:
        fp64 = KernelRead.of(fn.gamma, m.fp64, dtype="float64", vstar=fn.vstar)
    best = (m.fp64, "float64") if m.fp64 is not None else (m.out, m.dtype)  # least rounded
    controls = {}
    if shuffled := _shuffled(fn, *best):
        controls["shuffled_gamma"] = shuffled
    if m.swap is not None:
        controls["norm_swap"] = KernelRead.of(fn.gamma, m.swap, dtype="float64", vstar=fn.vstar)
    null = random_direction_null(d)
    return Diagnosis(
        norm_name=fn.name,
        norm_kind=fn.kind,
        post_ln=fn.post_ln,
        d=d,
        n_tokens=n,
        dtype=m.dtype,
        device=m.device,
        vstar=fn.vstar,
        gamma_stats=_gamma_stats(fn),
        forward=forward,
        fp64=fp64,
        schur=SchurRead.of(m.pre, fn.vstar),
        profile=SigmaProfile.of(m.blocks, tokens=m.profile_tokens, degenerate=bool(fn.post_ln)),
        null_q999=null.q999,
        null_mean=null.mean,
        controls=controls,
        timings={**m.timings, "eigensolve_s": t_eig},
    )


def diagnose(
    model,
    batches,
    *,
    final_norm=None,
    profile: bool = True,
    profile_tokens: int | None = None,
    recompute_fp64: bool = True,
    show_progress: bool = False,
    total: int | None = None,
) -> Diagnosis:
    """The dead-direction diagnostic of ``model`` over ``batches``: :func:`accumulate`
    then :func:`read_out` (see the module docs).

    Parameters
    ----------
    model : transformers model (or any torch module with a recognisable final norm)
        Run through its ``base_model`` (heads are not needed); Whisper's stacks
        (:mod:`companion.llm.whisper`) as they are.
    batches : iterable
        LongTensors of input ids ``(batch, seq)`` or dicts of model inputs (e.g.
        ``{"pixel_values": ...}`` or Whisper's ``{"input_features", "input_ids"}``).
        Every token position is one sample.
    final_norm : FinalNorm, optional
        From :func:`companion.llm.norms.find_final_norm` (found here if omitted, probing
        with the model's ``example_input()`` when it has one).
    profile : bool
        Also accumulate the pre-norm σ_min profile (``output_hidden_states``).
    profile_tokens : int, optional
        Stop adding rows to the profile after this many tokens.
    recompute_fp64 : bool
        Also accumulate the norm recomputed in float64 from its captured input.

    Raises
    ------
    ValueError
        N ≤ d tokens; token ids outside the vocabulary; non-finite activations.
    """
    t0 = time.perf_counter()
    if final_norm is None:
        fn = find_final_norm(model)
    else:
        fn = check_instance(final_norm, "final_norm", FinalNorm)
    t_find = time.perf_counter() - t0
    moments = accumulate(
        model,
        batches,
        fn,
        profile=profile,
        profile_tokens=profile_tokens,
        recompute_fp64=recompute_fp64,
        show_progress=show_progress,
        total=total,
    )
    t0 = time.perf_counter()
    _ = fn.vstar  # the γ-read: parameters only, timed on its own
    moments.timings.update(find_norm_s=t_find, gamma_read_s=time.perf_counter() - t0)
    return read_out(moments, fn)
