"""The smoke scale: every ``scale="full"`` path of the book runs, with tiny sizes, in seconds.

``COMPANION_SCALE=smoke`` selects each chapter's ``SIZES["smoke"]``: the full-scale code path
(hub models, results written and read back, claims measured on them) with tiny random-init
models and a handful of samples, writing into a temporary results root. So a Colab user's
``scale="full"`` never meets a path no test ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion import ledger
from companion.chapters import CHAPTERS

ROOT = Path(__file__).resolve().parents[2]
AT_SCALE = [c for c in CHAPTERS if c.endswith("/at_scale")]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """One smoke results root for the module, holding the committed results (as a package
    install ships them); the claims read what the chapters wrote beside them."""
    root = tmp_path_factory.mktemp("smoke") / "results"
    shutil.copytree(ROOT / "results", root)
    return root


def _env(results: Path) -> dict:
    return dict(
        os.environ,
        COMPANION_SCALE="smoke",
        COMPANION_RESULTS=str(results),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        COMPANION_PROGRESS="0",
        MPLBACKEND="Agg",
    )


def test_hub_models_are_tiny_random_builds_at_smoke_scale():
    pytest.importorskip("transformers")
    from companion.llm.loading import load_model

    model, tok = load_model("tinyllama-1.1b", init="trained", scale="smoke")
    assert type(model).__name__ == "LlamaForCausalLM" and model.config.hidden_size == 32
    assert model.config.num_hidden_layers == 1 and tok is not None
    image, none = load_model("vit-base", scale="smoke")
    assert image.config.hidden_size == 32 and none is None


@pytest.mark.parametrize("chapter", AT_SCALE)
def test_at_scale_chapter_runs_its_full_path_at_smoke_scale(chapter, results):
    """The chapter runs its experiments (none are stored at smoke scale), draws from the
    records it wrote, and measures its claims on them."""
    pytest.importorskip("transformers")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax"]
        + [f"book/{chapter}.md"],
        cwd=ROOT,
        env=_env(results),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    part = chapter.split("/")[0]
    folder = results / ("sign_flips" if part == "sign_magnitude" else "dead_directions_smoke")
    assert any(folder.rglob("*-smoke.jsonl")) or any(folder.rglob("dead_directions.jsonl")), (
        f"the smoke run wrote no records under {folder}"
    )


def test_every_claim_runs_at_smoke_scale(results, tmp_path, not_run_here):
    """``companion claims --scale smoke --full``: every measure at its smoke sizes, the heavy
    ones on the records the chapters wrote (or after running the experiments on tiny models)."""
    pytest.importorskip("transformers")
    run = subprocess.run(
        [sys.executable, "-m", "companion", "claims", "--scale", "smoke", "--full", "--json"],
        cwd=tmp_path,
        env=_env(results),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    out = json.loads(run.stdout)
    assert [r["id"] for r in out] == [c.id for c in ledger.all_claims()]
    not_run = sorted(r["id"] for r in out if r["status"] == "not-run")
    # beside what needs the PDF, the hub or a GPU, the claim on trained pre-LN σ_min
    # profiles: the smoke scale builds its models at random init
    assert set(not_run) == not_run_here | {"shirodkar.sigma_min_models"}, not_run
    assert all(r["status"] != "deviates" or r["reason"] for r in out)
