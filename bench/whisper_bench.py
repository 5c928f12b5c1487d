"""Benchmarks of Whisper-base offline (issue 14), written to results/whisper/bench.json.

    .venv/bin/python bench/whisper_bench.py [--threads 2] [--clips 4]

Each stage runs in a fresh process (its peak RSS is that process's ``ru_maxrss``), with the
model cache in a temporary folder so that nothing of the user's cache is touched:

1. **conversion**: read the two packaged parts (SHA-256 checked against the package
   records), map the 212 CTranslate2 variables onto ``WhisperForConditionalGeneration``,
   save float32 safetensors (the one-time cost of ``load_whisper``);
2. **cached load**: ``load_whisper()`` from that cache (every later session);
3. **speech**: espeak-ng synthesis, resampling and log-mel features per clip of 96 tokens;
4. **diagnosis_decoder**, **diagnosis_encoder**: what ``companion run dead-directions
   --model whisper-base-<stack> --init trained`` does at CPU scale (load, 21 clips of
   speech, one forward pass with the hooks, the read-out), into a temporary results folder:
   wall and CPU time (of the Python process: espeak-ng's own is not counted), the
   record's own timings and the peak RSS.

``--stages`` runs some stages and keeps the others' stored numbers. The conversion stage
converts into a temporary model cache; without it the later stages use the model cache as
the library does (converting there first if it is empty).

The machine's load average is recorded with every number: on a shared machine the
wall-clock numbers are upper bounds, and the CPU times are the steadier measure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "results" / "whisper" / "bench.json"


def _stage(name: str, clips: int) -> dict:
    import resource

    import torch

    t0 = time.perf_counter()
    import transformers.models.whisper.modeling_whisper  # noqa: F401  (import time apart)

    from companion.llm import whisper as W

    out = {"import_s": time.perf_counter() - t0}
    if name == "conversion":
        t0 = time.perf_counter()
        ct2 = W.read_checkpoint()
        out["read_verify_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        W.convert()
        out["convert_total_s"] = time.perf_counter() - t0
        out["map_and_save_s"] = time.perf_counter() - t1  # includes a second read
        out["variables"] = len(ct2.variables)
        out["stored_params"] = ct2.n_params
    elif name == "cached_load":
        t0 = time.perf_counter()
        model, tok, fe = W.load_whisper()
        out["load_s"] = time.perf_counter() - t0
        out["params"] = sum(p.numel() for p in model.parameters())
        t0 = time.perf_counter()
        with torch.no_grad():
            model.model.encoder(torch.zeros(1, 80, 3000))
        out["encoder_forward_30s_clip_s"] = time.perf_counter() - t0
    elif name == "speech":
        from companion.llm.speech import speech_clips

        tok = W.load_tokenizer()
        from transformers import WhisperConfig

        from companion.llm.registry import get_spec

        fe = W.feature_extractor(WhisperConfig(**get_spec("whisper-base-decoder").config))
        speech_clips(tok, fe, n_clips=1, window=96)  # text preparation (corpus parse) warm
        t0 = time.perf_counter()
        cs = speech_clips(tok, fe, n_clips=clips, window=96, offset=1)
        out["per_clip_s"] = (time.perf_counter() - t0) / clips
        out["speech_seconds_per_clip"] = sum(c.seconds for c in cs) / clips
    elif name.startswith("diagnosis_"):
        out.update(_diagnosis(f"whisper-base-{name.removeprefix('diagnosis_')}"))
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _diagnosis(model: str) -> dict:
    """One ``run dead-directions`` of a trained stack at CPU scale, into a scratch folder."""
    import resource

    from companion.llm.dead_directions import run_dead_directions

    def cpu():
        ru = resource.getrusage(resource.RUSAGE_SELF)
        return ru.ru_utime + ru.ru_stime

    with tempfile.TemporaryDirectory(prefix="whisper-bench-dd-") as out:
        c0, t0 = cpu(), time.perf_counter()
        rec = run_dead_directions(model, init="trained", out=out, show_progress=False)
        wall, cpu_s = time.perf_counter() - t0, cpu() - c0
    return {
        "model": model,
        "run_wall_s": wall,
        "run_cpu_s": cpu_s,
        "load_s": rec["load_s"],
        "clips": rec["settings"]["clips"],
        "n_tokens": rec["n_tokens"],
        "profile_tokens": rec["profile_tokens"],
        "timings": rec["timings"],
        "verdict": rec["verdict"],
    }


STAGES = ("conversion", "cached_load", "speech", "diagnosis_decoder", "diagnosis_encoder")


def _run(name: str, cache: str | None, threads: int, clips: int) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COMPANION_PROGRESS": "0"}
    if cache is not None:
        env["COMPANION_CACHE"] = cache
    env["OMP_NUM_THREADS"] = str(threads)
    here = str(Path(__file__).parent)
    code = (
        f"import json, sys, torch; sys.path.insert(0, {here!r}); "
        f"torch.set_num_threads({threads}); import whisper_bench as b; "
        f"print(json.dumps(b._stage({name!r}, {clips})))"
    )
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    rec = json.loads(res.stdout.strip().splitlines()[-1])
    rec["process_wall_s"] = time.perf_counter() - t0  # with interpreter and import time
    rec["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    return rec


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--clips", type=int, default=4)
    p.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES))
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    results = json.loads(OUT.read_text()) if OUT.exists() else {}
    with tempfile.TemporaryDirectory(prefix="whisper-bench-") as tmp:
        cache = tmp if "conversion" in args.stages else None
        for stage in (s for s in STAGES if s in args.stages):
            results[stage] = _run(stage, cache, args.threads, args.clips)
            results[stage]["command"] = " ".join(["python bench/whisper_bench.py", *argv])
    results["settings"] = {"threads": args.threads, "clips": args.clips, "cpus": os.cpu_count()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
