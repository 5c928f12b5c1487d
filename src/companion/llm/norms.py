"""Find a model's final normalisation layer and its *effective* scale γ, from the model itself.

:func:`find_final_norm` runs one tiny probe forward pass with a hook on every module that
looks like a normalisation layer and picks the one whose output **is** the trunk's output
(``last_hidden_state``), or, when the model has no such output, the input of its output
head (the last ``nn.Linear`` called). It therefore works for architectures the registry
does not know; for OPT it finds ``decoder.final_layer_norm`` and not the per-layer
``final_layer_norm`` (the pre-FFN norms); for post-LN BERT it finds the last block's
output LayerNorm and flags ``post_ln``.

:func:`norm_form` reads a norm module's type and effective γ: ``nn.LayerNorm`` directly;
any other module by probing it with ±x (odd part → γ, even part → β), and deciding
between the LayerNorm form γ ⊙ (x − mean)/s + β and the RMS form γ ⊙ x/s by least
squares. If the module stores a ``weight`` equal to γ or to γ − 1 (the Gemma convention
``(1 + w)``), the exact stored value (+1) is returned, so the "γ-read" is a parameter read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "FinalNorm",
    "find_final_norm",
    "norm_form",
    "norm_candidates",
    "recompute_norm",
    "NormNotFound",
]


class NormNotFound(ValueError):
    """No module of the model can be identified as its final normalisation layer."""


@dataclass
class FinalNorm:
    """The final norm of a model.

    Attributes
    ----------
    name : str
        Module name inside the model passed to :func:`find_final_norm`.
    module : torch.nn.Module
    kind : {"layernorm", "rmsnorm"}
    gamma : ndarray (d,)
        Effective scale, float64 (Gemma: ``1 + weight``).
    beta : ndarray (d,) or None
    eps : float
    offset : float
        1.0 when the stored weight is ``gamma - 1`` (Gemma family), else 0.0.
    post_ln : bool
        True when the norm sits inside the last repeated block (post-LN encoder).
    how : str
        How it was found (for the record).
    """

    name: str
    module: object = field(repr=False)
    kind: str
    gamma: np.ndarray = field(repr=False)
    beta: np.ndarray | None = field(repr=False)
    eps: float
    offset: float
    post_ln: bool
    how: str = ""

    @property
    def d(self) -> int:
        return int(self.gamma.shape[0])

    @property
    def vstar(self) -> np.ndarray:
        """The γ-read v* = γ⁻¹/‖γ⁻¹‖ (float64; signed reciprocals)."""
        from companion.theory.ln_kernel import inverse_scale_direction

        return inverse_scale_direction(self.gamma)


def _is_norm_like(mod) -> bool:
    import torch

    if isinstance(mod, (torch.nn.LayerNorm, getattr(torch.nn, "RMSNorm", torch.nn.LayerNorm))):
        return True
    name = type(mod).__name__.lower()
    return "norm" in name and "batchnorm" not in name and "groupnorm" not in name


def norm_candidates(model) -> dict:
    """Every module of ``model`` that looks like a normalisation layer (name → module)."""
    from companion.llm._checks import check_module

    named = check_module(model, parameters=False).named_modules()
    return {n: m for n, m in named if n and _is_norm_like(m)}


def _width(mod) -> int | None:
    w = getattr(mod, "weight", None)
    if w is not None and getattr(w, "ndim", 0) == 1:
        return int(w.shape[0])
    shape = getattr(mod, "normalized_shape", None)
    if shape:
        return int(shape[-1])
    return None


def norm_form(module, d: int | None = None, *, seed: int = 0):
    """``(kind, gamma, beta, offset)`` of a normalisation module (see module docs).

    Raises
    ------
    NormNotFound
        When the module's input-output map is neither of the LayerNorm nor of the RMS form.
    """
    import torch

    from companion._validate import check_int
    from companion.llm._checks import check_module, check_optional_int

    check_module(module, "module", parameters=False)
    d = check_optional_int(d, "d", low=1) or _width(module)
    seed = check_int(seed, "seed", low=0)
    if d is None:
        raise NormNotFound(
            f"`module` must have a 1-D weight or a normalized_shape; got {type(module).__name__}"
        )
    if isinstance(module, torch.nn.LayerNorm):
        g = (
            module.weight.detach().double().cpu().numpy()
            if module.weight is not None
            else np.ones(d)
        )
        b = (
            module.bias.detach().double().cpu().numpy()
            if getattr(module, "bias", None) is not None
            else None
        )
        return "layernorm", g, b, 0.0
    p = next(module.parameters(), None)
    dev = p.device if p is not None else torch.device("cpu")
    dt = p.dtype if p is not None else torch.float32
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(16, d, generator=gen, dtype=torch.float64) * 10 + 3.0  # (16, d); var ≫ eps
    with torch.no_grad():
        y1 = module(x.to(device=dev, dtype=dt)).double().cpu()
        y2 = module((-x).to(device=dev, dtype=dt)).double().cpu()
    odd, even = (y1 - y2) / 2, (y1 + y2) / 2  # (16, d)
    fits = {}
    for kind in ("layernorm", "rmsnorm"):
        z = x - x.mean(1, keepdim=True) if kind == "layernorm" else x
        z = z / z.pow(2).mean(1, keepdim=True).sqrt()  # (16, d)
        g = (odd * z).sum(0) / (z * z).sum(0)  # (d,) least squares
        fits[kind] = (float((odd - g * z).norm() / odd.norm().clamp_min(1e-300)), g)
    kind = min(fits, key=lambda k: fits[k][0])
    resid, g = fits[kind]
    tol = 1e-4 if dt == torch.float64 else (1e-2 if dt in (torch.float16, torch.bfloat16) else 1e-3)
    if not resid < tol:
        raise NormNotFound(
            f"module {type(module).__name__} is neither of LayerNorm nor of RMSNorm "
            f"form (relative fit residuals: layernorm {fits['layernorm'][0]:.2g}, "
            f"rmsnorm {fits['rmsnorm'][0]:.2g})"
        )
    gamma = g.numpy()
    beta = even.mean(0).numpy()
    beta = beta if np.max(np.abs(beta)) > tol * max(1.0, float(np.max(np.abs(gamma)))) else None
    w = getattr(module, "weight", None)
    offset = 0.0
    if w is not None and getattr(w, "ndim", 0) == 1 and w.shape[0] == d:
        wv = w.detach().double().cpu().numpy()
        scale = np.maximum(1.0, np.abs(gamma))  # (d,) per-entry scale
        errs = {off: float(np.max(np.abs(wv + off - gamma) / scale)) for off in (0.0, 1.0)}
        off = min(errs, key=errs.get)
        if errs[off] <= 10 * tol:
            gamma, offset = wv + off, off  # the exact stored value: a parameter read
    return kind, gamma, beta, offset


def _eps(module) -> float:
    for attr in ("eps", "variance_epsilon", "epsilon"):
        v = getattr(module, attr, None)
        if isinstance(v, (int, float)):
            return float(v)
    return 0.0


def _probe_inputs(model, base, example_input=None):
    """The probe pass's inputs: ``example_input``, else the model's own
    ``example_input()`` (Whisper's stacks), else one random image, 30 s of random log-mel
    features (``main_input_name == "input_features"``) or 8 token ids."""
    import torch

    if example_input is not None:
        return example_input
    for m in (model, base):
        if callable(getattr(m, "example_input", None)):
            return m.example_input()
    p = next(base.parameters())
    name = getattr(base, "main_input_name", "input_ids")
    cfg = getattr(base, "config", None)
    gen = torch.Generator().manual_seed(0)
    if name == "pixel_values":
        size = getattr(cfg, "image_size", 224)
        size = size if isinstance(size, int) else 224
        chans = getattr(cfg, "num_channels", 3)
        x = torch.randn(1, chans, size, size, generator=gen)
        return {"pixel_values": x.to(p.device, p.dtype)}
    if name == "input_features":
        shape = (
            1,
            getattr(cfg, "num_mel_bins", 80),
            2 * getattr(cfg, "max_source_positions", 1500),
        )
        return {"input_features": torch.randn(*shape, generator=gen).to(p.device, p.dtype)}
    vocab = getattr(cfg, "vocab_size", 100) or 100
    ids = (torch.arange(3, 11) * 7919) % vocab  # (8,)
    return {"input_ids": ids.view(1, -1).to(p.device)}


def _probe(model, cands, example_input):
    """Run the probe pass with hooks on every norm-like module and every Linear →
    ``(norm outputs in call order, the tensor the final norm must produce, how)``."""
    import torch

    from companion.llm.capture import hooks

    base = getattr(model, "base_model", model)
    calls: list = []
    linear_in: list = []

    def on_norm(name, m, inputs, output):
        t = output[0] if isinstance(output, tuple) else output
        calls.append((name, t.detach()))

    def on_linear(name, m, inputs, output):
        linear_in.append((name, inputs[0].detach(), output.detach()))

    linears = {n: m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    inputs = _probe_inputs(model, base, example_input)
    with torch.no_grad(), hooks(cands, on_norm), hooks(linears, on_linear):
        out = base(**inputs) if isinstance(inputs, dict) else base(inputs)
    lhs = getattr(out, "last_hidden_state", None) if not torch.is_tensor(out) else None
    if lhs is not None:
        return calls, lhs, "its output is the trunk's last_hidden_state"
    if not linear_in:
        return calls, None, ""
    logits = out if torch.is_tensor(out) else getattr(out, "logits", None)
    heads = [
        t
        for t in linear_in
        if logits is not None and t[2].shape == logits.shape and torch.equal(t[2], logits)
    ]
    head = heads[-1] if heads else linear_in[-1]
    return calls, head[1], f"its output feeds the output head {head[0]!r}"


def _check_probe_finite(calls, target) -> None:
    import torch

    bad = [n for n, t in calls if not bool(torch.isfinite(t).all())]
    if bad or (target is not None and not bool(torch.isfinite(target).all())):
        where = f"first in {bad[0]!r}" if bad else "in its output"
        raise ValueError(
            f"`model` must produce finite activations; the probe pass gave non-finite values "
            f"({where}: a NaN or infinite weight?)"
        )


def _check_example_input(example_input) -> None:
    import torch

    if not (example_input is None or isinstance(example_input, (dict, torch.Tensor))):
        raise TypeError(
            f"`example_input` must be a dict of model inputs, a tensor or None; "
            f"got {type(example_input).__name__}"
        )


def find_final_norm(model, *, example_input=None) -> FinalNorm:
    """The final normalisation layer of ``model`` and its effective γ (see module docs).

    ``example_input``: a dict of model inputs for the probe pass (default: the model's
    ``example_input()`` if it has one, else 8 token ids, one random image for vision
    models or random log-mel features for speech encoders). Heads are skipped: the probe
    runs the model's ``base_model`` when it has one, and names are relative to ``model``.

    Raises
    ------
    NormNotFound
        Listing the norm-like modules found (or saying there are none).
    ValueError
        When the probe pass's activations are not finite, or the norm's γ is not.
    """
    _check_example_input(example_input)
    cands = norm_candidates(model)
    if not cands:
        mods = sorted({type(m).__name__ for m in model.modules()})
        raise NormNotFound(
            f"`model` must contain a normalisation layer; found none among its "
            f"module types: {', '.join(mods[:20])}"
        )
    calls, target, how = _probe(model, cands, example_input)
    _check_probe_finite(calls, target)
    name = next((n for n, t in reversed(calls) if target is not None and _same(t, target)), None)
    if name is None:
        listing = ", ".join(f"{n} ({type(m).__name__})" for n, m in cands.items())
        raise NormNotFound(
            f"`model` must have a final normalisation layer whose output is the "
            f"trunk's output or feeds the output head; none of the norm-like "
            f"modules found does: {listing}"
        )
    mod = cands[name]
    kind, gamma, beta, offset = norm_form(mod)
    bad = int(np.size(gamma) - np.count_nonzero(np.isfinite(gamma)))
    if bad:
        raise ValueError(
            f"`model` must have a finite final-norm scale; {name!r} has {bad} non-finite "
            f"entries in γ"
        )
    # inside a repeated block (a ModuleList entry) → a post-LN block output, not a separate
    # final norm
    base = getattr(model, "base_model", model)
    prefix = next((n for n, m in model.named_modules() if m is base), "")
    rel = name[len(prefix) + 1 :] if prefix and name.startswith(prefix + ".") else name
    return FinalNorm(
        name=name,
        module=mod,
        kind=kind,
        gamma=gamma,
        beta=beta,
        eps=_eps(mod),
        offset=offset,
        post_ln=any(p.isdigit() for p in rel.split(".")),
        how=how,
    )


def _same(t, target) -> bool:
    import torch

    return t.shape == target.shape and torch.equal(t, target)


def recompute_norm(x, fn: FinalNorm, *, kind: str | None = None):
    """The final norm recomputed in float64 from its captured input ``x`` (..., d) → float64
    tensor, removing the forward dtype's rounding of the norm output.

    ``kind`` (default ``fn.kind``) swaps the form with the same γ (and β for a LayerNorm):
    ``"rmsnorm"`` on a LayerNorm's input is the control that has no γ⁻¹ kernel."""
    import torch

    from companion._validate import check_choice, check_instance
    from companion.llm._checks import check_tensor

    check_tensor(x, "x")
    check_instance(fn, "fn", FinalNorm)
    kind = fn.kind if kind is None else check_choice(kind, "kind", ("layernorm", "rmsnorm"))
    x = x.detach().to(torch.float64)
    g = torch.as_tensor(fn.gamma, dtype=torch.float64, device=x.device)
    if kind == "layernorm":
        xc = x - x.mean(-1, keepdim=True)
        y = xc / torch.sqrt(xc.pow(2).mean(-1, keepdim=True) + fn.eps) * g
        if fn.beta is not None:
            y = y + torch.as_tensor(fn.beta, dtype=torch.float64, device=x.device)
        return y
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + fn.eps) * g
