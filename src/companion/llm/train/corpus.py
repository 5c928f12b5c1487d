"""The training text: the book's gensim Wikipedia articles as bytes, cut into three disjoint
byte ranges.

The text is :func:`companion.llm.data.corpus_text` (``source="wiki"``: the 107 English
Wikipedia articles of the gensim wheel, cleaned with ``filter_wiki``, ≈ 3.08 M bytes of
UTF-8), the same text every calibration pass of the book reads. It is cut, in article order,
into contiguous byte ranges (:data:`SPLITS`): the first 90 % for training, the next 5 % for
validation loss, the last 5 % for calibration (the activations the geometry is measured on).
A window never crosses a range's end, so no byte of the validation or calibration text is
ever trained on. The last articles are therefore held out whole, not shuffled bytes.

Training batches are a function of ``(seed, step)`` only (:func:`train_batch`), so a run
resumed at step k draws exactly the batches an uninterrupted run would.

Examples
--------
>>> split_ranges(1000)
{'train': (0, 900), 'validation': (900, 950), 'calibration': (950, 1000)}
"""

from __future__ import annotations

from companion._validate import check_choice, check_int

__all__ = ["SPLITS", "corpus_bytes", "split_ranges", "train_batch", "split_windows"]

#: Fractions of the corpus (start, stop) of each split, in corpus order.
SPLITS = {"train": (0.0, 0.90), "validation": (0.90, 0.95), "calibration": (0.95, 1.0)}


def corpus_bytes(source: str = "wiki"):
    """The corpus as a ``uint8`` array of its UTF-8 bytes (the model's tokens)."""
    import numpy as np

    from companion.llm.data import corpus_text

    return np.frombuffer(corpus_text(source).encode("utf-8"), dtype=np.uint8)


def split_ranges(n_bytes: int) -> dict:
    """``{split: (start, stop)}`` byte ranges of a corpus of ``n_bytes`` (disjoint, covering)."""
    n_bytes = check_int(n_bytes, "n_bytes", low=len(SPLITS))
    return {k: (round(a * n_bytes), round(b * n_bytes)) for k, (a, b) in SPLITS.items()}


def check_data(data):
    """``data`` if it is a non-empty 1-D ``uint8`` numpy array (the corpus bytes), else one
    clear error: other dtypes would be cast silently (a float NaN to a token id)."""
    import numpy as np

    if not isinstance(data, np.ndarray):
        raise TypeError(
            f"`data` must be a 1-D numpy uint8 array of bytes; got {type(data).__name__}"
        )
    if data.dtype != np.uint8 or data.ndim != 1 or data.size == 0:
        raise ValueError(
            f"`data` must be a non-empty 1-D uint8 array of bytes; got dtype {data.dtype}, "
            f"shape {data.shape}"
        )
    return data


def _range(data, split: str, context: int) -> tuple[int, int]:
    check_data(data)
    check_choice(split, "split", tuple(SPLITS))
    lo, hi = split_ranges(len(data))[split]
    if hi - lo < context + 1:
        raise ValueError(
            f"`context` must be < {hi - lo} (the {split} split's bytes); got {context}"
        )
    return lo, hi


def _pairs(data, starts, context: int):
    import numpy as np
    import torch

    idx = np.asarray(starts)[:, None] + np.arange(context + 1)  # (batch, context + 1)
    chunk = torch.from_numpy(data[idx].astype(np.int64))
    return chunk[:, :-1], chunk[:, 1:]  # inputs, next-byte targets: (batch, context) each


def train_batch(data, step: int, *, batch: int, context: int, seed: int = 0):
    """``(inputs, targets)`` LongTensors ``(batch, context)`` for training step ``step``:
    windows at uniformly random starts inside the train range, drawn from
    ``numpy.random.default_rng([seed, step])`` (a function of seed and step only).

    Examples
    --------
    >>> import numpy as np
    >>> data = np.arange(200, dtype=np.uint8)
    >>> x, y = train_batch(data, 3, batch=2, context=8)
    >>> bool((y[:, :-1] == x[:, 1:]).all()), int(x.max()) < 180
    (True, True)
    """
    import numpy as np

    step = check_int(step, "step", low=0)
    batch = check_int(batch, "batch", low=1)
    context = check_int(context, "context", low=1)
    seed = check_int(seed, "seed", low=0)
    lo, hi = _range(data, "train", context)
    starts = np.random.default_rng([seed, step]).integers(lo, hi - context, size=batch)
    return _pairs(data, starts, context)


def split_windows(data, split: str, *, n_windows: int, context: int):
    """The first ``n_windows`` consecutive, non-overlapping ``(inputs, targets)`` windows of
    ``split`` (validation loss, calibration activations); fewer when the split is shorter."""
    import numpy as np

    n_windows = check_int(n_windows, "n_windows", low=1)
    context = check_int(context, "context", low=1)
    lo, hi = _range(data, split, context)
    n = min(n_windows, (hi - lo - 1) // context)
    return _pairs(data, lo + context * np.arange(n), context)
