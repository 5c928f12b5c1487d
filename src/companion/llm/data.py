"""Calibration and evaluation data: real English text here, WikiText on Colab, photographs for ViT.

* ``source="wiki"`` (default): the 107 English Wikipedia articles shipped in the gensim wheel
  (``enwiki-latest-pages-articles1...shortened.bz2``; ≈ 720k SmolLM2 tokens), cleaned with
  gensim's ``filter_wiki``; text CC BY-SA.
* ``source="lee"``: the Lee news corpus in the same wheel (≈ 76k tokens), for quick tests.
* ``source="wikitext-2"`` / ``"wikitext-103"``: the test split from the hub (needs ``datasets``
  and network: Colab). Same code path after the text is read.
* Images: :func:`image_batches` crops scikit-image's bundled sample photographs.
"""

from __future__ import annotations

import re
from functools import lru_cache

from companion._validate import check_choice, check_int, int_text

__all__ = ["corpus_text", "token_windows", "image_batches", "SOURCES"]

SOURCES = ("wiki", "lee", "wikitext-2", "wikitext-103")


@lru_cache(maxsize=4)
def corpus_text(source: str = "wiki") -> str:
    """The raw text of ``source`` as one string (cached per process)."""
    check_choice(source, "source", SOURCES)
    if source in ("wiki", "lee"):
        from gensim.test.utils import datapath

        if source == "lee":
            with open(datapath("lee_background.cor"), encoding="utf-8", errors="replace") as fh:
                return fh.read()
        import bz2

        from gensim.corpora.wikicorpus import extract_pages, filter_wiki

        path = datapath("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
        parts = []
        with bz2.open(path, "rb") as fh:
            for title, text, _pageid in extract_pages(fh):
                body = filter_wiki(text).replace("'''", "").replace("''", "")
                body = re.sub(r"\n{3,}", "\n\n", body).strip()
                if len(body) > 200:
                    parts.append(f" = {title} = \n\n{body}\n")
        return "\n".join(parts)
    from companion.llm.hub import HubUnavailable, hub_status

    reachable, reason = hub_status()
    if not reachable:
        raise HubUnavailable(
            f"`source` must be a text available here; got {source!r}, which is read from the "
            f"Hugging Face hub, and {reason}; use source='wiki' (offline Wikipedia text)"
        )
    import datasets  # Colab ships it

    cfg = "wikitext-2-raw-v1" if source == "wikitext-2" else "wikitext-103-raw-v1"
    # the author's protocol (dn_outlier.py): non-empty lines joined with a blank line,
    # tokenised once
    lines = datasets.load_dataset("wikitext", cfg, split="test")["text"]
    return "\n\n".join(line for line in lines if line.strip())


_IDS: dict = {}


def _token_ids(tokenizer, source: str):
    """Token ids of the whole corpus: memory cache, then a disk cache under the model cache
    dir (tokenising 3 M characters takes seconds; reading the cache, milliseconds)."""
    import hashlib
    import os

    import numpy as np

    from companion.llm.registry import cache_dir
    from companion.results import remove_stale_temporaries

    key = (getattr(tokenizer, "name_or_path", ""), len(tokenizer), type(tokenizer).__name__, source)
    if key in _IDS:
        return _IDS[key]
    vocab_probe = tokenizer("The dead direction of LayerNorm.", add_special_tokens=False)[
        "input_ids"
    ]
    digest = hashlib.sha256(repr((key[1:], list(vocab_probe))).encode()).hexdigest()[:16]
    path = os.path.join(cache_dir(), "tokens", f"{source}-{digest}.npy")
    if os.path.exists(path):
        ids = np.load(path)
    else:
        text = corpus_text(source)
        if source.startswith("wikitext"):
            # the paper's evaluation text: tokenised once, as the author does, so that the
            # full-scale baseline perplexity is comparable with the paper's 7.38
            ids = np.asarray(
                tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"],
                dtype=np.int64,
            )
        else:
            # tokenise in paragraph chunks: fast tokenizers warn (and some truncate) on one
            # huge string
            chunks = [c for c in text.split("\n\n") if c.strip()]
            enc = tokenizer(chunks, add_special_tokens=False, verbose=False)["input_ids"]
            ids = np.fromiter((i for e in enc for i in e), dtype=np.int64)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        remove_stale_temporaries(os.path.dirname(path), r"^.+\.npy\.(?P<pid>\d+)\.tmp\.npy$")
        tmp = f"{path}.{os.getpid()}.tmp.npy"
        np.save(tmp, ids)
        os.replace(tmp, path)
    _IDS[key] = ids
    return ids


def token_windows(tokenizer, *, n_windows: int, window: int, source: str = "wiki", offset: int = 0):
    """Non-overlapping windows of real text → ``LongTensor (n_windows, window)``.

    The corpus is tokenised once (no special tokens) and cut into consecutive windows;
    ``offset`` counts windows to skip, so calibration (``offset=0``) and evaluation
    (``offset=n_calib``) windows are disjoint.

    Raises
    ------
    ValueError
        When the corpus holds fewer than ``offset + n_windows`` windows (the message says how many).
    """
    import torch

    from companion.llm._checks import check_tokenizer

    check_tokenizer(tokenizer)
    n_windows = check_int(n_windows, "n_windows", low=1)
    window = check_int(window, "window", low=2)
    offset = check_int(offset, "offset", low=0)
    ids = _token_ids(tokenizer, check_choice(source, "source", SOURCES))
    if window > len(ids):  # not one window: the window is what is out of range
        raise ValueError(
            f"`window` must be <= {len(ids)} (the tokens of source {source!r}); "
            f"got {int_text(window)}"
        )
    available = len(ids) // window
    if offset >= available:  # no window left to take: the offset is what is out of range
        raise ValueError(
            f"`offset` must be < {available} (the windows of source {source!r} at window "
            f"{window}: {len(ids)} tokens); got {int_text(offset)}"
        )
    if offset + n_windows > available:
        raise ValueError(
            f"`n_windows` must be <= {available - offset} for source {source!r} "
            f"(window {window}, offset {offset}: {len(ids)} tokens); got {int_text(n_windows)}"
        )
    start = offset * window
    t = torch.as_tensor(ids[start : start + n_windows * window], dtype=torch.long).clone()
    return t.view(n_windows, window)  # (n_windows, window)


_PHOTOS = (
    "astronaut",
    "coffee",
    "chelsea",
    "rocket",
    "immunohistochemistry",
    "hubble_deep_field",
    "retina",
    "colorwheel",
)


def image_batches(
    n_images: int,
    *,
    size: int = 224,
    batch_size: int = 8,
    seed: int = 0,
    mean=(0.5, 0.5, 0.5),
    std=(0.5, 0.5, 0.5),
):
    """Batches of ``(b, 3, size, size)`` float tensors cropped from scikit-image's sample photos.

    Each image is a random square crop (side 40–100 % of the photo's short side) of one of
    eight bundled colour photographs, resized to ``size`` and normalised with ``mean``/``std``
    (ViT's 0.5/0.5 by default). Deterministic for a given ``seed``. Yields dicts
    ``{"pixel_values": tensor}``; the arguments are checked when it is called.
    """
    import numpy as np

    from companion._validate import check_finite_array

    n_images = check_int(n_images, "n_images", low=1)
    size = check_int(size, "size", low=1)
    batch_size = check_int(batch_size, "batch_size", low=1)
    seed = check_int(seed, "seed", low=0)
    m = check_finite_array(mean, "mean", ndim=1).astype(np.float32)
    s = check_finite_array(std, "std", ndim=1).astype(np.float32)
    if m.shape != (3,):
        raise ValueError(f"`mean` must hold 3 values (R, G, B); got shape {m.shape}")
    if s.shape != (3,) or (s <= 0).any():
        raise ValueError(f"`std` must hold 3 positive values (R, G, B); got {s.tolist()}")
    return _image_batches(n_images, size, batch_size, seed, m[:, None, None], s[:, None, None])


def _image_batches(n_images, size, batch_size, seed, m, s):
    import numpy as np
    import skimage.data
    import torch
    from skimage.transform import resize

    rng = np.random.default_rng(seed)
    photos: dict = {}
    batch = []
    for i in range(n_images):
        name = _PHOTOS[i % len(_PHOTOS)]
        if name not in photos:  # read each photo once, when first needed
            photos[name] = getattr(skimage.data, name)()[..., :3]
        img = photos[name]
        h, w = img.shape[:2]
        side = int(min(h, w) * rng.uniform(0.4, 1.0))
        y, x = rng.integers(0, h - side + 1), rng.integers(0, w - side + 1)
        crop = resize(
            img[y : y + side, x : x + side], (size, size), anti_aliasing=True
        )  # (size, size, 3)
        batch.append((crop.transpose(2, 0, 1).astype(np.float32) - m) / s)
        if len(batch) == batch_size or i == n_images - 1:
            yield {"pixel_values": torch.from_numpy(np.stack(batch))}  # (b, 3, size, size)
            batch = []
