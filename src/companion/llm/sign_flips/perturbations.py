"""Perturbations applied in place and undone exactly (:func:`perturbed`).

The original values of the touched entries are saved and written back, so no copy of the
model is made and the restored model is bit-identical (its NLL equals the baseline bit for
bit). The kinds (:data:`KINDS`):

* ``"flip"``: w → −w, a pure sign flip;
* ``"scaled_flip"``: the author's Exp D "Frobenius-matched" variant, w → (1 − 2c)w: **not a
  pure flip** when c ≠ 1;
* ``"magnitude"``: the paper's sign-preserving ΔW = δ sign W on every entry, δ chosen per
  matrix so that ‖ΔW‖_F equals the flip's;
* ``"magnitude_local"``: the same on the flipped entries only;
* ``"radial"``: W → (1 + s)W with s = ‖ΔW_flip‖_F/‖W‖_F, a pure rescale of the flip's norm;
* ``"magnitude_radial"``: the radial part a·W of δ sign W (its Frobenius projection on W,
  a = δ Σ|w| / ‖W‖²_F);
* ``"magnitude_transverse"``: the remainder δ sign W − a·W, orthogonal to W (the last three
  decompose the paper's magnitude perturbation; the control of its "radial scale-up" reading).

Each kind is one function of :data:`_LOCAL` (new values of the touched entries) or
:data:`_WHOLE` (a whole-matrix change with its own exact undo); a new kind is one more entry.
"""

from __future__ import annotations

import contextlib

from companion._validate import check_choice, check_real
from companion.llm.sign_flips.masks import FlipSet, as_index, check_flips

__all__ = ["KINDS", "perturbed"]


def _flip(old, scale):
    return -old


def _scaled_flip(old, scale):
    return (old.double() * (1.0 - 2.0 * scale)).to(old.dtype)


def _magnitude_local(old, scale):
    import torch

    o64 = old.double()
    delta = 2.0 * torch.sqrt((o64**2).mean())
    return (o64 + delta * torch.sign(o64)).to(old.dtype)


def _magnitude_all(w, idx, scale):
    """The paper's magnitude perturbation on a whole matrix, with an exact undo.

    ΔW = δ sign(W) on every entry, δ = ‖ΔW_flip‖_F / √(mn) for the flip set ``idx`` (so the
    Frobenius norm equals that flip's, per realisation). Undoing by subtraction is exact
    except where rounding lost low bits; those entries (and only those) are saved first.
    Returns the restore function.
    """
    import torch

    W = w.data
    flat = W.view(-1)
    t = as_index(idx, w)
    delta = float(torch.sqrt(4.0 * (flat[t].double() ** 2).sum() / W.numel()))

    def shift(x, sgn):  # one elementwise recipe both ways
        return (x.float() + sgn * delta * torch.sign(x.float())).to(x.dtype)

    new = shift(W, 1.0)  # (m, n) temporary
    back = shift(new, -1.0)
    bad = torch.nonzero((back != W).view(-1)).squeeze(1)  # entries the subtraction cannot undo
    fix = flat[bad].clone()
    del back
    W.copy_(new)
    del new

    def restore():
        W.copy_(shift(W, -1.0))
        flat[bad] = fix

    return restore


def _whole_exact(W, forward, inverse):
    """Apply ``forward`` to the whole matrix ``W`` with an exact undo: the entries that
    ``inverse(forward(w))`` does not round back to ``w`` are saved first. The restore."""
    import torch

    flat = W.view(-1)
    new = forward(W)  # (m, n) temporary
    bad = torch.nonzero((inverse(new) != W).view(-1)).squeeze(1)
    fix = flat[bad].clone()
    W.copy_(new)
    del new

    def restore():
        W.copy_(inverse(W))
        flat[bad] = fix

    return restore


def _flip_norm_and_delta(W, idx):
    """‖ΔW_flip‖_F of the flip set and δ = that norm / √(mn) (float64)."""
    import torch

    t = as_index(idx, W)
    flipn = 2.0 * float(torch.sqrt((W.view(-1)[t].double() ** 2).sum()))
    return flipn, flipn / float(W.numel()) ** 0.5


def _radial(w, idx, scale):
    """W → (1 + s)W, s = ‖ΔW_flip‖_F / ‖W‖_F: the flip's norm as a pure rescale."""
    import torch

    W = w.data
    flipn, _ = _flip_norm_and_delta(W, idx)
    f = 1.0 + flipn / float(torch.linalg.norm(W.double()))
    return _whole_exact(
        W, lambda x: (x.double() * f).to(x.dtype), lambda y: (y.double() / f).to(y.dtype)
    )


def _magnitude_parts(W, idx):
    """δ and a of the magnitude perturbation δ sign W = a·W + (its transverse remainder)."""

    _, delta = _flip_norm_and_delta(W, idx)
    w64 = W.double()
    a = delta * float(w64.abs().sum()) / float((w64 * w64).sum())
    return delta, a


def _magnitude_radial(w, idx, scale):
    """The radial part of δ sign W: W → (1 + a)W."""
    W = w.data
    _, a = _magnitude_parts(W, idx)
    f = 1.0 + a
    return _whole_exact(
        W, lambda x: (x.double() * f).to(x.dtype), lambda y: (y.double() / f).to(y.dtype)
    )


def _magnitude_transverse(w, idx, scale):
    """The part of δ sign W orthogonal to W: W → (1 − a)W + δ sign W (signs kept, a < 1)."""
    import torch

    W = w.data
    delta, a = _magnitude_parts(W, idx)

    def forward(x):
        x64 = x.double()
        return ((1.0 - a) * x64 + delta * torch.sign(x64)).to(x.dtype)

    def inverse(y):
        y64 = y.double()
        return ((y64 - delta * torch.sign(y64)) / (1.0 - a)).to(y.dtype)

    return _whole_exact(W, forward, inverse)


#: Kinds that change only the entries of the flip set: ``new = f(old, scale)``.
_LOCAL = {"flip": _flip, "scaled_flip": _scaled_flip, "magnitude_local": _magnitude_local}
#: Kinds that change the whole matrix: ``restore = f(weight, indices, scale)``.
_WHOLE = {
    "magnitude": _magnitude_all,
    "radial": _radial,
    "magnitude_radial": _magnitude_radial,
    "magnitude_transverse": _magnitude_transverse,
}
#: Perturbation kinds of :func:`perturbed`.
KINDS = (
    "flip",
    "scaled_flip",
    "magnitude",
    "magnitude_local",
    "radial",
    "magnitude_radial",
    "magnitude_transverse",
)


def _perturb_local(w, idx, fn, scale):
    """Save the touched entries (the only copy made), write their new values; the undo."""
    flat = w.data.view(-1)
    t = as_index(idx, w)
    old = flat[t].clone()  # (k,)
    flat[t] = fn(old, scale)
    return lambda: flat.index_copy_(0, t, old)


def perturbed(layers: dict, flips: FlipSet, *, kind: str = "flip", scale: float = 1.0):
    """Perturb the model in place; restore it exactly on exit.

    For each matrix with entries S in ``flips``:

    * ``kind="flip"``: w → −w on S (a pure sign flip);
    * ``kind="scaled_flip"``: w → w + scale·(−2w) = (1 − 2·scale)w on S, the author's
      Frobenius-rescaled Exp D variant (**not a pure flip** unless ``scale == 1``);
    * ``kind="magnitude"``: the paper's sign-preserving perturbation ΔW = δ sign(W) on **every**
      entry of the matrix, δ = ‖ΔW_flip‖_F/√(mn) (Frobenius-matched to the flip of S, per
      realisation; constant δ, assumption A5). Bussgang-aligned with W;
    * ``kind="magnitude_local"``: w → w + δ sign w on S only, δ = 2·rms(w over S) (same
      entries, same norm, no sign change; *not* Bussgang-aligned with the whole row);
    * ``kind="radial"``, ``"magnitude_radial"``, ``"magnitude_transverse"``: a pure rescale
      of the flip's norm, and the radial and transverse parts of ``"magnitude"`` (module
      docstring), each on the whole matrix.

    The original values of the touched entries are saved (memory ∝ their number; for
    ``"magnitude"`` only the entries whose subtraction would not round back) and written back
    in ``finally``, so the model is restored bit for bit even after an error. No copy of the
    model is made. The arguments are checked when it is called (before ``with``).
    """
    check_flips(layers, flips)
    check_choice(kind, "kind", KINDS)
    scale = check_real(scale, "scale", low=0.0, low_open=True)
    return _perturbed(layers, flips, kind, scale)


@contextlib.contextmanager
def _perturbed(layers: dict, flips: FlipSet, kind: str, scale: float):
    import torch

    restores = []
    try:
        with torch.no_grad():
            for name, idx in flips.indices.items():
                if len(idx) == 0:
                    continue
                w = layers[name].weight
                if not w.is_contiguous():
                    raise ValueError(
                        f"`{name}.weight` must be contiguous to flip in place; "
                        f"got strides {w.stride()}"
                    )
                if kind in _WHOLE:
                    restores.append(_WHOLE[kind](w, idx, scale))
                else:
                    restores.append(_perturb_local(w, idx, _LOCAL[kind], scale))
        yield
    finally:
        with torch.no_grad():
            for restore in reversed(restores):
                restore()
