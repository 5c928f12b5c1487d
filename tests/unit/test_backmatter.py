"""The back-matter pages: the seminar plan (data) and its clock, the one record of execution
times, what results exist and the full-scale commands."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from companion.chapters import CHAPTERS
from companion.site import backmatter, exec_record, seminar, seminar_plan

ROOT = Path(__file__).resolve().parents[2]


def test_the_seminar_plan_is_data_not_code():
    tree = ast.parse(Path(seminar_plan.__file__).read_text(encoding="utf-8"))
    for node in tree.body[1:]:  # after the docstring: literal assignments only
        assert isinstance(node, ast.Assign), ast.dump(node)[:80]
        ast.literal_eval(node.value)
    assert [s.doc for s in seminar.SEMINAR] == [e["doc"] for e in seminar_plan.PLAN]


def test_seminar_is_ninety_minutes_and_places_every_chapter():
    docs = [s.doc for s in backmatter.SEMINAR]
    assert sum(s.minutes for s in backmatter.SEMINAR) == backmatter.SESSION_MINUTES == 90
    assert len(docs) == len(set(docs))
    assert {f"book/{c}" for c in CHAPTERS} | {"book/ledger"} <= set(docs)
    for stop in backmatter.SEMINAR:
        assert (ROOT / f"{stop.doc}.md").exists()
        assert stop.minutes >= 0 and len(stop.plan) > 40  # a reading says why
        if stop.in_session and stop.doc.removeprefix("book/") in CHAPTERS:
            assert stop.projector  # what to move in the chapter's Explore figure
    both = {s.doc.split("/")[1] for s in backmatter.SEMINAR if s.in_session and "/" in s.doc[5:]}
    assert both == {"sign_magnitude", "dead_directions"}


def test_a_plan_entry_with_an_unknown_key_is_refused():
    try:
        seminar._stops([{"doc": "book/x", "minutes": 1, "plan": "p", "slides": "no"}])
    except ValueError as e:
        assert "'doc', 'minutes', 'plan'" in str(e)
    else:
        raise AssertionError("no error")


def test_seminar_times_come_from_the_execution_record():
    rec = {
        "date": "2026-01-02",
        "machine": {"cores": 2, "cpu": "Test CPU", "load_1min_when_recorded": 7.66},
        "command": "make book",
        "seconds": {"book/sign_magnitude/theorem3": 13.4},
    }
    rows = backmatter.seminar_rows({"book/sign_magnitude/theorem3": 13.4})
    assert {r["doc"]: r["run_seconds"] for r in rows}["book/sign_magnitude/theorem3"] == 13.4
    assert rows[-1]["start"] is None  # reading
    clock = [(r["start"], r["end"]) for r in rows if r["in_session"]]
    assert clock[0][0] == 0 and clock[-1][1] == 90
    assert all(a[1] == b[0] for a, b in zip(clock, clock[1:], strict=False))
    html = backmatter.seminar_html(rec=rec)
    assert "13 s" in html and "Test CPU" in html and "90 minutes" in html
    assert "7.66" not in html and "load" not in html  # the load average stays in the file
    assert "../slides/sign_magnitude/theorem3.html" in html
    assert "sign_magnitude/theorem3.html#explore" in html
    times = backmatter.exec_times_html(rec)
    assert "Test CPU" in times and "7.66" not in times and "make book" not in times


def test_execution_record_is_one_file_read_from_a_checkout_or_the_package(tmp_path, monkeypatch):
    rec = backmatter.exec_record(ROOT)
    assert rec == json.loads((ROOT / "bench" / "exec_times.json").read_text())
    assert {"cpu", "cores"} <= set(rec["machine"]) and rec["seconds"]
    # an installed package has no checkout: it reads the copy the wheel ships
    monkeypatch.setattr(exec_record, "book_root", lambda root=None: None)
    monkeypatch.setattr(exec_record, "__file__", str(tmp_path / "exec_record.py"))
    assert backmatter.exec_record() is None and backmatter.exec_times() == {}
    (tmp_path / "exec_times.json").write_text(json.dumps(rec))
    assert backmatter.exec_record() == rec


def test_a_wheel_ships_the_execution_record(tmp_path):
    out = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    site = out / "companion" / "site"
    assert (site / "exec_times.json").read_bytes() == (
        ROOT / "bench" / "exec_times.json"
    ).read_bytes()
    assert (site / "deck" / "deck.js").exists() and (site / "seminar_plan.py").exists()
    talks = list((out / "companion" / "chapters").rglob("talk.py"))
    assert len(talks) == len(CHAPTERS)


def test_full_scale_page_says_what_exists(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "_toc.yml").write_text("root: x\n")
    res = tmp_path / "results" / "exp"
    res.mkdir(parents=True)
    cpu = {"model": "m", "scale": "cpu", "device": "cpu", "command": "companion run x"}
    (res / "a-cpu.jsonl").write_text(json.dumps(cpu) + "\n")
    page = backmatter.inventory_html(tmp_path)
    assert "Nothing has been measured at full scale, and no GPU has run" in page
    assert "results/exp/a-cpu.jsonl" in page and "companion run x" in page and "on a CPU" in page
    gpu = {**cpu, "scale": "full", "device": "cuda:0"}
    (res / "a-full.jsonl").write_text(json.dumps(gpu) + "\n")
    page = backmatter.inventory_html(tmp_path)
    assert "Nothing has been measured" not in page and "1 record was written at full scale" in page
    assert "cuda:0" in page


def test_full_scale_commands_are_the_chapters_own():
    cmds = backmatter.full_scale_commands()
    pages = {page for page, _ in cmds}
    assert pages == {"book/sign_magnitude/at_scale", "book/dead_directions/at_scale"}
    assert all(c.startswith("companion run ") and "--scale full" in c for _, c in cmds)
    assert "tinyllama-1.1b" in backmatter.commands_html()


def test_record_command_refuses_without_a_build(tmp_path, monkeypatch, capsys):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "_toc.yml").write_text("root: x\n")
    monkeypatch.chdir(tmp_path)
    assert backmatter.main(["record"]) == 2
    assert "error: no execution records" in capsys.readouterr().err
