"""Records read through one schema (issue 22): a line that is JSON but not a record of its file
is refused in one line naming the file, the line and the field; appends are O(1) and reads
incremental, with a forced rerun's record replacing the old one."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from companion import results
from companion.results import schema as sch

ROOT = Path(__file__).resolve().parents[2]
DEAD = ROOT / "results" / "dead_directions" / "dead_directions.jsonl"


def _dead_record() -> dict:
    return json.loads(DEAD.read_text().splitlines()[0])


def _with_line(tmp_path: Path, name: str, line: str) -> Path:
    path = tmp_path / name
    good = json.dumps(_dead_record() | {"key": "first"})
    path.write_text(good + "\n" + line + "\n")
    return path


def _dup(record: dict, field: str) -> str:
    text = json.dumps(record)
    return text[:-1] + f", {json.dumps(field)}: {json.dumps(record[field])}}}"


BAD_LINES = [
    ("[1, 2]", "a record must be a JSON object; got a JSON array"),
    ("42", "a record must be a JSON object; got a JSON number"),
    ("null", "a record must be a JSON object; got a JSON null"),
    ('"text"', "a record must be a JSON object; got a JSON string"),
    (json.dumps({k: v for k, v in _dead_record().items() if k != "model"}),
     "field 'model': missing (a string)"),
    (json.dumps({k: v for k, v in _dead_record().items() if k != "cos"}),
     "field 'cos': missing (a number)"),
    (json.dumps(_dead_record() | {"cos": "0.9"}), "field 'cos': must be a number; got a string"),
    (json.dumps(_dead_record() | {"layers": 1.5}),
     "field 'layers': must be an integer; got a number"),
    (json.dumps(_dead_record() | {"profile_degenerate": 1}),
     "field 'profile_degenerate': must be a boolean; got a number"),
    (json.dumps(_dead_record() | {"d": True}), "field 'd': must be an integer; got a boolean"),
    (_dup(_dead_record(), "model"), "key 'model' appears twice in one object"),
    (json.dumps(_dead_record() | {"_nonfinite": {"/nope": "NaN"}}),
     "field '_nonfinite' points at '/nope', which the record does not hold"),
    (json.dumps(_dead_record() | {"_nonfinite": ["/cos"]}),
     "field '_nonfinite' must be an object; got list"),
]  # fmt: skip


@pytest.mark.parametrize("line, why", BAD_LINES, ids=[w[:40] for _, w in BAD_LINES])
def test_a_line_that_is_json_but_not_a_record_is_refused_naming_file_line_and_field(
    tmp_path, line, why
):
    path = _with_line(tmp_path, "dead_directions.jsonl", line)
    msg = f"`path` must hold dead-direction records; {path} line 2: {why}"
    for read in (results.read_jsonl, results.ResultStore):
        with pytest.raises(results.CorruptResults) as info:
            read(path)
        assert str(info.value) == msg and isinstance(info.value, results.RecordError)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("line", ["[1, 2]", "42", "null", '{"key": 3}', '{"key": "a", "key": "b"}'])
def test_every_file_refuses_lines_that_are_no_record(tmp_path, line):
    path = tmp_path / "anything.jsonl"
    path.write_text('{"key": "k0"}\n' + line + "\n")
    with pytest.raises(results.CorruptResults, match=rf"{path.name} line 2: "):
        results.read_jsonl(path)


def test_each_experiment_file_has_its_schema():
    assert results.schema_for(DEAD) is sch.DEAD_DIRECTIONS
    assert results.schema_for("x/theorem3/table2-cpu.jsonl") is sch.THEOREM3
    assert results.schema_for("x/multilayer/expb-smoke.jsonl") is sch.MULTILAYER
    assert results.schema_for("x/gpt2/outlier-random-cpu.jsonl") is sch.SIGN_FLIPS
    assert results.schema_for("x/walk/walk-cpu.jsonl") is sch.BASE
    assert results.schema_for("x/sigma_split_smoke/sigma_split.jsonl") is sch.SIGMA_SPLIT
    assert results.schema_for("x/walk/walk.jsonl") is sch.WALK
    assert results.schema_for("x/train/trajectory.jsonl") is sch.TRAJECTORY


@pytest.mark.parametrize(
    "folder, name, drop, why",
    [
        ("sigma_split", "sigma_split.jsonl", "model", "field 'model': missing (a string)"),
        ("sigma_split", "sigma_split.jsonl", "split_mlp", "field 'split_mlp': missing (an array)"),
        ("walk", "walk.jsonl", "curves", "field 'curves': missing (an object)"),
        ("train", "trajectory.jsonl", "norms", "field 'norms': missing (an array)"),
    ],
)
def test_records_of_the_later_experiments_are_read_through_their_schema(
    tmp_path, folder, name, drop, why
):
    """A sigma-split record without "model" was a KeyError in ``companion claims``, one
    without "split_mlp" an IndexError: their files had no schema (nor walk's, training's)."""
    first = (ROOT / "results" / folder / name).read_text().splitlines()[0]
    rec = json.loads(first)
    rec.pop(drop)
    path = tmp_path / name
    path.write_text(first + "\n" + json.dumps(rec | {"key": "other"}) + "\n")
    with pytest.raises(results.RecordError, match=rf"{name} line 2: {re.escape(why)}$"):
        results.ResultStore(path)


def test_committed_records_satisfy_their_schemas():
    for path in sorted((ROOT / "results").rglob("*.jsonl")):
        assert results.read_jsonl(path), path  # raises RecordError on any record


def test_an_append_that_breaks_the_schema_is_refused_before_writing(tmp_path):
    path = tmp_path / "dead_directions.jsonl"
    store = results.ResultStore(path)
    with pytest.raises(results.RecordError, match="field 'init': missing"):
        store.append({"key": "k", "model": "gpt2"}, command="test")
    assert not path.exists()
    rec = _dead_record() | {"key": "k"}
    store.append(rec, command="test")
    assert store.records()[0]["cos"] == rec["cos"]


def test_a_forced_rerun_appends_and_its_record_replaces_the_old_one(tmp_path):
    path = tmp_path / "r.jsonl"
    store = results.ResultStore(path)
    for key, value in (("a", 1.0), ("b", 2.0), ("a", 3.0)):
        store.append({"key": key, "value": value}, command="test")
    assert [(r["key"], r["value"]) for r in store.records()] == [("b", 2.0), ("a", 3.0)]
    assert [(r["key"], r["value"]) for r in results.read_jsonl(path)] == [("b", 2.0), ("a", 3.0)]
    assert results.ResultStore(path).get("a")["value"] == 3.0 and store.get("zz") is None


def test_a_replaced_record_leaves_one_line_per_key(tmp_path):
    path = tmp_path / "r.jsonl"
    store = results.ResultStore(path)
    for i in range(20):
        store.append({"key": f"k{i % 3}", "value": float(i)}, command="test")
    assert path.read_text().count("\n") == 3
    assert [(r["key"], r["value"]) for r in store.records()] == [
        ("k2", 17.0), ("k0", 18.0), ("k1", 19.0)
    ]  # fmt: skip
    assert store.records() == results.read_jsonl(path)
    lines = path.read_text().splitlines()  # a file with a key twice (an older writer): the later
    k0 = next(line for line in lines if '"key": "k0"' in line)
    path.write_text("\n".join(lines + [k0.replace('"value": 18.0', '"value": 5.0')]) + "\n")
    assert [(r["key"], r["value"]) for r in results.read_jsonl(path)][-1] == ("k0", 5.0)
    assert len(results.read_jsonl(path)) == 3


def test_an_append_reads_nothing_but_the_lines_other_writers_added(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    a, b = results.ResultStore(path), results.ResultStore(path)
    for i in range(50):
        a.append({"key": f"a{i}", "value": 1.0}, command="test")
    b.append({"key": "b0", "value": 2.0}, command="test")  # reads a's 50 lines, once
    seen = []
    real = results.jsonl.scan

    def spy(p, *, start=0, first_line=1, schema=None):
        seen.append((start, first_line))
        return real(p, start=start, first_line=first_line, schema=schema)

    monkeypatch.setattr(results.store, "scan", spy)
    b.append({"key": "b1", "value": 2.0}, command="test")
    a.append({"key": "a50", "value": 1.0}, command="test")
    assert all(start > 0 for start, _ in seen)  # never from the start of the file
    assert [r["key"] for r in a.records()][-3:] == ["b0", "b1", "a50"]
    assert a.records() == b.records() == results.read_jsonl(path)


def test_a_file_rewritten_in_place_is_read_again(tmp_path):
    path = tmp_path / "r.jsonl"
    store = results.ResultStore(path)
    store.append({"key": "a", "value": 1.0}, command="test")
    store.append({"key": "b", "value": 2.0}, command="test")
    text = path.read_text().replace('"value": 1.0', '"value": 7.0')
    with open(path, "r+") as fh:  # same inode, same size
        fh.write(text)
    assert [r["value"] for r in store.records()] == [7.0, 2.0]
    os.truncate(path, 0)
    assert store.records() == []


def test_records_are_copies(tmp_path):
    store = results.ResultStore(tmp_path / "r.jsonl")
    store.append({"key": "a", "value": 1.0}, command="test")
    store.records()[0]["value"] = 99.0
    assert store.records()[0]["value"] == 1.0


def test_run_record_resumes_from_the_index(tmp_path):
    store = results.ResultStore(tmp_path / "r.jsonl")
    calls = []
    first = results.run_record(store, {"p": 1}, lambda: calls.append(1) or {"v": 1.0})
    again = results.run_record(store, {"p": 1}, lambda: calls.append(1) or {"v": 2.0})
    assert calls == [1] and again["v"] == first["v"] == 1.0


def test_run_record_with_a_key_of_its_own_times_and_resumes(tmp_path):
    """String-keyed runners (sign flips, the chapters' tables) use the same helper: skip if
    done, else time, compute, append; no "settings" field when none is given."""
    store = results.ResultStore(tmp_path / "r.jsonl")
    calls = []

    def measure():
        calls.append(1)
        return {"v": 1.0}

    rec = results.run_record(store, None, measure, key="table2|p=0.05", timed="wall_s")
    assert rec["key"] == "table2|p=0.05" and "settings" not in rec and rec["wall_s"] >= 0
    t0 = time.perf_counter() - 5.0  # work before the call that belongs to the record
    again = results.run_record(store, None, measure, key="table2|p=0.05", timed="wall_s")
    assert calls == [1] and again == store.get("table2|p=0.05")
    forced = results.run_record(
        store, None, measure, key="table2|p=0.05", resume=False, timed="wall_s", since=t0
    )
    assert calls == [1, 1] and forced["wall_s"] >= 5.0 and len(store.records()) == 1
    both = results.run_record(store, {"p": 2}, lambda: {"v": 2.0}, key="mine")
    assert both["key"] == "mine" and both["settings"] == {"p": 2}


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(settings=None), TypeError, "`key` must be given when `settings` is None"),
        (dict(key=""), TypeError, "`key` must be a non-empty str; got ''"),
        (dict(timed=3), TypeError, "`timed` must be a field name"),
        (dict(since=1.0), TypeError, "`since` must only be given with `timed`"),
        (dict(timed="v"), ValueError, r"other values of the fields run_record writes .*'v'"),
        (dict(measure=lambda: {"key": "other"}), ValueError, r"\['key'\]"),
        (dict(store=object()), TypeError, "`store` must be a ResultStore"),
        (dict(measure=lambda: [1]), TypeError, "`measure` must return a dict; got list"),
    ],
)
def test_run_record_refuses_in_one_line_and_writes_nothing(tmp_path, kwargs, exc, match):
    store = results.ResultStore(tmp_path / "r.jsonl")
    args = dict(store=store, settings={"p": 1}, measure=lambda: {"v": 1.0}) | kwargs
    with pytest.raises(exc, match=match):
        results.run_record(**args)
    assert store.records() == []


def test_run_record_takes_a_view_of_a_store(tmp_path):
    """A runner's view (get decides what counts as done; append adds its metadata) is
    accepted: what sign flips' _Store needs to use the helper."""
    inner = results.ResultStore(tmp_path / "r.jsonl")

    class View:
        def __init__(self):
            self.written = set()

        def get(self, key):
            return inner.get(key) if key in self.written else None  # no resume

        def append(self, rec, *, command=None):
            out = inner.append({**rec, "model": "m"}, command=command or "view")
            self.written.add(out["key"])
            return out

    view = View()
    inner.append({"key": "a", "v": 0.0}, command="old")
    rec = results.run_record(view, None, lambda: {"v": 1.0}, key="a", timed="wall_s")
    assert rec["v"] == 1.0 and rec["model"] == "m" and inner.get("a")["command"] == "view"
    again = results.run_record(view, None, lambda: {"v": 2.0}, key="a")
    assert again["v"] == 1.0  # written by this run: done


def test_a_reader_waits_for_a_writer_mid_line_instead_of_calling_it_truncated(tmp_path):
    """Appends are not atomic renames any more: a reader that meets a line without its
    newline while a writer holds the folder's lock reads it again once the lock is free."""
    import threading
    import warnings

    from companion.results.store import locked

    path = tmp_path / "r.jsonl"
    store = results.ResultStore(path)
    store.append({"key": "a", "value": 1.0}, command="test")
    line = results.dumps_strict({"key": "b", "value": 2.0}).encode()
    with locked(str(tmp_path)):
        with open(path, "ab") as fh:
            fh.write(line[:10])
        got = []
        threads = [
            threading.Thread(target=lambda: got.append(results.read_jsonl(path))),
            threading.Thread(target=lambda: got.append(results.ResultStore(path).records())),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("error", results.ResultsWarning)
            for t in threads:
                t.start()
            threads[0].join(0.3)
            assert threads[0].is_alive() and threads[1].is_alive()  # waiting for the lock
            with open(path, "ab") as fh:
                fh.write(line[10:] + b"\n")
    for t in threads:
        t.join(10)
    assert [[r["key"] for r in recs] for recs in got] == [["a", "b"], ["a", "b"]]


def test_a_sign_flip_record_is_checked_by_its_kind(tmp_path):
    """A leverage point without its p crashed the ledger with a KeyError deep in a summary."""
    src = ROOT / "results" / "sign_flips" / "smollm2-135m" / "leverage-cpu.jsonl"
    lines = src.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if json.loads(line)["key"].startswith("leverage|"))
    rec = json.loads(lines[n])
    del rec["p"]
    lines[n] = json.dumps(rec)
    path = tmp_path / "leverage-cpu.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(results.RecordError) as info:
        results.read_jsonl(path)
    assert str(info.value) == (
        f"`path` must hold sign-flip records; {path} line {n + 1}: field 'p': missing "
        "(a number, which a 'leverage' record holds)"
    )
