"""Exp E's claim on part of its planned seeds, and records that must never be pooled.

``dong.real.count_matched_leverage`` is decided on all the seeds its setup plans
(``leverage_linear_seeds``): on fewer it is never called reproduced, it says how many it has
and the command that finishes them; a seed counts only when every linear-regime record of it
is present; records measured on other windows are refused. The engine refuses a run whose
windows differ from the records already in its file.
"""

from __future__ import annotations

import pytest

from companion import claims, ledger
from companion.chapters.sign_magnitude.at_scale.claims import leverage as lev
from companion.chapters.sign_magnitude.at_scale.records import model_records
from companion.chapters.sign_magnitude.at_scale.sizes import SIZES

CLAIM = "dong.real.count_matched_leverage"
PLANNED = SIZES["cpu"].setup.leverage_linear_seeds


def _real(max_seed: int = 5) -> list[dict]:
    """The committed records of seeds below ``max_seed`` (the run may be adding more)."""
    recs = model_records("leverage", SIZES["cpu"].model, "cpu")
    return [r for r in recs if r.get("seed") is None or r["seed"] < max_seed]


def _with(monkeypatch, recs):
    monkeypatch.setattr(lev, "model_records", lambda *a, **k: [dict(r) for r in recs])
    return claims.run(ledger.get(CLAIM), controls=False)


def _reseeded(recs, seeds: int) -> list[dict]:
    """Seeds 0 … seeds − 1 made of the first five seeds' records, cyclically."""
    base = [r for r in recs if r["key"].startswith("leverage|")]
    out = [r for r in recs if not r["key"].startswith("leverage|")]
    for s in range(seeds):
        for r in base:
            if r["seed"] == s % 5:
                key = r["key"].rsplit("|seed=", 1)[0] + f"|seed={s}"
                out.append({**r, "seed": s, "key": key})
    return out


def test_the_plan_is_more_seeds_than_the_other_fractions_take():
    cfg = SIZES["cpu"].setup
    assert PLANNED > cfg.leverage_seeds >= SIZES["cpu"].claim_seeds


def test_on_part_of_the_planned_seeds_it_is_unresolved_with_the_count(monkeypatch):
    r = _with(monkeypatch, _real(5))
    assert r.status == "unresolved"
    assert f"5 of the {PLANNED} planned seeds" in r.reason
    assert "companion run sign-flips --experiment leverage" in r.reason
    assert "5 seeds per linear-regime p" in r.detail


def test_on_every_planned_seed_the_tolerance_decides(monkeypatch):
    r = _with(monkeypatch, _reseeded(_real(5), PLANNED))
    assert r.status in ("reproduced", "deviates", "unresolved")
    assert "planned seeds are measured" not in r.reason
    assert f"{PLANNED} seeds per linear-regime p" in r.detail


def test_a_seed_counts_only_when_whole(monkeypatch):
    recs = [r for r in _real(5) if r["key"] != "leverage|disjoint|p=0.001|non|seed=3"]
    r = _with(monkeypatch, recs)
    assert "3 seeds per linear-regime p" in r.detail and "3 of the" in r.reason


def test_records_of_other_windows_are_never_pooled(monkeypatch):
    recs = _real(5)
    i = next(i for i, r in enumerate(recs) if r["key"].endswith("|non|seed=4"))
    recs[i] = {**recs[i], "meta": {**recs[i]["meta"], "eval_windows": 16}}
    r = _with(monkeypatch, recs)
    assert r.status == "not-run" and "mix evaluation windows" in r.reason


def test_the_engine_refuses_a_run_on_other_windows():
    from companion.llm.sign_flips.runner import _check_compatible

    stored = [{"key": "baseline", "meta": {"model": "m", "eval_windows": 4, "window": 256}}]
    _check_compatible(stored, {"model": "m", "eval_windows": 4, "window": 256}, "f.jsonl")
    _check_compatible(stored, {"model": "m", "eval_windows": 0, "window": 0}, "f.jsonl")
    with pytest.raises(ValueError, match=r"eval_windows 4 \(stored\) against 16"):
        _check_compatible(stored, {"model": "m", "eval_windows": 16, "window": 256}, "f.jsonl")
