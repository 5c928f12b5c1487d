"""Every user error of the command line is one line ``error: ...`` naming the option, the
constraint and the value, with exit code 2 (issue 13: these printed raw tracebacks)."""

from __future__ import annotations

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
