"""The run commands and the ledger under faults (issue 13): a run killed without --resume,
results files cut short or corrupt, temporaries of killed conversions, progress bars."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from companion.llm import sign_flips as sf  # noqa: E402
from companion.results import read_jsonl  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

TINY_MODEL = """
import dataclasses, torch, transformers
from companion.llm import sign_flips as sf
cfg = transformers.LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128,
    num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
    max_position_embeddings=128)
torch.manual_seed(0)
model = transformers.LlamaForCausalLM(cfg).eval()
windows = torch.randint(0, 128, (6, 32), generator=torch.Generator().manual_seed(1))
TINY = dataclasses.replace(sf.setup("cpu"), eval_windows=3, window=32, calib_windows=3,
    seeds=2, leverage_seeds=2, min_calib_tokens=64, leverage_ps=(0.05, 0.01))
KW = dict(inputs=sf.Inputs(model=model, windows=windows[:3], calib=windows[3:]),
          options=sf.Options(setup=TINY), progress=False, command="test")
"""


def test_a_run_killed_without_resume_keeps_every_finished_record(tmp_path):
    """``run sign-flips`` without --resume deleted the results file after loading the model,
    so a kill one second later lost them; now a rerun replaces records as it goes."""
    ns: dict = {}
    exec(TINY_MODEL, ns)
    before = sf.run_experiment("leverage", "tiny", out=tmp_path, resume=True, **ns["KW"])
    path = Path(sf.results_path(tmp_path, "tiny", "leverage"))
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            TINY_MODEL
            + textwrap.dedent(
                f"""
                import time
                import companion.llm.evaluate as ev
                real, calls = ev.evaluate_nll, [0]
                def slow(*a, **k):
                    calls[0] += 1
                    if calls[0] == 3:  # two new records written, a third under way
                        print("evaluating", flush=True)
                        time.sleep(600)
                    return real(*a, **k)
                ev.evaluate_nll = slow
                sf.run_experiment("leverage", "tiny", out={str(tmp_path)!r}, resume=False, **KW)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "evaluating", child.stderr.read()
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        child.kill()
    after = {r["key"]: r for r in read_jsonl(path)}
    assert set(after) == {r["key"] for r in before}
    remeasured = [r["key"] for r in before if after[r["key"]]["time"] != r["time"]]
    assert 1 <= len(remeasured) < len(before)  # the rerun got part-way, nothing was lost


def _results_copy(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(ROOT / "results", root)
    return root


def _claims(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COMPANION_RESULTS=str(root), HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", "companion", "claims", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_claims_read_a_results_file_whose_last_line_is_truncated(tmp_path):
    """``companion claims`` died with a raw JSONDecodeError; now it reads the complete
    records and says, in one line, which file and line it skipped."""
    root = _results_copy(tmp_path)
    path = root / "sign_flips" / "smollm2-135m" / "leverage-cpu.jsonl"
    data = path.read_bytes()
    n = data.count(b"\n")
    path.write_bytes(data[: len(data) - 200])  # the last line loses its end
    out = _claims(root, "--id", "dong.real.count_matched_leverage", "--json")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "JSONDecodeError" not in out.stderr
    (warning,) = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert f"{path} line {n} is truncated" in warning
    assert json.loads(out.stdout)[0]["id"] == "dong.real.count_matched_leverage"
    assert path.read_bytes() == data[: len(data) - 200]  # reading leaves the file alone


def test_claims_name_a_corrupt_results_line_in_one_line(tmp_path):
    root = _results_copy(tmp_path)
    path = root / "sign_flips" / "smollm2-135m" / "alpha-cpu.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[0] = lines[0][:50] + "\n"
    path.write_text("".join(lines))
    out = _claims(root, "--id", "dong.real.alpha_energy_spearman")
    assert "Traceback" not in out.stderr and "JSONDecodeError" not in out.stderr
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].startswith("error: ")
    assert f"{path} line 1: " in out.stderr


def test_stale_conversion_folders_are_removed_at_the_next_load(tmp_path, monkeypatch):
    """A killed GGUF conversion left ``models/<name>.tmp<pid>`` (213 MB) forever."""
    from companion.llm.loading import load_model

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    models = tmp_path / "models"
    dead = models / "smollm2-135m-fp32.tmp999999999"
    live = models / f"smollm2-135m-fp32.tmp{os.getpid()}"
    for d in (dead, live):
        d.mkdir(parents=True)
        (d / "model.safetensors").write_bytes(b"\0" * 1024)
    load_model("gpt2", init="random", scale="smoke")
    assert not dead.exists() and live.exists()


def test_companion_progress_0_silences_bars_a_caller_asked_for(monkeypatch):
    """``diagnose`` passes ``disable=not show_progress``, which overrode the variable."""
    from companion.llm.progress import progress

    monkeypatch.setenv("COMPANION_PROGRESS", "0")
    assert progress(range(3), disable=False).disable
    monkeypatch.setenv("COMPANION_PROGRESS", "1")
    assert not progress(range(3), disable=False).disable


def test_build_outputs_of_pip_install_are_git_ignored():
    """``pip install .`` leaves setuptools' ``build/`` (and ``dist/`` of a wheel build) in
    the checkout; git must not offer them for a commit."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    for name in ("build/lib/companion/__init__.py", "dist/companion-0.whl"):
        out = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", name], check=False)
        assert out.returncode == 0, f"{name} is not git-ignored"


def _dead_line(kind: str, record: dict) -> str:
    if kind == "array":
        return "[1, 2]"
    if kind == "missing":
        return json.dumps({k: v for k, v in record.items() if k != "cos"})
    if kind == "type":
        return json.dumps({**record, "model": 3})
    text = json.dumps(record)  # a key named twice
    return text[:-1] + ', "cos": 0.5}'


@pytest.mark.parametrize(
    "kind, why",
    [
        ("array", "a record must be a JSON object; got a JSON array"),
        ("missing", "field 'cos': missing (a number)"),
        ("type", "field 'model': must be a string; got a number"),
        ("duplicate", "key 'cos' appears twice in one object"),
    ],
)
def test_a_record_of_the_wrong_shape_stops_claims_and_resume_in_one_line(tmp_path, kind, why):
    """A line that is JSON but not a record (issue 22) crashed both with a raw TypeError or
    KeyError; now both exit 2 with one line naming the file, the line and the field, and
    the run stops before any model loads."""
    root = _results_copy(tmp_path)
    path = root / "dead_directions" / "dead_directions.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = _dead_line(kind, json.loads(lines[2]))
    path.write_text("\n".join(lines) + "\n")
    env = dict(os.environ, COMPANION_RESULTS=str(root), HF_HUB_OFFLINE="1")
    run = [sys.executable, "-m", "companion", "run", "dead-directions", "--model", "gpt2",
           "--init", "random", "--resume"]  # fmt: skip
    for out in (
        _claims(root, "--id", "shirodkar.sigma_min_models"),
        subprocess.run(run, capture_output=True, text=True, env=env, timeout=600),
    ):
        assert out.returncode == 2, out.stderr
        assert "Traceback" not in out.stderr
        last = out.stderr.strip().splitlines()[-1]
        assert last.startswith("error: ") and f"{path} line 3: {why}" in last
