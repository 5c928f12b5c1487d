"""Scoped forward hooks and streaming float64 second moments of activations.

:func:`hooks` registers forward hooks for the duration of a ``with`` block and removes
them in ``finally`` (also on an exception or ``KeyboardInterrupt``), so a model never
keeps a stray hook. :class:`StreamingGram` accumulates the mean and centred co-moment of
activation rows in float64, batch by batch (memory O(d²) whatever the token count); the
per-batch statistics are computed on the activations' device and merged into
:class:`companion.theory.sigma_min.GramAccumulator` (Chan's pairwise update), which
provides every read-out (covariance, Gram, σ_min, eigendecomposition).
"""

from __future__ import annotations

import contextlib

from companion._validate import check_bool, check_choice
from companion.llm._checks import check_callable, check_module, check_tensor
from companion.theory.sigma_min import GramAccumulator

__all__ = ["hooks", "hook_count", "StreamingGram", "capture_module"]


@contextlib.contextmanager
def hooks(modules: dict, fn, *, pre: bool = False):
    """Register ``fn(name, module, inputs, output)`` (or ``fn(name, module, inputs)`` with
    ``pre=True``) on every module of ``modules`` (name → module) inside the block.

    The hooks are removed when the block exits, whatever happens inside.

    Examples
    --------
    >>> import torch
    >>> lin = torch.nn.Linear(3, 2)
    >>> seen = []
    >>> with hooks({"lin": lin}, lambda name, m, i, o: seen.append((name, tuple(o.shape)))):
    ...     _ = lin(torch.zeros(5, 3))
    >>> seen, hook_count(lin)
    ([('lin', (5, 2))], 0)
    """
    _check_modules(modules)
    check_callable(fn, "fn")
    pre = check_bool(pre, "pre")
    handles = []
    try:
        for name, mod in modules.items():
            if pre:

                def h(m, i, _n=name):
                    return fn(_n, m, i)

                h._companion_hook = True
                handles.append(mod.register_forward_pre_hook(h))
            else:

                def h(m, i, o, _n=name):
                    return fn(_n, m, i, o)

                h._companion_hook = True
                handles.append(mod.register_forward_hook(h))
        yield handles
    finally:
        for handle in handles:
            handle.remove()


def _check_modules(modules) -> None:
    if not isinstance(modules, dict):
        raise TypeError(
            f"`modules` must be a dict of name -> torch.nn.Module; got {type(modules).__name__}"
        )
    for name, mod in modules.items():
        check_module(mod, f"modules[{name!r}]", parameters=False)


def hook_count(model) -> int:
    """Number of this package's forward (pre-)hooks left anywhere in ``model`` (0: nothing leaked).

    transformers installs output-capturing hooks of its own; those are not counted.
    """
    return sum(
        getattr(h, "_companion_hook", False)
        for m in check_module(model, parameters=False).modules()
        for h in list(m._forward_hooks.values()) + list(m._forward_pre_hooks.values())
    )


class StreamingGram:
    """Float64 streaming mean / co-moment of activation rows, computed on their device.

    ``update(x)`` takes a tensor ``(..., d)`` (any dtype, any device) and optionally a
    boolean ``mask`` over its leading axes (True = keep the row, e.g. to drop padding or
    position 0). Read-outs live on :attr:`acc` (a :class:`GramAccumulator`).

    Examples
    --------
    >>> import torch, numpy as np
    >>> g = StreamingGram()
    >>> x = torch.randn(4, 50, 6, generator=torch.Generator().manual_seed(0))
    >>> g.update(x[:2]); g.update(x[2:])
    >>> ref = np.cov(x.reshape(-1, 6).double().numpy(), rowvar=False)
    >>> bool(np.allclose(g.acc.covariance(), ref))
    True
    """

    def __init__(self, d: int | None = None):
        self.acc = GramAccumulator(d)

    @property
    def n(self) -> int:
        return self.acc.n

    def update(self, x, mask=None) -> None:
        import torch

        check_tensor(x, "x")
        check_tensor(mask, "mask", none=True)
        with torch.no_grad():
            X = x.detach().reshape(-1, x.shape[-1])  # (rows, d)
            if mask is not None:
                X = X[mask.reshape(-1).to(X.device)]
            if X.shape[0] == 0:
                return
            X = X.to(torch.float64)
            mb = X.mean(dim=0)  # (d,)
            Xc = X - mb
            m2b = Xc.T @ Xc  # (d, d)
        if self.acc.d is None:
            self.acc.update(X[:0].cpu().numpy())  # fixes d, adds nothing
        # GramAccumulator's pairwise merge of (count, mean, co-moment); the batch statistics
        # were formed on the device, so only d + d² numbers cross to the host.
        self.acc.merge_moments(int(X.shape[0]), mb.cpu().numpy(), m2b.cpu().numpy())


@contextlib.contextmanager
def capture_module(module, *, what: str = "output", mask_fn=None):
    """Stream one module's output (or first input) into a :class:`StreamingGram` inside a block.

    ``mask_fn(tensor) -> bool mask`` selects rows. Yields the :class:`StreamingGram`.

    Examples
    --------
    >>> import torch
    >>> lin = torch.nn.Linear(3, 2)
    >>> with capture_module(lin, what="input") as g:
    ...     _ = lin(torch.ones(4, 3))
    >>> g.n, g.acc.d
    (4, 3)
    >>> with capture_module(lin, what="weights"):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: `what` must be one of 'output', 'input'; got 'weights'
    """
    check_module(module, "module", parameters=False)
    check_choice(what, "what", ("output", "input"))
    check_callable(mask_fn, "mask_fn", none=True)
    gram = StreamingGram()

    def fn(name, m, inputs, output=None):
        t = inputs[0] if what == "input" else (output[0] if isinstance(output, tuple) else output)
        gram.update(t, None if mask_fn is None else mask_fn(t))

    with hooks({"m": module}, fn, pre=(what == "input")):
        yield gram
