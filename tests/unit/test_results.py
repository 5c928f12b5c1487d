"""companion.results: one root, strict JSON lines that read back exactly, old files still read."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from companion import results

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "results").rglob("*.json*"))


def _strict(text: str):
    def refuse(token):
        raise ValueError(f"non-finite number {token} in strict JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("path", COMMITTED, ids=[p.relative_to(ROOT).as_posix() for p in COMMITTED])
def test_committed_result_files_are_strict_json(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        for line in text.splitlines():
            _strict(line)
    else:
        _strict(text)


def test_non_finite_values_round_trip_through_null_and_a_flag():
    rec = {"a": math.nan, "b": [1.0, math.inf, -math.inf], "c": {"x/y": math.nan, "d": 2}}
    line = results.dumps_strict(rec)
    plain = _strict(line)
    assert plain["a"] is None and plain["b"] == [1.0, None, None]
    assert plain["_nonfinite"] == {
        "/a": "NaN",
        "/b/1": "Infinity",
        "/b/2": "-Infinity",
        "/c/x~1y": "NaN",
    }
    back = results.loads_strict(line)
    assert math.isnan(back["a"]) and back["b"][1:] == [math.inf, -math.inf]
    assert math.isnan(back["c"]["x/y"]) and back["c"]["d"] == 2 and "_nonfinite" not in back


def test_finite_records_are_written_as_before():
    rec = {"b": 1.5, "a": [1, 2], "s": "x"}
    assert results.dumps_strict(rec) == json.dumps(rec, sort_keys=True)


def test_legacy_lines_with_bare_nan_still_read(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text('{"v": NaN, "w": Infinity}\n\n{"v": 1}\n')
    recs = results.read_jsonl(path)
    assert math.isnan(recs[0]["v"]) and recs[0]["w"] == math.inf and recs[1] == {"v": 1}


def test_a_broken_line_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"v": 1}\n{"v": \n')
    with pytest.raises(ValueError, match=r"bad\.jsonl line 2"):
        results.read_jsonl(path)


def test_store_writes_strict_lines_and_reads_them_back(tmp_path):
    store = results.ResultStore(tmp_path / "x" / "r.jsonl")
    store.append({"key": "k1", "gap": math.inf}, command="test")
    (line,) = (tmp_path / "x" / "r.jsonl").read_text().splitlines()
    assert _strict(line)["gap"] is None
    assert store.records()[0]["gap"] == math.inf and store.done("k1")


def test_the_results_root(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_RESULTS", str(tmp_path))
    assert results.results_root() == tmp_path == results.results_root(write=True)
    assert results.experiment_dir("sign_flips") == tmp_path / "sign_flips"
    monkeypatch.delenv("COMPANION_RESULTS")
    # this test runs from the checkout: its results/ is the root for reading and writing
    assert results.results_root() == ROOT / "results" == results.results_root(write=True)


def test_locate_prefers_the_written_copy(monkeypatch, tmp_path):
    """Outside a checkout, new records (user folder) shadow the shipped ones."""
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    (shipped / "e").mkdir(parents=True)
    (shipped / "e" / "a.jsonl").write_text("{}\n")
    (shipped / "e" / "b.jsonl").write_text("{}\n")
    (user / "companion" / "results" / "e").mkdir(parents=True)
    (user / "companion" / "results" / "e" / "b.jsonl").write_text("{}\n")
    monkeypatch.delenv("COMPANION_RESULTS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(user))
    monkeypatch.setattr(results, "_checkout_results", lambda: None)
    monkeypatch.setattr(results, "SHIPPED", shipped)
    assert results.results_root() == shipped
    assert results.results_root(write=True) == user / "companion" / "results"
    assert results.locate("e", "a.jsonl") == shipped / "e" / "a.jsonl"
    assert results.locate("e", "b.jsonl") == user / "companion" / "results" / "e" / "b.jsonl"
    assert results.locate("e", "new.jsonl") == user / "companion" / "results" / "e" / "new.jsonl"


def test_results_module_is_torch_free():
    import subprocess
    import sys

    code = "import sys, companion.results; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
