"""The mutation suite (issue 18): every claim is shown able to fail.

Each row of :data:`mutation_table.MUTATIONS` breaks one function a claim depends on and
measures the claim again: a ``killed`` row must change its status (a reproduced claim must
turn to ``deviates``), a ``survives`` row is a stated blind spot and must still survive.
Every claim has a killing row or, in :data:`mutation_table.NO_MUTATION`, the reason it has
none.
"""

import pathlib
import sys

import pytest

# the table and its harness are plain modules beside the tests (a conftest.py here would
# clash with tests/site/conftest.py: pytest imports both under the basename "conftest")
sys.path.insert(0, str(pathlib.Path(__file__).parent))

from mutation_harness import mutated, status
from mutation_table import MUTATIONS, NO_MUTATION

from companion import ledger

#: Rows that rerun seconds of simulation (the exact-kernel and ladder claims).
_SLOW = {"dong.thm3.small_p", "dong.thm3.finite_p", "dong.thm3.hidden_equals_output",
         "shirodkar.fp64_accumulation"}  # fmt: skip
_BASE: dict = {}


def _baseline(claim: str, scale: str):
    if (claim, scale) not in _BASE:
        _BASE[claim, scale] = status(claim, scale)
    return _BASE[claim, scale]


def _params():
    for m in MUTATIONS:
        marks = [pytest.mark.slow] if (m.heavy or m.claim in _SLOW) else []
        yield pytest.param(m, id=f"{m.claim}:{m.target.rsplit('.', 1)[1]}:{m.expect}",
                           marks=marks)  # fmt: skip


@pytest.mark.parametrize("m", list(_params()))
def test_mutation(m):
    base, _ = _baseline(m.claim, m.scale)
    assert base != "not-run", f"{m.claim} is not run here: its row cannot be checked"
    with mutated(m.target, m.make):
        now, value = status(m.claim, m.scale)
    killed = now != base and (base != "reproduced" or now == "deviates")
    if m.expect == "killed":
        assert killed, f"survived: {m.label} ({base} → {now}, value {value})"
    else:
        assert now == base, f"a stated blind spot no longer survives: {m.label} ({base} → {now})"
    assert status(m.claim, m.scale)[0] == base  # the break is undone


def test_table_covers_every_claim():
    ids = {c.id for c in ledger.all_claims()}
    killed = {m.claim for m in MUTATIONS if m.expect == "killed"}
    named = {m.claim for m in MUTATIONS} | set(NO_MUTATION)
    assert not named - ids, f"unknown claim ids in the table: {sorted(named - ids)}"
    missing = ids - killed - set(NO_MUTATION)
    assert not missing, f"claims with no killing mutation and no stated reason: {sorted(missing)}"
    assert not killed & set(NO_MUTATION), sorted(killed & set(NO_MUTATION))
    assert all(m.expect in ("killed", "survives") and m.what for m in MUTATIONS)


def test_every_row_breaks_something_that_exists():
    from mutation_harness import _resolve

    for m in MUTATIONS:
        owner, attr = _resolve(m.target)  # a module's attribute, or a class's method
        assert attr in vars(owner), m.target


def test_counts():
    # the numbers the ledger page and the report quote
    ids = {c.id for c in ledger.all_claims()}
    killed = {m.claim for m in MUTATIONS if m.expect == "killed"}
    assert len(killed) + len(NO_MUTATION) == len(ids)


def test_the_committed_report_matches_the_table():
    # the ledger page quotes results/ledger/mutations.json: it must describe today's table
    import json

    path = pathlib.Path(__file__).parents[2] / "results" / "ledger" / "mutations.json"
    rep = json.loads(path.read_text(encoding="utf-8"))
    rows = [(r["claim"], r["target"], r["what"], r["scale"], r["expect"]) for r in rep["rows"]]
    table = [(m.claim, m.target, m.what, m.scale, m.expect) for m in MUTATIONS]
    assert rows == table, "the table changed: rerun `python tools/mutation_report.py`"
    assert all(r["as_stated"] for r in rep["rows"]), [r for r in rep["rows"] if not r["as_stated"]]
    assert rep["no_mutation"] == dict(sorted(NO_MUTATION.items()))
    assert rep["counts"]["claims"] == len(ledger.all_claims())
