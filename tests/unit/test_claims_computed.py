"""A claim's status is its tolerance evaluated on data, never typed in (issue 18).

Every ``agrees=`` / ``unresolved=`` keyword in claim code must be an expression, not a
literal; and no claim measure may return a status string of its own.
"""

import ast
import pathlib

import companion
from companion import claims, ledger

SRC = pathlib.Path(companion.__file__).parent
CLAIM_FILES = (
    sorted(SRC.glob("chapters/*/*/claims.py"))
    + sorted(SRC.glob("chapters/*/*/claims/*.py"))  # a chapter's claims split by job
    + sorted((SRC / "claims").glob("*.py"))
)


def _literal(node) -> bool:
    """A constant, or ``not``/a bool op over constants only."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.BoolOp):
        return all(_literal(v) for v in node.values)
    return False


def test_claim_files_are_found():
    assert len(CLAIM_FILES) >= 29


def test_no_claim_types_its_status_in():
    typed = []
    for path in CLAIM_FILES:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg in ("agrees", "unresolved") and _literal(kw.value):
                        typed.append(f"{path.relative_to(SRC)}:{kw.value.lineno} {kw.arg}=")
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                if node.value.value in claims.STATUSES:
                    typed.append(
                        f"{path.relative_to(SRC)}:{node.lineno} return {node.value.value!r}"
                    )
    assert not typed, "typed-in statuses: " + "; ".join(typed)


def test_the_ast_check_catches_a_typed_status():
    src = "Measurement(value=1.0, agrees=False, reason='x')\nMeasurement(value=1, agrees=not True)"
    calls = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Call)]
    assert all(_literal(kw.value) for c in calls for kw in c.keywords if kw.arg == "agrees")


def test_unresolved_needs_a_reason_and_counts_apart():
    c = claims.Claim(
        id="dong.test_unresolved",
        paper="dong",
        statement="s",
        paper_value="1",
        method="m",
        tolerance="t",
        provenance=("reconstruction",),
        measure=lambda scale, full: claims.Measurement(value=1.0, agrees=True, unresolved=True),
        evidence="simulation",
        control_none="a test claim",
    )
    import pytest

    with pytest.raises(ValueError, match="is unresolved"):
        claims.run(c)
    ok = claims.Claim(
        **{
            **c.__dict__,
            "measure": lambda scale, full: claims.Measurement(
                value=1.0, agrees=True, unresolved=True, reason="two hypotheses within 4 SE"
            ),
        }
    )
    r = claims.run(ok)
    assert r.status == "unresolved"
    assert claims.counts([r])["dong"]["unresolved"]["simulation"] == 1


def test_every_ledger_status_is_a_known_one():
    assert set(claims.STATUSES) == {"reproduced", "deviates", "unresolved", "not-run"}
    assert len(ledger.all_claims()) > 60


def test_a_non_positive_ppl_ratio_is_a_stated_deviation_not_a_traceback(monkeypatch):
    # at smoke size a pool's flips can lower perplexity: the ratio's log10 is undefined
    from companion.chapters.sign_magnitude.at_scale.claims import outliers

    recs = {("outlier", 0): -41.5, ("non", 0): 0.4, ("outlier", 1): 87.0, ("non", 1): 0.1}
    resc = {"ppl_ratios": [-103.75, 870.0], "ppl_ratio": {"median": 383.1}}
    s = {"conditions": {"disjoint|scaled_flip": resc, "disjoint|flip": resc}, "meta": {}}

    def numbers(scale, full):
        return s, "src", {}, lambda pool, kind, sd: {"dppl": recs[pool, sd]}, range(2)

    monkeypatch.setattr(outliers, "_outlier_numbers", numbers)
    m = outliers._ppl_ratio("smoke")
    assert not m.agrees and not m.unresolved and m.value == 383.1
    assert m.reason.startswith("1 of 2 seeds' ΔPPL ratios are not positive"), m.reason
