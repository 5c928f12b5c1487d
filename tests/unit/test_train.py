"""The trained-here twins (issue 20): the model, its init, the byte splits, the trainer's
determinism and resume, hashed checkpoints and the ``companion train`` errors.

Everything trains a 1-block, width-32 model on synthetic bytes for a few steps (seconds);
the init statistics are measured on the full-size model (built, never trained).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm.train import (  # noqa: E402
    CheckpointError,
    TrainConfig,
    build_model,
    checkpoint_steps,
    learning_rate,
    load_trained,
    sign_cos2,
    train,
    verified,
)
from companion.llm.train.checkpoints import read_manifest, write_tensors  # noqa: E402
from companion.llm.train.corpus import split_ranges, split_windows, train_batch  # noqa: E402

TINY = dict(layers=1, width=32, heads=2)


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(0).integers(0, 256, 6000).astype(np.uint8)


def _cfg(model="tiny-gpt-ln", **kw):
    base = dict(steps=12, batch=4, context=16, eval_windows=4, resume_every=4, threads=1)
    return TrainConfig(model, **{**base, **TINY, **kw})


# ---------------------------------------------------------------------------- model and twin


def test_twins_differ_only_in_the_norms():
    ln, rms = build_model("tiny-gpt-ln", **TINY), build_model("tiny-gpt-rms", **TINY)
    norms = lambda m, cls: [n for n, x in m.named_modules() if isinstance(x, cls)]  # noqa: E731
    assert len(norms(ln, torch.nn.LayerNorm)) == 3 and not norms(ln, torch.nn.RMSNorm)
    assert norms(rms, torch.nn.RMSNorm) == norms(ln, torch.nn.LayerNorm)
    a, b = ln.state_dict(), rms.state_dict()
    extra = set(a) - set(b)
    assert extra == {f"{n}.bias" for n in norms(ln, torch.nn.LayerNorm)}  # β only
    assert set(b) <= set(a) and all(torch.equal(a[k], b[k]) for k in b)
    assert ln.config.vocab_size == 256 and ln.config.max_position_embeddings == 64


def test_the_engine_reads_each_twins_norm():
    from companion.llm.norms import find_final_norm

    for name, kind in (("tiny-gpt-ln", "layernorm"), ("tiny-gpt-rms", "rmsnorm")):
        fn = find_final_norm(build_model(name, **TINY))
        assert (fn.name, fn.kind) == ("gpt_neox.final_layer_norm", kind)


def test_init_is_gaussian_so_sign_cos2_starts_at_2_over_pi():
    """N(0, 0.02²) rows: cos²(w, sign w) = 2/π + (1 − 2/π)/n to first order in 1/n, within
    4 SE; control: PyTorch's default (uniform) nn.Linear rows sit at 3/4, far outside."""
    model = build_model("tiny-gpt-ln")
    rows: dict[int, list] = {}
    for m in model.modules():
        if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
            w = m.weight.detach().double().numpy()
            rows.setdefault(w.shape[1], []).append(w)
            assert abs(w.std() - 0.02) < 0.02 * 0.05 and abs(w.mean()) < 1e-3
    for n, ws in rows.items():
        w = np.concatenate(ws)
        c = np.abs(w).sum(1) ** 2 / (n * (w * w).sum(1))
        se = c.std(ddof=1) / math.sqrt(len(c))
        expected = 2 / math.pi + (1 - 2 / math.pi) / n
        assert abs(c.mean() - expected) < 4 * se, (n, c.mean(), expected, se)
        assert abs(sign_cos2(w) - c.mean()) < 1e-12
    torch.manual_seed(0)
    uniform = sign_cos2(torch.nn.Linear(128, 4096).weight)
    assert abs(uniform - (0.75 + 0.25 / 128)) < 0.002 and uniform - 2 / math.pi > 0.1


# ---------------------------------------------------------------------------- data


def test_splits_are_disjoint_byte_ranges_and_windows_stay_inside(data):
    r = split_ranges(len(data))
    assert r["train"][0] == 0 and r["calibration"][1] == len(data)
    assert r["train"][1] == r["validation"][0] and r["validation"][1] == r["calibration"][0]
    for step in range(20):
        x, y = train_batch(data, step, batch=8, context=16, seed=3)
        assert torch.equal(x, train_batch(data, step, batch=8, context=16, seed=3)[0])
        assert torch.equal(x[:, 1:], y[:, :-1])
    # every byte a train batch can touch lies below the validation range
    lo, hi = r["train"]
    starts = np.random.default_rng([3, 0]).integers(lo, hi - 16, size=10**5)
    assert starts.min() >= lo and starts.max() + 16 < hi
    for split in ("validation", "calibration"):
        x, y = split_windows(data, split, n_windows=1000, context=16)
        a, b = r[split]
        assert len(x) == (b - a - 1) // 16
        whole = torch.cat([x, y[:, -1:]], 1)
        assert torch.equal(whole[0], torch.from_numpy(data[a : a + 17].astype(np.int64)))
        assert int((x.shape[0] - 1) * 16 + 17 + a) <= b
    with pytest.raises(ValueError, match="`split` must be one of"):
        split_windows(data, "test", n_windows=1, context=8)


# ---------------------------------------------------------------------------- schedule


def test_schedule_and_log_spaced_checkpoints():
    cfg = TrainConfig("tiny-gpt-ln", steps=2000, warmup=100)
    lrs = [learning_rate(s, cfg) for s in range(2000)]
    assert lrs[:100] == sorted(lrs[:100]) and lrs[99] == pytest.approx(1e-3)
    assert lrs[100:] == sorted(lrs[100:], reverse=True)
    assert learning_rate(2000, cfg) == pytest.approx(1e-4)
    steps = checkpoint_steps(2000)
    assert steps[0] == 0 and steps[-1] == 2000 and 9 <= len(steps) <= 11
    ratios = np.diff(np.log(steps[1:]))
    assert np.allclose(ratios, ratios.mean(), atol=0.05)


# ---------------------------------------------------------------------------- trainer


def _hashes(manifest):
    return [(c["step"], c["sha256"]) for c in manifest["checkpoints"]]


def test_killed_and_resumed_run_is_bit_identical(tmp_path, data, capsys, monkeypatch):
    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    whole = train(_cfg(), folder=tmp_path / "a", data=data)
    assert whole["finished"] and [s for s, _ in _hashes(whole)] == checkpoint_steps(12)
    train(_cfg(), folder=tmp_path / "b", data=data, stop_after=5)  # stopped at step 5
    train(_cfg(), folder=tmp_path / "b", data=data, resume=True, stop_after=2)
    from companion.llm.train import corpus

    real = corpus.train_batch

    def killed_at_9(data, step, **kw):
        if step == 9:  # Ctrl-C inside the 10th update: the latest resume state is step 8
            raise KeyboardInterrupt
        return real(data, step, **kw)

    monkeypatch.setattr(corpus, "train_batch", killed_at_9)
    with pytest.raises(KeyboardInterrupt):
        train(_cfg(), folder=tmp_path / "b", data=data, resume=True)
    assert read_manifest(tmp_path / "b")["resume"]["step"] == 8
    monkeypatch.setattr(corpus, "train_batch", real)
    resumed = train(_cfg(), folder=tmp_path / "b", data=data, resume=True)
    assert _hashes(resumed) == _hashes(whole)
    assert capsys.readouterr().err == ""  # COMPANION_PROGRESS=0: no progress bar
    files = sorted(p.name for p in (tmp_path / "b").iterdir())
    assert [f for f in files if f.startswith("resume-")] == ["resume-000012.safetensors"]
    text = (tmp_path / "b" / "manifest.json").read_text()
    json.loads(text, parse_constant=lambda t: pytest.fail(f"not strict JSON: {t}"))
    # the twin, same seed and data: another trajectory, same step-0 linear weights
    rms = train(_cfg("tiny-gpt-rms", steps=3), folder=tmp_path / "r", data=data)
    a, _ = verified(tmp_path / "a", 0, model="tiny-gpt-ln")
    b, _ = verified(tmp_path / "r", 0, model="tiny-gpt-rms")
    assert all(torch.equal(a[k], v) for k, v in b.items())
    assert _hashes(rms)[1][1] != _hashes(whole)[1][1]
    net = load_trained("tiny-gpt-ln", 12, folder=tmp_path / "b")
    last, _ = verified(tmp_path / "a", 12)
    assert not net.training and all(torch.equal(v, last[k]) for k, v in net.state_dict().items())
    with pytest.raises(CheckpointError, match="belongs to 'tiny-gpt-ln'"):
        load_trained("tiny-gpt-rms", 12, folder=tmp_path / "b")


_KILLED = """
import sys, time
import numpy as np
from companion.llm.train import TrainConfig, corpus, train

real = corpus.train_batch


def stalls_at_9(data, step, **kw):
    if step == 9:
        print("stalled", flush=True)
        time.sleep(120)
    return real(data, step, **kw)


corpus.train_batch = stalls_at_9
data = np.random.default_rng(0).integers(0, 256, 6000).astype(np.uint8)
cfg = TrainConfig("tiny-gpt-ln", steps=12, batch=4, context=16, eval_windows=4,
                  resume_every=4, threads=1, layers=1, width=32, heads=2)
train(cfg, folder=sys.argv[1], data=data)
"""


def test_a_process_killed_with_sigkill_resumes_bit_identically(tmp_path, data, monkeypatch):
    """SIGKILL, not an exception: the process gets no chance to clean up. The folder it
    leaves is consistent and the resumed run's checkpoints are the uninterrupted run's."""
    import os
    import signal
    import subprocess
    import sys

    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    whole = train(_cfg(), folder=tmp_path / "whole", data=data)
    env = {**os.environ, "COMPANION_PROGRESS": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED, str(tmp_path / "killed")],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout.readline().strip() == "stalled"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    left = read_manifest(tmp_path / "killed")
    assert left["resume"]["step"] == 8 and not left["finished"]
    resumed = train(_cfg(), folder=tmp_path / "killed", data=data, resume=True)
    assert resumed["finished"] and _hashes(resumed) == _hashes(whole)


def test_a_resume_in_another_environment_is_warned(tmp_path, data, monkeypatch):
    import warnings

    from companion.llm.train.checkpoints import environment

    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    train(_cfg(), folder=tmp_path, data=data, stop_after=5)
    manifest = read_manifest(tmp_path)
    assert manifest["environment"] == environment()  # recorded with the run
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same environment: silent
        train(_cfg(), folder=tmp_path, data=data, resume=True, stop_after=2)
    manifest = read_manifest(tmp_path)
    manifest["environment"]["torch"] = "0.0"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.warns(UserWarning, match=r"another environment \(torch\)"):
        train(_cfg(), folder=tmp_path, data=data, resume=True)


def test_a_run_is_never_mixed_or_overwritten(tmp_path, data, monkeypatch):
    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    train(_cfg(steps=3), folder=tmp_path, data=data)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(CheckpointError, match="pass --resume"):
        train(_cfg(steps=3), folder=tmp_path, data=data)
    with pytest.raises(CheckpointError, match="trained 'tiny-gpt-ln', not 'tiny-gpt-rms'"):
        train(_cfg("tiny-gpt-rms", steps=3), folder=tmp_path, data=data, resume=True)
    with pytest.raises(CheckpointError, match=r"other settings \(lr\)"):
        train(_cfg(steps=3, lr=2e-3), folder=tmp_path, data=data, resume=True)
    with pytest.raises(CheckpointError, match="exists with other bytes"):
        write_tensors(tmp_path / "step-000001.safetensors", {"x": torch.zeros(2)}, {})
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    with pytest.raises(CheckpointError, match="belongs to 'tiny-gpt-ln', not to 'tiny-gpt-rms'"):
        verified(tmp_path, 3, model="tiny-gpt-rms")
    with pytest.raises(CheckpointError, match=r"`step` must be one of the run's checkpoints"):
        verified(tmp_path, 7)


def test_a_corrupt_or_foreign_checkpoint_is_refused(tmp_path, data, monkeypatch):
    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    train(_cfg(steps=3), folder=tmp_path, data=data)
    path = tmp_path / "step-000002.safetensors"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="is corrupt: its SHA-256"):
        verified(tmp_path, 2)
    with pytest.raises(CheckpointError, match="is corrupt: its SHA-256"):
        train(_cfg(steps=3), folder=tmp_path, data=data, resume=True)
    # a foreign file listed with its own (matching) hash: still refused, by its content
    import hashlib

    path.write_bytes(b"not a checkpoint")
    manifest = read_manifest(tmp_path)
    entry = next(c for c in manifest["checkpoints"] if c["step"] == 2)
    entry["sha256"] = hashlib.sha256(b"not a checkpoint").hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        verified(tmp_path, 2)
    with pytest.raises(CheckpointError, match="not a safetensors file"):  # nor resumed over
        train(_cfg(steps=3), folder=tmp_path, data=data, resume=True)
    # a manifest pointing outside its folder, or at an entry without a hash: refused whole
    for bad in ({"file": "../step-000002.safetensors"}, {"sha256": None}, {"step": -1}):
        (tmp_path / "manifest.json").write_text(
            json.dumps({**manifest, "checkpoints": [{**entry, **bad}]})
        )
        with pytest.raises(CheckpointError, match="lists a checkpoint without a step"):
            verified(tmp_path, 2)
    (tmp_path / "manifest.json").write_text('{"format": "companion-tiny-gpt/1", "x": NaN}')
    with pytest.raises(CheckpointError, match="not strict JSON"):
        verified(tmp_path, 2)
    (tmp_path / "manifest.json").write_text('{"format": "companion-tiny-gpt/1"}')
    with pytest.raises(CheckpointError, match="incomplete"):
        train(_cfg(steps=3), folder=tmp_path, data=data, resume=True)


# ---------------------------------------------------------------------------- command line


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model", "tiny-gpt"], "argument --model: invalid choice: 'tiny-gpt'"),
        (["--model", "tiny-gpt-ln", "--steps", "0"], "argument --steps: must be an integer >= 1"),
        (["--model", "tiny-gpt-ln", "--threads", "-1"], "argument --threads: must be"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    from companion.cli import main

    try:
        code = main(["train", *argv])
    except SystemExit as stop:  # argparse's own errors (a wrong choice) exit through _Parser
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1


def test_an_out_folder_that_is_a_file_or_unwritable_is_one_line(tmp_path, data, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match="`folder` must be a folder; got .*which is not one"):
        train(_cfg(steps=3), folder=afile, data=data)
    code = main_train(["--model", "tiny-gpt-ln", "--out", str(afile)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: argument --out: must be a folder; got ")
    assert err.count("\n") == 1 and afile.read_text() == "x"


def main_train(argv):
    from companion.cli import main

    return main(["train", *argv])


def test_cli_refuses_a_corrupt_run_with_exit_2(tmp_path, data, capsys, monkeypatch):
    from companion.cli import main

    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    (tmp_path / "manifest.json").write_text("{not json")
    code = main(["train", "--model", "tiny-gpt-ln", "--out", str(tmp_path), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: manifest ") and "not strict JSON" in err


# ---------------------------------------------------------------------------- the registry


def test_registry_lists_the_twins_as_trained_here():
    from companion.llm.registry import format_registry, get_spec, list_models

    here = [(s.name, s.norm) for s in list_models(source="trained-here")]
    assert here == [("tiny-gpt-ln", "layernorm"), ("tiny-gpt-rms", "rmsnorm")]
    assert get_spec("tiny-gpt-rms").width == build_model("tiny-gpt-rms").config.hidden_size
    rows = {line.split()[0]: line.split() for line in format_registry().splitlines()[2:-1]}
    assert rows["tiny-gpt-rms"][2] == "rmsnorm" and rows["tiny-gpt-rms"][6] == "trained-here"
    lines = format_registry().splitlines()
    col = lines[0].index("source")  # the longer source keeps every row's column aligned
    assert {line[col - 1 : col + 1][0] for line in lines[2:-1]} == {" "}
    assert {line[col:].split()[0] for line in lines[2:-1]} == {"hub", "offline", "trained-here"}


def test_load_model_routes_to_the_train_package(tmp_path, monkeypatch, data):
    from companion.llm.loading import load_model
    from companion.llm.train.trainer import run_folder

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    # init='random' is the train package's own twin: an RMSNorm, not a LayerNorm GPT-NeoX
    net, tok = load_model("tiny-gpt-rms", init="random")
    assert type(net.gpt_neox.final_layer_norm) is torch.nn.RMSNorm and tok is None
    ref = build_model("tiny-gpt-rms")
    assert all(
        torch.equal(a, b)
        for a, b in zip(net.state_dict().values(), ref.state_dict().values(), strict=True)
    )
    # no run yet: one error naming the command that makes one
    for kw in ({}, {"step": 3}):
        with pytest.raises(CheckpointError, match="`companion train --model tiny-gpt-ln`"):
            load_model("tiny-gpt-ln", **kw)
    cfg = TrainConfig("tiny-gpt-ln", steps=2000, batch=2, context=16, eval_windows=2, **TINY)
    train(cfg, folder=run_folder("tiny-gpt-ln", 2000), stop_after=12, data=data)
    last, _ = load_model("tiny-gpt-ln")  # the last checkpoint (step 10), unless a step is given
    first, _ = load_model("tiny-gpt-ln", step=0)
    want = load_trained("tiny-gpt-ln", 10)
    assert all(
        torch.equal(a, b)
        for a, b in zip(last.state_dict().values(), want.state_dict().values(), strict=True)
    )
    assert not torch.equal(
        last.get_output_embeddings().weight, first.get_output_embeddings().weight
    )
    with pytest.raises(ValueError, match=r"`step` must be one of the run's checkpoints \[0, 1"):
        load_model("tiny-gpt-ln", step=5)
    with pytest.raises(ValueError, match="`num_layers` must be None for trained-here"):
        load_model("tiny-gpt-ln", init="random", num_layers=2)
    with pytest.raises(ValueError, match="`step` must be None unless 'minilm-l6'"):
        load_model("minilm-l6", step=0)


def test_registry_wide_consumers_leave_the_twins_out():
    from companion.chapters.dead_directions.at_scale.tables import registry_table
    from companion.chapters.dead_directions.classifier import claims as classifier_claims
    from companion.llm import plan
    from companion.llm._checks import check_model_names

    with pytest.raises(ValueError, match="`random_models` must be one of"):
        check_model_names(["tiny-gpt-ln"], "random_models")
    steps = plan._dead_direction_steps("cpu", plan.colab_runtime("T4"), None, [])
    assert steps and not [s for s in steps if "tiny-gpt" in repr(s)]
    assert "tiny-gpt" not in repr(registry_table())
    assert 128 not in classifier_claims._rms_widths()  # the twin has no classifier records


def test_model_all_leaves_the_twins_out(monkeypatch, capsys):
    from argparse import Namespace

    from companion.llm.dead_directions import driver

    seen = []

    def record(name, **kw):
        seen.append(name)
        raise ValueError("not run here")

    monkeypatch.setattr(driver, "run_dead_directions", record)
    args = Namespace(model=["all"], init="random", scale="cpu", tokens=8, out=None, resume=False)
    assert driver.run_cli(args) == 2
    assert "gpt2" in seen and not [n for n in seen if n.startswith("tiny-gpt")]
