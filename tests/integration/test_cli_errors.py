"""Every user error of the command line is one line ``error: ...`` naming the option, the
constraint and the value, with exit code 2 (issue 13: these printed raw tracebacks)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")

from companion import cli  # noqa: E402
from companion.llm import hub  # noqa: E402

SF = ["run", "sign-flips", "--experiment", "table1"]
DD = ["run", "dead-directions"]

CASES = [
    (
        SF + ["--model", "nope"],
        "error: argument --model: must be a registered model (gpt2, ",
        "; got 'nope'",
    ),
    (
        SF + ["--model", "tinyllama-1.1b"],
        "error: argument --model: must be a model whose trained weights can be loaded here; "
        "got 'tinyllama-1.1b', whose weights are on the Hugging Face hub",
        "HF_HUB_OFFLINE=1 is set; offline alternative: 'smollm2-135m'",
    ),
    (SF + ["--model", "smollm2-135m", "--seeds", "0"], "error: argument --seeds: ", ">= 1; got 0"),
    (
        SF + ["--model", "minilm-l6"],
        "error: argument --model: must be a causal language model",
        "got 'minilm-l6', an encoder (bert)",
    ),
    (  # Table 1 reads Whisper's weights; the NLL experiments need a language model
        ["run", "sign-flips", "--experiment", "outlier", "--model", "whisper-tiny-en-decoder"],
        "error: argument --model: must be a causal language model",
        "got 'whisper-tiny-en-decoder', a speech model (whisper)",
    ),
    (SF + ["--model", "smollm2-135m", "--device", "tpu"], "error: argument --device: ", "'tpu'"),
    (DD + ["--model", "gpt2", "--device", "tpu"], "error: argument --device: ", "got 'tpu'"),
    (
        DD + ["--model", "gpt2", "--init", "random", "--layers", str(10**6)],
        "error: argument --layers: must be an integer in [1, 12]",
        "got 1000000",
    ),
    (DD + ["--model", "gpt2", "--tokens", "0"], "error: argument --tokens: ", "got 0"),
    (["claims", "--id", "nope"], "error: unknown claim id 'nope'", "companion claims --list"),
    (["claims", "--paper", "nope"], "error: argument --paper: invalid choice: 'nope'", ""),
    (SF + ["--model", "x", "--seeds", "two"], "error: argument --seeds: invalid int", "'two'"),
    # issue 22: every setting checked before a model loads, sizes bounded by their memory
    (
        DD + ["--model", "gpt2", "--init", "random", "--out", "/proc/nope"],
        "error: argument --out: must be a folder this process can write; got '/proc/nope'",
        ")",
    ),
    (
        DD + ["--model", "gpt2", "--init", "random", "--out", "/dev/null"],
        "error: argument --out: must be a folder; got '/dev/null', which is not a folder",
        "",
    ),
    (
        DD + ["--model", "gpt2", "--init", "random", "--out", ""],
        "error: argument --out: must name a folder; got ''",
        "(leave --out out for the default)",
    ),
    (
        SF + ["--model", "smollm2-135m", "--out", "/dev/null"],
        "error: argument --out: must be a folder; got '/dev/null'",
        "",
    ),
    (
        SF + ["--model", "smollm2-135m", "--seeds", str(10**12)],  # a MemoryError after 26 s
        "error: argument --seeds: must fit in this machine's memory (",
        "(at least 1024 bytes a seed: its record and flips)",
    ),
    (
        DD + ["--model", "gpt2", "--tokens", str(10**12)],
        "error: argument --tokens: must fit in this machine's memory (",
        "(~16 bytes a token: ids, text and statistics)",
    ),
    (
        DD + ["--model", "all", "--init", "random", "--layers", "100"],  # was 22 lines
        "error: argument --layers: must be an integer in [1, 4] with --model all",
        "(the shallowest, whisper-tiny-en-decoder, has 4 blocks); got 100",
    ),
]
NO_CUDA = [
    (SF + ["--model", "smollm2-135m", "--device", "cuda"], "error: argument --device: ", "'cuda'"),
    (DD + ["--model", "gpt2", "--device", "cuda:0"], "error: argument --device: ", "'cuda:0'"),
]


def _run(argv, capsys) -> tuple[int, str]:
    try:
        rc = cli.main(argv)
    except SystemExit as stop:  # argparse's own errors
        rc = stop.code
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("argv, start, end", CASES, ids=[" ".join(c[0][:5]) for c in CASES])
def test_user_error_is_one_line_with_exit_code_2(argv, start, end, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rc, err = _run(argv, capsys)
    assert rc == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith(start) and end in line, line


@pytest.mark.skipif(
    __import__("torch").cuda.is_available(), reason="a machine with a GPU has --device cuda"
)
@pytest.mark.parametrize("argv, start, end", NO_CUDA, ids=[c[0][1] for c in NO_CUDA])
def test_a_missing_gpu_is_one_line(argv, start, end, capsys):
    rc, err = _run(argv, capsys)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(start) and "torch sees 0 CUDA GPUs" in line and end in line


def test_an_unreachable_hub_is_decided_at_once_and_said_truly(capsys, monkeypatch):
    """Without HF_HUB_OFFLINE, a hub model retried for 27 s and then claimed the variable
    was set. Now one connection attempt decides, and the message says what happened."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: refused
    monkeypatch.setattr(hub, "_PROBED", {})
    t0 = time.perf_counter()
    rc, err = _run(SF + ["--model", "tinyllama-1.1b"], capsys)
    assert time.perf_counter() - t0 < 10
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert "http://127.0.0.1:9 is not reachable from here" in line
    assert "HF_HUB_OFFLINE" not in line


def test_a_bug_keeps_its_traceback(capsys, monkeypatch):
    """Only user errors become one line: an internal KeyError is not hidden."""
    import companion.llm.registry as reg

    monkeypatch.setattr(reg, "format_registry", lambda: {}["boom"])
    with pytest.raises(KeyError):
        cli.main(["models"])


def test_the_installed_command_prints_no_traceback():
    out = subprocess.run(
        [sys.executable, "-m", "companion", *SF, "--model", "nope"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and out.stderr.startswith("error: argument --model: ")
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_out_that_is_a_file_is_refused_before_any_model_loads(tmp_path, capsys, monkeypatch):
    """``--out`` pointing at a file computed the whole diagnosis first (issue 22)."""
    import companion.llm.loading as loading

    def never(*a, **k):
        raise AssertionError("a model was loaded before --out was checked")

    monkeypatch.setattr(loading, "load_model", never)
    afile = tmp_path / "a-file"
    afile.write_text("mine\n")
    rc, err = _run(DD + ["--model", "gpt2", "--init", "random", "--out", str(afile)], capsys)
    assert rc == 2 and err.strip() == (
        f"error: argument --out: must be a folder; got {str(afile)!r}, which is not a folder"
    )
    assert afile.read_text() == "mine\n"
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if not os.access(ro, os.W_OK):  # root writes to read-only folders
            rc, err = _run(DD + ["--model", "gpt2", "--init", "random", "--out", str(ro)], capsys)
            assert rc == 2 and "must be a folder this process can write" in err
    finally:
        ro.chmod(0o700)


def test_companion_scale_bogus_is_one_error_where_the_scale_is_read():
    """COMPANION_SCALE=bogus broke every command at import, `companion models` included."""
    env = dict(os.environ, COMPANION_SCALE="bogus")
    models = subprocess.run(
        [sys.executable, "-m", "companion", "models"], capture_output=True, text=True, env=env
    )
    assert models.returncode == 0 and "gpt2" in models.stdout, models.stderr
    read = subprocess.run(
        [sys.executable, "-c", "from companion.scale import SCALE"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert read.returncode == 1
    assert read.stderr.strip().splitlines()[-1] == (
        "ValueError: `COMPANION_SCALE` must be one of 'cpu', 'full', 'smoke'; got 'bogus'"
    )


def test_claims_list_controls_lists_each_claims_control(capsys):
    """``claims --list --controls`` ignored --controls."""
    from companion import ledger

    assert cli.main(["claims", "--list", "--controls"]) == 0
    lines = capsys.readouterr().out.splitlines()
    claims = ledger.all_claims(None)
    assert len(lines) == len(claims)
    for line, c in zip(lines, claims, strict=True):
        assert line.startswith(f"{c.id}  ({c.evidence})  control: ")
        assert line.endswith(c.control_method or c.control_none)
    assert cli.main(["claims", "--list"]) == 0
    assert "control:" not in capsys.readouterr().out


def test_smoke_scale_checks_and_records_what_it_builds(tmp_path):
    """At the smoke scale a text model is one block of width 32: ``--tokens 100`` was refused
    as "must be > d = 768", and ``--init trained`` records said ``"layers": 12``."""
    from companion.llm.dead_directions import run_dead_directions

    rec = run_dead_directions(
        "gpt2", init="trained", scale="smoke", tokens=100, out=str(tmp_path), show_progress=False
    )
    assert (rec["d"], rec["layers"], rec["settings"]["tokens"]) == (32, 1, 100)
    with pytest.raises(ValueError, match=r"`tokens` must be > d = 32 for model 'gpt2'"):
        run_dead_directions("gpt2", init="random", scale="smoke", tokens=32, out=str(tmp_path))
