"""``companion run walk`` at the smoke scale (random tiny models, seconds): the record it
writes and resumes, the RMSNorm control refusing a flat curve, and one-style errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.cli import main  # noqa: E402
from companion.llm.dead_directions.walk import load_walk, run_walk  # noqa: E402


def test_smoke_record_resumes_and_rmsnorm_refuses_flat(tmp_path):
    rec = run_walk("smollm2-135m", scale="smoke", tokens=64, n_random=1, out=str(tmp_path))
    assert rec["kind"] == "rmsnorm" and "flat" not in rec["curves"]
    assert "`kind` must be 'layernorm' for the flat curve" in rec["flat_refused"]
    assert rec["curves"]["gamma_inv"]["max_abs_dnll"] > 1e-3
    assert rec["tied"] is True and rec["n_tokens"] == 64
    again = run_walk(
        "smollm2-135m", scale="smoke", tokens=64, n_random=1, out=str(tmp_path), resume=True
    )
    assert again["time"] == rec["time"] and len(load_walk(str(tmp_path))) == 1
    line = (tmp_path / "walk.jsonl").read_text().splitlines()[0]
    assert json.loads(line)["settings"]["experiment"] == "walk"


def test_bad_input_is_one_line(tmp_path, capsys):
    with pytest.raises(ValueError, match="`ts` must contain only finite"):
        run_walk("smollm2-135m", scale="smoke", ts=[np.nan], out=str(tmp_path))
    with pytest.raises(ValueError, match="output head"):
        run_walk("whisper-base-encoder", scale="smoke", out=str(tmp_path))
    assert main(["run", "walk", "--model", "no-such-model", "--out", str(tmp_path)]) == 2
    assert main(["run", "walk", "--model", "smollm2-135m", "--tokens", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 2 and "Traceback" not in err
