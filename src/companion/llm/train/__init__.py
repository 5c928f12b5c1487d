"""The book's own models, trained here: a tiny pre-LN GPT and its RMSNorm twin (issue 20).

* :mod:`~companion.llm.train.model`: the two twins, their byte vocabulary and stated init;
* :mod:`~companion.llm.train.corpus`: the gensim Wikipedia bytes and their disjoint splits;
* :mod:`~companion.llm.train.checkpoints`: hashed safetensors checkpoints and the manifest;
* :mod:`~companion.llm.train.trainer`: the deterministic, resumable AdamW trainer;
* :mod:`~companion.llm.train.load`: a twin as the model registry hands it out;
* :mod:`~companion.llm.train.cli`: ``companion train``.

Importing this package imports neither torch nor transformers.
"""

from __future__ import annotations

from companion.llm.train.checkpoints import CheckpointError, verified
from companion.llm.train.model import MODELS, NORMS, build_model, model_norm, sign_cos2
from companion.llm.train.trainer import (
    TrainConfig,
    checkpoint_steps,
    learning_rate,
    load_trained,
    train,
)

__all__ = [
    "CheckpointError",
    "MODELS",
    "NORMS",
    "TrainConfig",
    "build_model",
    "checkpoint_steps",
    "learning_rate",
    "load_trained",
    "model_norm",
    "sign_cos2",
    "train",
    "verified",
]
