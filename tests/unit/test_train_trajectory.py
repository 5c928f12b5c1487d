"""The trajectory records of the trained-here twins (``companion train-geometry``): one
record per checkpoint, resumable, and every bad input refused before a model is used.

A 1-block, width-32 twin trains on synthetic bytes for 3 steps (seconds) and is read with
small settings.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm.train import CheckpointError, TrainConfig, train  # noqa: E402
from companion.llm.train.checkpoints import read_manifest  # noqa: E402
from companion.llm.trajectory.driver import load_records, run_trajectory  # noqa: E402
from companion.llm.trajectory.geometry import GeometrySettings  # noqa: E402

TINY = dict(layers=1, width=32, heads=2)
SMALL = GeometrySettings(calib_windows=8, eval_windows=2, seeds=2)


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(0).integers(0, 256, 20000).astype(np.uint8)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data):
    import os

    os.environ["COMPANION_PROGRESS"] = "0"
    out = {}
    for model in ("tiny-gpt-ln", "tiny-gpt-rms"):
        folder = tmp_path_factory.mktemp(model)
        cfg = TrainConfig(model, steps=3, batch=4, context=16, eval_windows=4, **TINY)
        train(cfg, folder=folder, data=data)
        out[model] = folder
    return out


def _run(model, folder, out, data, **kw):
    return run_trajectory(
        model, steps=3, folder=folder, out=out, settings=SMALL, data=data, command="test", **kw
    )


def test_one_record_per_checkpoint_with_both_papers_reads(runs, data, tmp_path):
    recs = _run("tiny-gpt-ln", runs["tiny-gpt-ln"], tmp_path, data)
    manifest = read_manifest(runs["tiny-gpt-ln"])
    assert [r["step"] for r in recs] == [c["step"] for c in manifest["checkpoints"]]
    assert [r["sha256"] for r in recs] == [c["sha256"] for c in manifest["checkpoints"]]
    r = recs[-1]
    assert r["command"] == "test" and r["wall_s"] > 0 and r["val_loss"] > 0
    assert [n["name"] for n in r["norms"]][-1] == "gpt_neox.final_layer_norm"
    assert len(r["norms"]) == 3 and all(n["verdict"] == "layernorm" for n in r["norms"])
    assert len(r["linears"]) == 4 and 0.5 < r["linears"][0]["row_cos2"] < 0.8
    assert len(r["flips"]["flip"]) == SMALL.seeds == len(r["flips"]["random_columns"])
    assert len(r["profile"]["sigma_min"]) == 2  # the embedding and the pre-final-norm state
    text = (tmp_path / "trajectory.jsonl").read_text(encoding="utf-8")
    assert all(json.loads(line) for line in text.splitlines())  # strict JSON lines
    rms = _run("tiny-gpt-rms", runs["tiny-gpt-rms"], tmp_path, data)
    assert all(n["verdict"] == "rmsnorm" for n in rms[-1]["norms"])


def test_resume_skips_stored_checkpoints(runs, data, tmp_path):
    first = _run("tiny-gpt-ln", runs["tiny-gpt-ln"], tmp_path, data)
    again = _run("tiny-gpt-ln", runs["tiny-gpt-ln"], tmp_path, data, resume=True)
    assert [r["time"] for r in again] == [r["time"] for r in first]
    assert len(load_records(tmp_path)) == len(first)


def test_a_corrupt_foreign_or_other_twin_checkpoint_is_refused(runs, data, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(runs["tiny-gpt-ln"], folder)
    # the other twin's checkpoint, listed with its own (matching) hash: refused by content
    other = runs["tiny-gpt-rms"] / "step-000002.safetensors"
    shutil.copy(other, folder / "step-000002.safetensors")
    manifest = read_manifest(folder)
    entry = next(c for c in manifest["checkpoints"] if c["step"] == 2)
    entry["sha256"] = hashlib.sha256(other.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="belongs to 'tiny-gpt-rms'"):
        _run("tiny-gpt-ln", folder, tmp_path / "o1", data)
    # a corrupt file: refused before it is loaded, and nothing of it is written
    raw = bytearray((folder / "step-000001.safetensors").read_bytes())
    raw[-1] ^= 1
    (folder / "step-000001.safetensors").write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="is corrupt"):
        _run("tiny-gpt-ln", folder, tmp_path / "o2", data)
    assert load_records(tmp_path / "o2") == []  # every file verified before step 0 is read
    # the other twin's whole run
    with pytest.raises(CheckpointError, match="trained 'tiny-gpt-rms', not 'tiny-gpt-ln'"):
        _run("tiny-gpt-ln", runs["tiny-gpt-rms"], tmp_path / "o3", data)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model", "tiny-gpt"], "argument --model: invalid choice: 'tiny-gpt'"),
        (["--model", "tiny-gpt-ln", "--steps", "0"], "argument --steps: must be an integer >= 1"),
        (["--model", "tiny-gpt-ln", "--steps", "-3"], "argument --steps: must be an integer"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    from companion.cli import main

    try:
        code = main(["train-geometry", *argv])
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1


def test_cli_without_a_run_or_with_a_foreign_file_is_exit_2(tmp_path, capsys):
    from companion.cli import main

    code = main(["train-geometry", "--model", "tiny-gpt-rms", "--run", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "no training run of 'tiny-gpt-rms'" in err and err.count("\n") == 1
    (tmp_path / "manifest.json").write_text('{"format": "something-else/1"}')
    code = main(["train-geometry", "--model", "tiny-gpt-rms", "--run", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: manifest ") and "is not a" in err


@pytest.mark.parametrize("fault", ["corrupt", "foreign", "other twin"])
def test_cli_refuses_a_bad_checkpoint_with_exit_2_before_measuring(fault, runs, tmp_path, capsys):
    from companion.cli import main

    folder = tmp_path / "run"
    shutil.copytree(runs["tiny-gpt-ln"], folder)
    path = folder / "step-000002.safetensors"
    if fault == "corrupt":
        raw = bytearray(path.read_bytes())
        raw[len(raw) // 2] ^= 1
        path.write_bytes(bytes(raw))
    else:
        src = runs["tiny-gpt-rms"] / path.name
        path.write_bytes(b"\x00" * 64 if fault == "foreign" else src.read_bytes())
        manifest = read_manifest(folder)
        entry = next(c for c in manifest["checkpoints"] if c["step"] == 2)
        entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()  # hash matches
        (folder / "manifest.json").write_text(json.dumps(manifest))
    argv = ["--model", "tiny-gpt-ln", "--steps", "3", "--run", str(folder)]
    code = main(["train-geometry", *argv, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    want = {"corrupt": "is corrupt", "foreign": "not a safetensors file",
            "other twin": "belongs to 'tiny-gpt-rms'"}[fault]  # fmt: skip
    assert code == 2 and err.startswith("error: checkpoint ") and want in err, err
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()  # nothing measured


def test_an_out_that_is_a_file_is_refused_before_measuring(runs, tmp_path, capsys):
    from companion.cli import main

    afile = tmp_path / "afile"
    afile.write_text("x")
    argv = ["--model", "tiny-gpt-ln", "--steps", "3", "--run", str(runs["tiny-gpt-ln"])]
    code = main(["train-geometry", *argv, "--out", str(afile)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: argument --out: must be a folder; got ")
    assert err.count("\n") == 1


def test_settings_are_checked_before_anything_loads():
    with pytest.raises(ValueError, match="`calib_windows` must be"):
        GeometrySettings(calib_windows=2)
    with pytest.raises(ValueError, match="`p` must be"):
        GeometrySettings(p=1.5)


def test_bad_windows_data_and_models_are_refused_by_name(runs, data):
    """Each was a raw IndexError / AttributeError, or named another function's parameter."""
    from companion.llm.train import load_trained
    from companion.llm.train.corpus import split_windows
    from companion.llm.trajectory import geometry as geo

    net = load_trained("tiny-gpt-ln", 3, folder=runs["tiny-gpt-ln"])
    calib, _ = split_windows(data, "calibration", n_windows=8, context=16)
    val, _ = split_windows(data, "validation", n_windows=2, context=16)
    alien = calib.clone()
    alien[0, 0] = 300  # past the 256-byte vocabulary
    vocab = "must hold token ids in [0, 255] (the model's vocabulary); got ids in"
    cases = [
        (lambda: geo.linear_reads(net, alien), f"`windows` {vocab}"),
        (lambda: geo.norm_reads(net, alien), f"`windows` {vocab}"),
        (lambda: geo.flip_reads(net, alien, val, SMALL), f"`calib` {vocab}"),
        (lambda: geo.norm_reads(net, calib[:1, :8]), "`windows` must hold more than d = 32"),
        (lambda: geo.flip_reads(net, calib, val[:, :1], SMALL), "`windows` must be a 2-D"),
        (
            lambda: geo.measure_checkpoint(net, data[:200], SMALL),
            "`data` must give each of the calibration and validation splits more than the "
            "model's context of 16 bytes; got 10 and 10 of 200 bytes",
        ),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value).startswith(message), str(info.value)
    with pytest.raises(TypeError) as info:
        geo.measure_checkpoint(torch.nn.Linear(2, 2), data)
    assert str(info.value).startswith("`model` must be a trained-here twin"), str(info.value)


def test_committed_records_match_the_committed_manifests():
    """Every shipped trajectory record names a checkpoint of the committed manifests (step,
    SHA-256, validation loss), ≥ 8 checkpoints per twin."""
    from pathlib import Path

    from companion.chapters.dead_directions.training import records

    root = Path(__file__).resolve().parents[2] / "results" / "train"
    for model, rs in records("cpu").items():
        manifest = json.loads((root / f"{model}-2000steps.manifest.json").read_text("utf-8"))
        want = {c["step"]: c for c in manifest["checkpoints"]}
        assert len(rs) >= 8 and [r["step"] for r in rs] == sorted(want)
        for r in rs:
            assert r["sha256"] == want[r["step"]]["sha256"]
            assert r["val_loss"] == want[r["step"]]["val_loss"]
            assert r["norm"] == {"tiny-gpt-ln": "layernorm", "tiny-gpt-rms": "rmsnorm"}[model]


def test_kernel_control_needs_both_the_rms_twin_and_a_shuffled_gamma_to_lose_it(monkeypatch):
    """The trajectory claim's control deviates on the committed records; it would not if a
    shuffled γ kept the kernel (a read that is not γ-specific)."""
    import copy

    from companion.chapters.dead_directions.training import claims as tc
    from companion.chapters.dead_directions.training import records

    real = records("cpu")
    control = tc._kernel_control("cpu")
    assert not control.agrees and "243 of 243 reads called rmsnorm" in control.detail
    assert "every shuffled γ loses it too" in control.reason
    fake = copy.deepcopy(real)
    for r in fake["tiny-gpt-ln"]:
        for n in r["norms"]:
            n["shuffled_rho"] = [1e-15 for _ in n["shuffled_rho"]]
    monkeypatch.setattr(tc, "records", lambda scale="cpu": fake)
    kept = tc._kernel_control("cpu")
    assert kept.agrees and "kept a kernel: step 10" in kept.detail


def test_chapter_tables_read_the_records():
    """The Schur table and the 'what this model can say' rows: both twins at both ends,
    every number from the committed records (a changed record changes the text)."""
    import copy

    from companion.chapters.dead_directions import training as ch

    recs = ch.records("cpu")
    rows = ch.schur_rows(recs)
    assert [(r["model"], r["step"]) for r in rows] == [
        ("LayerNorm twin", 0), ("LayerNorm twin", 2000),
        ("RMSNorm twin", 0), ("RMSNorm twin", 2000),
    ]  # fmt: skip
    assert rows[1]["R(v*)"] == recs["tiny-gpt-ln"][-1]["profile"]["schur_ratio"]
    limits = ch.limits_rows(recs)
    keys = {"reading", "on the twins", "for Pythia-1B and TinyLlama"}
    assert len(limits) == 6 and all(set(r) == keys for r in limits)
    fake = copy.deepcopy(recs)
    fake["tiny-gpt-ln"][-1]["norms"][0]["gamma_spread"] = 7.25
    assert "is 7.25" in ch.limits_rows(fake)[1]["on the twins"]
    p = fake["tiny-gpt-ln"][-1]["profile"]
    p["schur_ratio"] = 0.01
    assert "rises" in ch.schur_sentence(fake) and "not set apart" in ch.schur_sentence(fake)
