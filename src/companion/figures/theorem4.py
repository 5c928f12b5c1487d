"""Theorem 4 widget: geometry of the quantisation error, sign×absmean vs BitNet ternary."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS
from companion.theory.perturbations import gaussian_weights, sphere_inputs
from companion.theory.quantization import (
    QUANTIZERS,
    quantization_cos2_limit,
    quantization_error_geometry,
    quantization_radial_post,
    quantization_radial_pre,
)

__all__ = ["WIDTHS", "draw"]

#: Widths of the kernel-free frame player.
WIDTHS = (16, 32, 64, 128, 256, 512, 1024)
_LABELS = {"sign_absmean": "sign × absmean (Theorem 4)", "ternary": "BitNet b1.58 ternary (zeros)"}


@lru_cache(maxsize=32)
def _geometry(quantizer, n, seed):
    W = gaussian_weights(n, n, rng=seed)
    return W, quantization_error_geometry(W, quantizer, samples=400, rng=seed + 1)


def draw(fig, quantizer: str = "sign_absmean", n: int = 256, seed: int = 0):
    """Left: z = Wx against z_q = W_q x for one input. Right: measured constants vs Theorem 4's."""
    W, geo = _geometry(quantizer, int(n), int(seed))
    Q = QUANTIZERS[quantizer](W)
    x = sphere_inputs(1, W.shape[1], rng=seed + 2)[0]  # (n,)
    z, zq = W @ x, Q @ x
    ax1, ax2 = fig.subplots(1, 2)
    ax1.scatter(z, zq, s=6, color=COLORS["sim"], alpha=0.6)
    lim = float(np.max(np.abs(z))) * 1.1
    t = np.array([-lim, lim])
    ax1.plot(t, t, color=COLORS["grey"], lw=1, label="z_q = z")
    slope = float(z @ zq / (z @ z))
    ax1.plot(t, slope * t, color=COLORS["theory"], lw=2, label=f"regression slope {slope:.3f}")
    ax1.set(xlabel="z = W x", ylabel="z_q = W_q x", title=_LABELS[quantizer])
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    names = ["row cos²", "vector cos²", "error R\npre-ReLU", "error R\npost-ReLU"]
    ests = [geo.row_cos2, geo.vector_cos2, geo.radial_pre, geo.radial_post]
    theory = [
        quantization_cos2_limit(),
        quantization_cos2_limit(),
        quantization_radial_pre(),
        quantization_radial_post(),
    ]
    xs = np.arange(4)
    ax2.bar(xs - 0.2, theory, width=0.4, color=COLORS["theory"], label="Theorem 4 (n → ∞)")
    ax2.bar(
        xs + 0.2,
        [e.value for e in ests],
        width=0.4,
        yerr=[2 * e.stderr for e in ests],
        color=COLORS["sim"],
        capsize=3,
        label=f"measured, n = {n} (± 2 SE)",
    )
    ax2.set_xticks(xs, names, fontsize=8)
    ax2.set(
        ylim=(0, 1),
        title=f"sign-preserving: {geo.sign_preserving}; zeros: {100 * geo.zero_fraction:.0f}%",
    )
    ax2.legend(fontsize=7, loc="upper right")
    ax2.grid(alpha=0.3, axis="y")
