"""Results under faults (issue 13): a writer killed inside its write window, a file whose last
line was cut short, a corrupt line, two writers at once, temporaries of killed processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from companion import results

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "results").rglob("*.jsonl"))


def _fill(path: Path, n: int) -> list[dict]:
    store = results.ResultStore(path)
    for i in range(n):
        store.append({"key": f"k{i}", "value": i + 0.5}, command="test")
    return store.records()


def _strict_lines(path: Path) -> list[dict]:
    def refuse(token):
        raise ValueError(f"non-finite {token}")

    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line, parse_constant=refuse) for line in text.splitlines()]


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _killed_inside(path: Path, stalled: str, call: str) -> subprocess.Popen:
    """A child that runs ``call`` on ``path`` with ``os.<stalled>`` stalling, killed there."""
    child = _child(
        f"""
        import os, sys, time
        from companion import results
        real = os.{stalled}
        def stall(*args):  # inside the write window
            print("in-write", flush=True)
            time.sleep(600)
        os.{stalled} = stall
        path = {str(path)!r}
        {call}
        """
    )
    try:
        assert child.stdout.readline().strip() == "in-write", child.stderr.read()
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
    return child


def test_sigkill_inside_the_rewrite_window_keeps_the_file_and_the_next_open_cleans_up(tmp_path):
    """A rewrite (write_jsonl, a compaction) killed between writing its temporary and renaming
    it: the file keeps every finished record, and the temporary it left is removed when a
    store next opens the folder (it was left forever before)."""
    path = tmp_path / "r.jsonl"
    before = _fill(path, 3)
    child = _killed_inside(
        path, "fsync", "results.write_jsonl(path, [{'key': 'k3', 'value': 9.0}])"
    )
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-"))
    assert len(left) == 1 and left[0].startswith(f".tmp-{child.pid}-")
    assert [r["key"] for r in _strict_lines(path)] == [r["key"] for r in before]
    store = results.ResultStore(path)  # the next start
    assert not any(p.name.startswith(".tmp-") for p in tmp_path.iterdir())
    assert store.records() == before


def test_sigkill_inside_an_append_keeps_every_finished_record_and_whole_lines(tmp_path):
    """An append killed in its fsync (the line written, not yet on disk): the file holds the
    finished records and, whole or not at all, the new one; every line is strict JSON."""
    path = tmp_path / "r.jsonl"
    before = _fill(path, 3)
    _killed_inside(
        path, "fsync", "results.ResultStore(path).append({'key': 'k3', 'value': 9.0}, command='t')"
    )
    keys = [r["key"] for r in _strict_lines(path)]
    assert keys[:3] == [r["key"] for r in before] and keys[3:] in ([], ["k3"])
    assert results.ResultStore(path).records()[:3] == before


def test_an_append_killed_mid_line_loses_nothing_finished(tmp_path):
    """A writer killed with half its line written (one write() cut short): the next open
    reads every finished record and names the partial line; the next append moves it aside,
    so no partial line survives a writer."""
    path = tmp_path / "r.jsonl"
    before = _fill(path, 3)
    _killed_inside(
        path,
        "write",
        "os.write = (lambda w: lambda fd, b: (w(fd, bytes(b[: len(b) // 2])), stall()))(real)\n"
        "        results.ResultStore(path).append({'key': 'k3', 'value': 9.0}, command='t')",
    )
    assert not path.read_bytes().endswith(b"\n")
    with pytest.warns(results.ResultsWarning, match=rf"{path.name} line 4 is truncated"):
        store = results.ResultStore(path)
    assert store.records() == before
    with pytest.warns(results.ResultsWarning, match="moved the partial line to"):
        store.append({"key": "k3", "value": 9.0}, command="test")
    assert [r["key"] for r in _strict_lines(path)] == ["k0", "k1", "k2", "k3"]
    assert (tmp_path / "r.line4.partial").exists()


def test_a_failed_append_is_cut_back_to_the_old_end(tmp_path, monkeypatch):
    """A write that raises half-way (a disk that fills up, Ctrl-C) leaves no partial line."""
    path = tmp_path / "r.jsonl"
    before = _fill(path, 2)
    whole = path.read_bytes()
    real = os.write

    def half_then_full(fd, data):
        real(fd, bytes(data[: len(data) // 2]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    store = results.ResultStore(path)
    with pytest.raises(OSError, match="No space left"):
        store.append({"key": "k2", "value": 1.0}, command="test")
    monkeypatch.undo()
    assert path.read_bytes() == whole and store.records() == before


def test_temporaries_of_live_processes_and_recent_legacy_ones_are_kept(tmp_path):
    live = tmp_path / f".tmp-{os.getpid()}-abcd.jsonl"
    dead = tmp_path / ".tmp-999999999-abcd.jsonl"
    legacy_old, legacy_new = tmp_path / ".tmp-k2j4h5g6.jsonl", tmp_path / ".tmp-q1w2e3r4.jsonl"
    for p in (live, dead, legacy_old, legacy_new):
        p.write_text("{}\n")
    os.utime(legacy_old, (time.time() - 7200, time.time() - 7200))
    results.ResultStore(tmp_path / "r.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, legacy_new.name])


def test_a_truncated_last_line_is_detected_at_open_and_quarantined(tmp_path):
    """The issue's case: the complete records are kept and the partial line moved aside,
    named with the file and the line (before: a JSONDecodeError for every read)."""
    path = tmp_path / "leverage-cpu.jsonl"
    before = _fill(path, 3)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"key": "k3", "value": 1.2345, "per_wi')
    with pytest.warns(results.ResultsWarning, match=rf"{path.name} line 4 is truncated"):
        store = results.ResultStore(path)
    assert store.records() == before  # readable at once, before anything is written
    assert path.read_bytes().endswith(b"per_wi")  # reading alone changes nothing
    with pytest.warns(results.ResultsWarning, match="moved the partial line to"):
        quarantine = store.recover()
    assert quarantine == tmp_path / "leverage-cpu.line4.partial"
    assert quarantine.read_bytes() == b'{"key": "k3", "value": 1.2345, "per_wi'
    assert path.read_bytes() == whole
    store.append({"key": "k3", "value": 3.5}, command="test")
    assert [r["key"] for r in _strict_lines(path)] == ["k0", "k1", "k2", "k3"]


def test_an_append_quarantines_a_truncated_line_instead_of_failing_after_the_work(tmp_path):
    path = tmp_path / "r.jsonl"
    _fill(path, 2)
    with open(path, "ab") as fh:
        fh.write(b'{"key": "k2", "val')
    store = results.ResultStore.__new__(results.ResultStore)  # opened before the cut
    store.path = str(path)
    with pytest.warns(results.ResultsWarning):
        store.append({"key": "new", "value": 1.0}, command="test")
    assert [r["key"] for r in _strict_lines(path)] == ["k0", "k1", "new"]
    assert (tmp_path / "r.line3.partial").exists()


def test_a_corrupt_line_is_refused_at_open_naming_the_file_and_the_line(tmp_path):
    path = tmp_path / "r.jsonl"
    _fill(path, 3)
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(results.CorruptResults, match=rf"{path.name} line 2: "):
        results.ResultStore(path)
    assert isinstance(results.CorruptResults("x"), ValueError)


def test_two_writers_on_one_file_lose_nothing(tmp_path):
    path = tmp_path / "shared" / "r.jsonl"
    code = """
        import sys
        from companion import results
        store = results.ResultStore({path!r})
        for i in range(40):
            store.append({{"key": "{who}-%d" % i, "value": float(i)}}, command="t")
        """
    children = [_child(code.format(path=str(path), who=w)) for w in ("a", "b")]
    for c in children:
        assert c.wait(timeout=300) == 0, c.stderr.read()
    keys = [r["key"] for r in _strict_lines(path)]
    assert sorted(keys) == sorted(f"{w}-{i}" for w in "ab" for i in range(40))
    assert not any(p.name.startswith(".tmp-") for p in path.parent.iterdir())


def test_write_jsonl_and_an_append_at_once_lose_nothing(tmp_path):
    """write_jsonl takes the folder's lock too (it replaced the file unlocked before)."""
    path = tmp_path / "r.jsonl"
    _fill(path, 1)
    child = _child(
        f"""
        from companion import results
        store = results.ResultStore({str(path)!r})
        for i in range(30):
            store.append({{"key": "c%d" % i}}, command="t")
        """
    )
    for i in range(30):
        results.write_jsonl(path, results.read_jsonl(path) + [{"key": f"w{i}"}])
    assert child.wait(timeout=300) == 0, child.stderr.read()
    keys = {r["key"] for r in results.read_jsonl(path)}
    assert {f"c{i}" for i in range(30)} | {f"w{i}" for i in range(30)} <= keys


def test_a_store_on_a_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="`path` must name a results file, not a directory"):
        results.ResultStore(tmp_path)
    with pytest.raises(TypeError, match="`path` must be a path"):
        results.ResultStore(3)


@pytest.mark.parametrize("path", COMMITTED, ids=[p.relative_to(ROOT).as_posix() for p in COMMITTED])
def test_committed_results_round_trip_strictly(path):
    """Every committed line is strict JSON and reads back to the record it was written from."""
    for line in path.read_text(encoding="utf-8").splitlines():
        assert results.dumps_strict(results.loads_strict(line)) == line
