import json
import re
import subprocess
import sys

import pytest

from companion import claims, ledger
from companion.cli import main

FIXED_IDS = {
    "dong": [
        "dong.fact1",
        "dong.prop1.energy",
        "dong.prop1.single_layer",
        "dong.rmsnorm_jacobian",
        "dong.prop1.hidden_radial",
        "dong.thm3.limit",
        "dong.thm3.small_p",
        "dong.thm3.finite_p",
        "dong.thm3.author_code",
        "dong.thm3.table2",
        "dong.thm3.hidden_equals_output",
        "dong.thm3.post_norm_trap",
        "dong.thm4.cos2",
        "dong.thm4.radial_pre",
        "dong.thm4.radial_post",
        "dong.multilayer.no_compounding",
        "dong.leverage.pre_relu",
        "dong.leverage.post_relu",
        "dong.leverage.formula",
        "dong.real.cos2_table1",
        "dong.real.outlier_nll_ratio_rescaled",
        "dong.real.outlier_nll_ratio_flips",
        "dong.real.count_matched_leverage",
        "dong.real.alpha_energy_spearman",
        "dong.real.column_flip_spearman",
    ],
    "shirodkar": [
        "shirodkar.ln_kernel",
        "shirodkar.rms_no_kernel",
        "shirodkar.kfac_lift",
        "shirodkar.sigma_min_residual",
        "shirodkar.post_ln_sigma_min_zero",
        "shirodkar.schur_baseline",
        "shirodkar.null_cos",
        "shirodkar.bf16_floor",
        "shirodkar.fp64_accumulation",
        "shirodkar.sigma_min_condition",
        "shirodkar.init_alignment_ln",
        "shirodkar.init_absent_rms",
        "shirodkar.classifier",
        "shirodkar.trained_kernel_ln",
        "shirodkar.sigma_min_models",
        "shirodkar.trained_deepening",
    ],
}


def test_every_fixed_id_is_registered_once():
    ids = [c.id for c in ledger.all_claims()]
    assert len(ids) == len(set(ids))
    missing = [i for p in FIXED_IDS.values() for i in p if i not in ids]
    assert not missing, f"unregistered claims: {missing}"


def test_every_claim_is_complete():
    for c in ledger.all_claims():
        assert c.statement and c.paper_value and c.method and c.tolerance, c.id
        assert c.provenance, c.id
        assert c.id.startswith(c.paper + "."), c.id
        assert c.chapter.startswith("book/"), c.id


def test_fact1_is_reproduced_via_the_cli(capsys):
    assert main(["claims", "--paper", "dong", "--json", "--id", "dong.fact1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out] == ["dong.fact1"]
    assert out[0]["status"] == "reproduced"
    assert out[0]["stderr"] > 0


def test_deviation_without_reason_is_refused():
    c = _claim(
        id="dong.test_only",
        measure=lambda scale, full: claims.Measurement(value=2.0, agrees=False),
    )
    with pytest.raises(
        ValueError, match=re.escape("`reason` must be given when claim 'dong.test_only' deviates")
    ):
        claims.run(c)


def test_not_run_is_reported_not_raised():
    def measure(scale, full):
        raise claims.NotRun("needs results/x.jsonl")

    c = _claim(id="dong.test_only2", measure=measure, heavy=True)
    r = claims.run(c)
    assert r.status == "not-run" and r.reason == "needs results/x.jsonl"


def test_bad_inputs():
    with pytest.raises(
        ValueError, match=re.escape("`paper` must be one of 'dong', 'shirodkar'; got 'x'")
    ):
        ledger.all_claims("x")
    with pytest.raises(KeyError, match=re.escape("unknown claim id 'nope' (known: ")):
        ledger.get("nope")


def test_claims_box_takes_the_chapter_and_its_scale():
    from companion.chapters.sign_magnitude import bussgang

    box = ledger.claims_box(bussgang, scale="cpu")
    assert [r.id for r in box.results] == ["dong.fact1"]
    assert [r.id for r in ledger.claims_box("sign_magnitude/theorem4", scale="cpu").results] == [
        "dong.thm4.cos2",
        "dong.thm4.radial_pre",
        "dong.thm4.radial_post",
    ]
    with pytest.raises(TypeError):
        ledger.claims_box(bussgang)  # the scale is never implied
    with pytest.raises(
        ValueError, match=re.escape("`scale` must be one of 'cpu', 'full', 'smoke'")
    ):
        ledger.claims_box(bussgang, scale="gpu")
    with pytest.raises(ValueError, match="`chapter` must be one of"):
        ledger.claims_box("sign_magnitude/nope", scale="cpu")


def test_every_chapter_has_claims_and_the_ledger_is_in_book_order():
    from companion.chapters import CHAPTERS

    chapters = [c.chapter for c in ledger.all_claims()]
    assert sorted(set(chapters), key=chapters.index) == ["book/" + c for c in CHAPTERS]


def _claim(**kw):
    base = dict(
        id="dong.test_only3",
        paper="dong",
        statement="s",
        paper_value="1",
        method="m",
        tolerance="t",
        provenance=("abstract",),
        measure=lambda scale, full: claims.Measurement(value=1.0, agrees=True),
        evidence="simulation",
        control_none="a test claim",
    )
    return claims.Claim(**(base | kw))


def test_every_claim_declares_its_evidence_and_its_control():
    for c in ledger.all_claims():
        assert c.evidence in claims.EVIDENCE, c.id
        assert (c.control is not None and c.control_method) or c.control_none, c.id
        if c.evidence == "model":
            assert c.models, c.id


def test_a_claim_is_refused_without_evidence_or_control():
    with pytest.raises(ValueError, match="`evidence` must be one of 'derivation', 'identity', "):
        _claim(evidence="vibes")
    with pytest.raises(ValueError, match="needs a `control` or, in `control_none`"):
        _claim(control_none="")
    with pytest.raises(ValueError, match="`control_method` must say"):
        _claim(control=lambda scale, full: None)
    with pytest.raises(ValueError, match="must name where it comes from"):
        _claim(evidence="paper-number", provenance=("reconstruction",))
    with pytest.raises(ValueError, match="a model claim must name its `models`"):
        _claim(evidence="model")


def test_the_control_runs_next_to_the_measure():
    def control(scale, full):
        return claims.Measurement(value=5.0, agrees=False, detail="the wrong constant")

    r = claims.run(_claim(control=control, control_method="compare with 5", control_none=""))
    assert (r.status, r.control_status, r.control_value) == ("reproduced", "deviates", 5.0)
    passed = _claim(
        control=lambda scale, full: claims.Measurement(value=1.0, agrees=True),
        control_method="a control that cannot fail",
        control_none="",
    )
    assert claims.run(passed).control_status == "reproduced"  # a defect the tests catch
    assert claims.run(_claim()).control_status == "none"


def test_json_carries_evidence_control_and_what_it_was_measured_on(capsys):
    assert main(["claims", "--json", "--id", "dong.fact1"]) == 0
    (out,) = json.loads(capsys.readouterr().out)
    assert out["evidence"] == "simulation"
    assert out["control_status"] in claims.CONTROL_STATUSES
    assert out["measured_on"]["where"] == "this build"
    assert out["measured_on"]["machine"] == claims.machine()


def test_an_unknown_claim_id_is_one_error_line_and_exit_code_2(capsys):
    assert main(["claims", "--id", "bogus.claim"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown claim id 'bogus.claim' (known: ")
    assert "Traceback" not in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:
        main(["claims", "--paper", "bogus"])
    assert exc.value.code == 2


def test_complete_counts_the_expected_records_and_runs_only_the_missing():
    ran, store = [], {"a"}

    def run(missing):
        ran.append(list(missing))
        store.update(missing)

    with pytest.raises(claims.NotRun, match="1 of 3 expected records present; missing: b, c"):
        claims.complete(["a", "b", "c"], lambda: store, command="x")
    assert claims.complete(["a", "b", "c"], lambda: store, command="x", full=True, run=run) == (
        "3 of 3 records"
    )
    assert ran == [["b", "c"]]


def _imported_after(code: str) -> set:
    """The ``companion`` modules a fresh interpreter holds after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", code + "; import sys; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {m for m in out if m.startswith("companion")}


def test_the_claims_framework_imports_no_chapter_and_no_ledger():
    held = _imported_after("import companion.claims, companion.claims.render")
    up = sorted(m for m in held if m.startswith(("companion.chapters", "companion.ledger")))
    assert not up, f"companion.claims imports up a layer: {up}"


def test_no_chapter_imports_its_claims():
    from companion.chapters import CHAPTERS

    held = _imported_after("from companion.chapters import load_all; load_all()")
    pkgs = {"companion.chapters." + c.replace("/", ".") for c in CHAPTERS}
    assert pkgs <= held
    claims_held = sorted(m for m in held - {"companion.claims"} if m.endswith(".claims"))
    assert not claims_held, f"a chapter imports its claims: {claims_held}"


def test_the_ledger_collects_every_chapters_claims_once():
    from companion.chapters import CHAPTERS, module

    declared = [
        c.id
        for ch in CHAPTERS
        for c in __import__(module(ch).__name__ + ".claims", fromlist=["CLAIMS"]).CLAIMS
    ]
    assert [c.id for c in ledger.all_claims()] == declared  # book order, declared order


def test_a_claim_by_id_is_run_through_the_ledger():
    with pytest.raises(TypeError, match="`claim` must be a Claim"):
        claims.run("dong.fact1")
    assert ledger.run("dong.fact1").status == "reproduced"


def test_depends_on_is_a_tuple_of_dotted_names():
    assert _claim(depends_on=("companion.theory.bussgang.bussgang_cos2",)).depends_on
    with pytest.raises(ValueError, match="`depends_on` must be a tuple of dotted names"):
        _claim(depends_on="companion.theory.bussgang.bussgang_cos2")
    with pytest.raises(ValueError, match="`depends_on` must be a tuple of dotted names"):
        _claim(depends_on=("bussgang_cos2",))


def test_a_smoke_box_says_the_path_was_checked_not_the_claim():
    """Issue 21: at smoke scale (tiny sizes, random weights) a status and its numbers mean
    nothing, so the box says "path checked (smoke)"; CPU and full boxes are unchanged."""
    import dataclasses

    from companion.claims import render

    cpu = ledger.claims_box("sign_magnitude/bussgang", scale="cpu")
    smoke = ledger.claims_box("sign_magnitude/bussgang", scale="smoke")
    (rc,), (rs,) = cpu.results, smoke.results
    html_cpu, html_smoke = cpu._repr_html_(), smoke._repr_html_()
    # the text as read: tags dropped, a no-break space read as a space
    text_cpu, text_smoke = (
        re.sub(r"<[^>]+>", "", h).replace("\xa0", " ") for h in (html_cpu, html_smoke)
    )
    assert "✔ reproduced" in text_cpu and render.fmt_value(rc) in text_cpu
    assert "path checked" not in html_cpu and "claim-smoke" not in html_cpu
    assert "path checked (smoke)" in html_smoke and 'class="claim-card claim-smoke"' in html_smoke
    for shown in ("✔ reproduced", "≠ deviates", "? unresolved", render.fmt_value(rs), rs.detail):
        assert shown not in text_smoke, shown
    assert "path checked (smoke)" in repr(smoke) and "reproduced" not in repr(smoke)
    # the smoke display follows what the result was measured at, not the page: a record
    # measured at CPU scale keeps its status on a smoke page
    real = dataclasses.replace(rs, measured_on={**rs.measured_on, "scale": "cpu"})
    assert "✔ reproduced" in render.cards([real])._repr_html_()
    assert not render.smoke(dataclasses.replace(rs, status="not-run"))  # not run stays so


def test_every_status_and_the_smoke_display_have_their_colours_light_and_dark():
    from pathlib import Path

    css = (Path(__file__).parents[2] / "book/_assets/claims.css").read_text()
    for s in (*claims.STATUSES, "smoke"):
        for rule in (
            f".claim-card.claim-{s} {{",
            f".claim-badge.claim-{s} {{",
            f'html[data-theme="dark"] .claim-badge.claim-{s} {{',
        ):
            assert rule in css, rule


def test_a_claim_naming_several_values_shows_every_one():
    # dong.thm3.finite_p names four p; "ours" once showed only p = 0.05
    from companion.claims.render import cards

    shown = claims.per_setting({"p = 0.01": (2.6658, 0.0073), "p = 0.1": (2.2968, 0.0041)})
    c = _claim(
        measure=lambda scale, full: claims.Measurement(value=2.2968, agrees=True, shown=shown)
    )
    r = claims.run(c)
    assert r.value == 2.2968 and r.to_dict()["shown"] == shown
    page = cards([r])._repr_html_()
    for value, se in (("2.6658", "0.0073"), ("2.2968", "0.0041")):
        assert f'<span class="nw">{value}</span>\u00a0±\u00a0<span class="nw">{se}</span>' in page
    result = ledger.run("dong.thm3.finite_p", controls=False)
    assert result.shown.count("±") == 4
