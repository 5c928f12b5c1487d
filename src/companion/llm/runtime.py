"""What this runtime offers an at-scale run: GPU and its memory, host memory, disk, hub, token.

:func:`read_runtime` reads them without loading a model: the GPU through torch when torch is
installed (else none, unless ``gpu_memory_gb`` is given, which also overrides what torch
reads), host memory from ``/proc/meminfo`` or ``os.sysconf``, free disk where the results
and the hub cache go, the hub with one short connection (:func:`companion.llm.registry.
hub_status`), and whether ``HF_TOKEN`` (or ``HUGGING_FACE_HUB_TOKEN``) is set.

Examples
--------
>>> rt = read_runtime(gpu_memory_gb=15, ram_gb=12.7, probe_hub=False)
>>> rt.device.memory_gb, rt.ram_gb, rt.gpu_given
(15.0, 12.7, True)
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from companion._validate import check_bool, check_real
from companion.llm.costs import Device, device_for

__all__ = ["Runtime", "read_runtime", "TOKEN_VARS"]

#: The environment variables huggingface_hub reads a token from.
TOKEN_VARS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")


@dataclass(frozen=True)
class Runtime:
    """The runtime a plan is made for (:func:`read_runtime`)."""

    device: Device
    gpu_given: bool  # the GPU memory came from the caller (``--gpu-memory``), not from torch
    ram_gb: float
    disk_free_gb: float
    cpus: int
    hub: bool
    hub_reason: str
    token: bool
    label: str = ""  # a named runtime (``plan.colab_runtime``): described by its name

    def describe(self) -> str:
        """One line: the device, host memory, disk, hub and token."""
        if self.label:
            tok = "with" if self.token else "without"
            return (
                f"{self.label}: GPU with {self.device.memory_gb:.0f} GB, host memory "
                f"{self.ram_gb:.1f} GB, {'the' if self.hub else 'no'} Hugging Face hub, "
                f"{tok} HF_TOKEN"
            )
        if self.device.is_gpu:
            how = "given" if self.gpu_given else "read by torch"
            name = "" if self.device.name == "GPU" else f" {self.device.name}"
            dev = f"GPU{name} with {self.device.memory_gb:.1f} GB ({how})"
        else:
            dev = f"no GPU ({self.cpus} CPU cores)"
        hub = "reachable" if self.hub else f"not usable ({self.hub_reason})"
        tok = "set" if self.token else "not set"
        return (
            f"{dev}; host memory {self.ram_gb:.1f} GB; disk {self.disk_free_gb:.0f} GB free; "
            f"Hugging Face hub {hub}; HF_TOKEN {tok}"
        )


def _gpu() -> tuple[str, float] | None:
    """(name, memory in GB) of CUDA device 0 through torch, or None (no torch, no GPU)."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    return props.name, props.total_memory / 1e9


def _ram_gb() -> float:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):
        return 0.0


def _disk_free_gb() -> float:
    from companion.llm.registry import cache_dir

    path = os.path.expanduser("~")
    for candidate in (cache_dir(), os.environ.get("HF_HOME"), path):
        while candidate and not os.path.exists(candidate):
            candidate = os.path.dirname(candidate)
        if candidate:
            return shutil.disk_usage(candidate).free / 1e9
    return 0.0


def read_runtime(
    gpu_memory_gb: float | None = None,
    *,
    gpu_name: str | None = None,
    ram_gb: float | None = None,
    probe_hub: bool = True,
) -> Runtime:
    """Read this runtime; ``gpu_memory_gb`` plans for a GPU of that memory instead of the one
    torch sees (``gpu_name`` names it, default ``"GPU"``: a T4's rates up to 16 GB, an L4's
    up to 24 GB, an A100's above), ``ram_gb`` for that host memory.

    ``probe_hub=False`` skips the hub's connection (the hub then counts as not usable).

    Raises
    ------
    ValueError
        ``gpu_memory_gb`` or ``ram_gb`` not a positive number.
    """
    from companion.llm.hub import hub_status

    if gpu_name is not None and not isinstance(gpu_name, str):
        raise TypeError(f"`gpu_name` must be a str or None; got {type(gpu_name).__name__}")
    probe_hub = check_bool(probe_hub, "probe_hub")
    if gpu_memory_gb is not None:
        gpu_memory_gb = check_real(gpu_memory_gb, "gpu_memory_gb", low=0.0, low_open=True)
    if ram_gb is not None:
        ram_gb = check_real(ram_gb, "ram_gb", low=0.0, low_open=True)
    cpus = os.cpu_count() or 1
    seen = _gpu() if gpu_memory_gb is None else None
    if gpu_memory_gb is not None:
        device = device_for(gpu_name or "GPU", gpu_memory_gb, cpus)
    elif seen is not None:
        device = device_for(seen[0], seen[1], cpus)
    else:
        device = None
    ram = ram_gb if ram_gb is not None else _ram_gb()
    if device is None:
        device = device_for(None, ram, cpus)
    hub, reason = hub_status() if probe_hub else (False, "not probed")
    return Runtime(
        device=device,
        gpu_given=gpu_memory_gb is not None,
        ram_gb=ram,
        disk_free_gb=_disk_free_gb(),
        cpus=cpus,
        hub=hub,
        hub_reason=reason,
        token=any(os.environ.get(v, "").strip() for v in TOKEN_VARS),
    )
