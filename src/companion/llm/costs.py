"""What an at-scale experiment costs: peak memory and time, from parameter counts (no torch).

The estimates are formulas on the registry's numbers (:mod:`companion.llm.registry`), not
measurements; :mod:`companion.llm.plan` compares them with a runtime. With P parameters,
b bytes per parameter (float32 4, float16/bfloat16 2), width d, depth L, FFN width f,
vocabulary V and T tokens per forward batch:

* **device peak** = 1.2 · (P·b + A) + 0.5 GB, where 0.5 GB is the CUDA context and the
  factor 1.2 the allocator's slack, and A the activations of one batch:

  - dead directions: T·(L+1)·d·b (the residual stream of every block, kept for the σ_min
    profile) + T·2·f·b (one FFN) + T·d·8·6 (the float64 copies of the final norm's input and
    output, recomputed, centred) + 2·d²·8 (one batch's Gram on the device);
  - sign flips: T·(2·d + 2·f)·b + T·V·4·2 (the logits upcast to float32, and their
    log-softmax) + p_max·P·(b + 8) (the flipped entries' old values and indices, kept to undo
    the flips exactly).

* **host peak** = P·b (the weights are built or read on the host before they move) +
  the float64 accumulators of the dead-direction read, (4 + (L+1)·(F+1))·d²·8 with F = 4
  jackknife folds, + 1 GB for Python, torch and the data.
* **time** = FLOPs / (0.35 · the device's peak rate): forward passes 2·P per token in the
  forward dtype; the dead-direction Gram updates 2·d² per token and block in float64 (slow on
  consumer GPUs: a T4 does 0.25 TFLOP/s in float64); the sign-flip masks drawn on the host
  (≈ 5 ns per parameter and perturbed evaluation); plus a download of P·2 bytes at 50 MB/s
  for hub checkpoints.

Each is rounded up, and meant to within a factor of two; the scripts in ``bench/`` measure.

Examples
--------
>>> from companion.llm.registry import get_spec
>>> round(weights_gb(get_spec("mistral-7b"), "float32"), 1)
29.0
>>> round(weights_gb(get_spec("mistral-7b"), "float16"), 1)
14.5
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion._validate import check_bool, check_choice, check_instance, check_int, check_real

__all__ = [
    "BYTES",
    "Device",
    "GPUS",
    "device_for",
    "weights_gb",
    "dead_directions_cost",
    "sign_flips_cost",
    "Cost",
]

GB = 1e9
#: Bytes per parameter of each forward dtype.
BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}
_EFFICIENCY = 0.35  # the fraction of the peak rate a forward pass reaches
_OVERHEAD, _SLACK = 0.5 * GB, 1.2
_MASK_S_PER_PARAM = 5e-9
_DOWNLOAD_BPS = 50e6
FOLDS = 4  # companion.llm.dead_directions.moments.FOLDS (imported lazily there: torch)


@dataclass(frozen=True)
class Device:
    """A device's peak rates in TFLOP/s (vendor data sheets, dense) and its memory."""

    name: str
    memory_gb: float
    fp32: float
    fp16: float
    fp64: float

    @property
    def is_gpu(self) -> bool:
        return self.name != "cpu"


#: Known GPUs by a word of their name (peak TFLOP/s: float32, float16 tensor cores, float64).
GPUS = {
    "T4": (8.1, 65.0, 0.25),
    "L4": (30.3, 121.0, 0.49),
    "P100": (9.3, 18.7, 4.7),
    "V100": (15.7, 125.0, 7.8),
    "A10": (31.2, 125.0, 0.98),
    "A100": (19.5, 312.0, 9.7),
    "L40": (90.5, 181.0, 1.4),
    "H100": (67.0, 989.0, 34.0),
}


def device_for(name: str | None, memory_gb: float, cpus: int = 2) -> Device:
    """The :class:`Device` of a GPU called ``name`` (None: the CPU, with ``cpus`` cores).

    An unknown GPU gets the rates of the known one closest in memory class (≤ 16 GB: T4,
    ≤ 24 GB: L4, else A100).

    Examples
    --------
    >>> device_for("Tesla T4", 15.0).fp64
    0.25
    >>> device_for(None, 24.0, cpus=2).name
    'cpu'
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"`name` must be a str or None; got {type(name).__name__}")
    memory_gb = check_real(memory_gb, "memory_gb", low=0.0, low_open=True)
    cpus = check_int(cpus, "cpus", low=1)
    if name is None:
        rate = 0.01 * max(1, cpus)  # ≈ 10 GFLOP/s per core in float32 with BLAS
        return Device("cpu", memory_gb, rate, rate / 4, rate / 2)
    words = set(re.findall(r"[A-Z]+\d+", name.upper()))
    known = next((k for k in GPUS if k in words), None)
    if known is None:
        known = "T4" if memory_gb <= 16 else ("L4" if memory_gb <= 24 else "A100")
    return Device(name, memory_gb, *GPUS[known])


def weights_gb(spec, dtype: str) -> float:
    """P · b in GB: the weights of the real checkpoint in ``dtype``."""
    spec, dtype = _spec(spec), check_choice(dtype, "dtype", tuple(BYTES))
    return spec.n_params * BYTES[dtype] / GB


@dataclass(frozen=True)
class Cost:
    """One experiment's estimated device peak and host peak (GB) and time (minutes)."""

    memory_gb: float
    host_gb: float
    minutes: float
    download_gb: float


def _spec(spec):
    from companion.llm.registry import ModelSpec

    return check_instance(spec, "spec", ModelSpec)


def _ffn(spec) -> int:
    cfg = spec.config
    for key in ("intermediate_size", "ffn_dim", "encoder_ffn_dim"):
        if key in cfg:
            return int(cfg[key])
    return int(cfg.get("mlp_ratio", 4) * spec.width)


def _minutes(flops: float, rate_tflops: float) -> float:
    return flops / (_EFFICIENCY * rate_tflops * 1e12) / 60


def _download(spec, trained: bool) -> float:
    return spec.n_params * 2 / GB if (trained and spec.source == "hub") else 0.0


def dead_directions_cost(
    spec, *, tokens: int, batch_tokens: int, layers: int, dtype: str, device: Device, trained: bool
) -> Cost:
    """The cost of one dead-direction diagnosis (see the module docs for the formula).

    Examples
    --------
    >>> from companion.llm.registry import get_spec
    >>> c = dead_directions_cost(get_spec("gpt2"), tokens=65536, batch_tokens=8192,
    ...                          layers=12, dtype="float32", device=device_for("T4", 15.0),
    ...                          trained=True)
    >>> 1 < c.memory_gb < 3, c.minutes < 10
    (True, True)
    """
    spec, device = _spec(spec), check_instance(device, "device", Device)
    tokens = check_int(tokens, "tokens", low=1)
    batch_tokens = check_int(batch_tokens, "batch_tokens", low=1)
    layers = check_int(layers, "layers", low=1)
    dtype, trained = check_choice(dtype, "dtype", tuple(BYTES)), check_bool(trained, "trained")
    b, d, f, T = BYTES[dtype], spec.width, _ffn(spec), batch_tokens
    P = spec.n_params * layers / spec.n_layers if not trained else spec.n_params
    acts = T * (layers + 1) * d * b + T * 2 * f * b + T * d * 8 * 6 + 2 * d * d * 8
    memory = _SLACK * (P * b + acts) + _OVERHEAD
    host = P * b + (4 + (layers + 1) * (FOLDS + 1)) * d * d * 8 + 1 * GB
    rate = device.fp32 if dtype == "float32" else device.fp16
    minutes = _minutes(2 * P * tokens, rate) + _minutes(
        2 * d * d * tokens * (layers + 5), device.fp64
    )
    minutes += _download(spec, trained) * GB / _DOWNLOAD_BPS / 60
    return Cost(memory / GB, host / GB, minutes, _download(spec, trained))


def sign_flips_cost(
    spec,
    *,
    evaluations: int,
    perturbed: int,
    eval_tokens: int,
    window: int,
    p_max: float,
    dtype: str,
    device: Device,
) -> Cost:
    """The cost of one sign-flip experiment: ``evaluations`` passes over ``eval_tokens``
    tokens (``perturbed`` of them after drawing a mask), in windows of ``window`` tokens.

    Examples
    --------
    >>> from companion.llm.registry import get_spec
    >>> c = sign_flips_cost(get_spec("tinyllama-1.1b"), evaluations=102, perturbed=100,
    ...                     eval_tokens=20480, window=2048, p_max=0.05, dtype="float16",
    ...                     device=device_for("T4", 15.0))
    >>> 2 < c.memory_gb < 6
    True
    """
    from companion._validate import check_probability

    spec, device = _spec(spec), check_instance(device, "device", Device)
    evaluations = check_int(evaluations, "evaluations", low=0)
    perturbed = check_int(perturbed, "perturbed", low=0, high=evaluations)
    eval_tokens = check_int(eval_tokens, "eval_tokens", low=1)
    window = check_int(window, "window", low=1)
    p_max = check_probability(p_max, "p_max")
    dtype = check_choice(dtype, "dtype", tuple(BYTES))
    b, d, f, P = BYTES[dtype], spec.width, _ffn(spec), spec.n_params
    vocab = int(spec.config.get("vocab_size", 32000))
    acts = window * (2 * d + 2 * f) * b + window * vocab * 4 * 2 + p_max * P * (b + 8)
    memory = _SLACK * (P * b + acts) + _OVERHEAD
    host = P * b + 1 * GB
    rate = device.fp32 if dtype == "float32" else device.fp16
    minutes = _minutes(2 * P * eval_tokens * evaluations, rate)
    minutes += perturbed * P * _MASK_S_PER_PARAM / 60
    minutes += _download(spec, True) * GB / _DOWNLOAD_BPS / 60
    return Cost(memory / GB, host / GB, minutes, _download(spec, True))
