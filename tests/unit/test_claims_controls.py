"""The ledger as a referee reads it: every check can fail, every entry is scoped, nothing is
reported on a partial results file.

One run of the whole ledger at CPU scale (theory measured now, model claims read the committed
results files) is shared by the tests of this module.
"""

import json
import re
import shutil

import pytest

from companion import claims
from companion import ledger as collected
from companion.claims import render
from companion.cli import main


@pytest.fixture(scope="module")
def ledger():
    return collected.run_many()


def test_every_control_comes_out_deviates(ledger):
    bad = [
        f"{r.id}: control {r.control_status} ({r.control_detail})"
        for r in ledger
        if r.control_status != "none" and r.control_status != "deviates"
    ]
    assert not bad, "controls that did not deviate:\n" + "\n".join(bad)
    for r in ledger:
        if r.control_status == "none":
            assert len(r.control_none) > 20, f"{r.id}: say why there is no honest control"


def test_every_entry_carries_evidence_control_and_what_it_was_measured_on(ledger):
    for r in ledger:
        d = r.to_dict()
        assert d["evidence"] in claims.EVIDENCE, r.id
        assert d["control_status"] in claims.CONTROL_STATUSES, r.id
        assert d["measured_on"], r.id
        if r.status != "not-run" and r.evidence == "model":
            on = r.measured_on
            assert on["where"] == "results file" and on["date"] and on["machine"], r.id
            assert on["models"] and on["scale"] == "cpu", r.id
        if r.status == "not-run":
            assert r.needs or r.reason, r.id


def test_no_model_counts_in_synthetic_claims_and_models_named_in_model_claims():
    for c in collected.all_claims():
        if c.evidence in ("derivation", "identity", "simulation"):
            assert not re.search(r"\b\d+\s*/\s*\d+\b", c.statement), c.id
            assert "models" not in c.statement, c.id
        elif c.evidence == "model":
            assert c.models, c.id


def test_no_reproduced_paper_number_comes_from_our_own_closed_form(ledger):
    # a paper-number or author-result entry cites where its number comes from (never only
    # our reconstruction); identities and simulations are counted apart from them
    for c in collected.all_claims():
        if c.evidence in ("paper-number", "author-result"):
            assert set(c.provenance) - {"reconstruction"}, c.id
    counts = claims.counts(ledger)
    assert sum(sum(v.values()) for p in counts.values() for v in p.values()) == len(ledger)


def test_the_findings_of_issue_10_have_the_status_the_evidence_supports(ledger):
    status = {r.id: r.status for r in ledger}
    for cid in (
        "dong.thm3.table2",  # the README's Table 2 is 5-15 SE from the author's own code
        "dong.leverage.formula",  # the first-order formula is 0.8% (7 SE) low
        "dong.real.outlier_saturation",  # NLL above ln V (the number is a separate claim)
        "dong.real.outlier_nll_ratio_flips",  # 1.6, not 5.0
        "dong.real.column_flip_spearman",  # noise floor
        "dong.real.alpha_energy_spearman",
        "dong.real.sign_vs_magnitude",  # the opposite ordering to Theorem 3
        "shirodkar.sigma_min_models",  # declines block to block
        "shirodkar.classifier",  # MiniLM trained: undetermined (dead γ coordinates)
        "shirodkar.schur_init",
    ):
        assert status[cid] == "deviates", cid
    for cid in ("dong.thm3.author_code", "dong.thm3.small_p", "dong.thm3.finite_p"):
        assert status[cid] == "reproduced", cid
    # issue 18: within 4 SE of the paper, but also of the plausible wrong hypothesis
    for cid in (
        "dong.real.outlier_nll_ratio_rescaled",  # 6.06 ± 1.31: +0.8 SE from 5.0, +3.9 from 1
        "dong.real.count_matched_leverage",  # 40 seeds, p = 0.1%: 24.7 ± 7.0, +3.4 SE from 1
        "dong.real.expD_ppl_ratio",  # seeds scatter over 12 decades
        "shirodkar.trained_deepening",  # float32 floor at both ends, every pair
        "shirodkar.null_cos",  # fails at 99.9% for d = 768, 1024, holds at 99%: no level stated
    ):
        assert status[cid] == "unresolved", cid


def test_no_machine_path_in_what_the_book_shows(ledger):
    from companion.results import results_root

    html = render._ledger_html(ledger, None) + render.counts_table(ledger)
    html += "".join(render._card(r) for r in ledger)
    assert str(results_root()) not in html
    assert not re.search(r"(?<![\w.~<])/(home|root|tmp|work|usr|opt)/", html)
    assert "computed now" not in html


def test_controls_cli(capsys):
    assert main(["claims", "--controls", "--id", "dong.fact1", "--id", "dong.thm3.table2"]) == 0
    out = capsys.readouterr().out
    assert "control deviates" in out and "control none" in out


# ----------------------------------------------------------------------------- partial files


@pytest.fixture
def partial_root(tmp_path, monkeypatch):
    """A results root whose dead-directions file holds 3 of the committed records."""
    from companion.results import locate, read_jsonl

    src = locate("dead_directions", "dead_directions.jsonl")
    recs = read_jsonl(src)
    folder = tmp_path / "dead_directions"
    folder.mkdir()
    keep = [r for r in recs if r["init"] == "random" and r["layers"] <= 2][:3]
    (folder / "dead_directions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    monkeypatch.setenv("COMPANION_RESULTS", str(tmp_path))
    return folder / "dead_directions.jsonl", src


def test_a_partial_results_file_is_never_reported_as_a_reproduction(partial_root, capsys):
    assert main(["claims", "--json", "--id", "shirodkar.classifier"]) == 0
    (r,) = json.loads(capsys.readouterr().out)
    assert r["status"] == "not-run"
    assert "3 of 23 expected records present" in r["reason"]
    assert "missing: " in r["reason"] and "companion run dead-directions" in r["reason"]
    assert r["measured_on"]["records"] == "3 of 23"


def test_full_runs_only_what_is_missing(partial_root, monkeypatch):
    from companion.chapters.dead_directions.at_scale.claims import _common as at_scale

    path, src = partial_root
    calls = []

    def fake_run_missing(scale):  # stands in for the model runs: the committed records
        calls.append(scale)
        shutil.copy(src, path)

    monkeypatch.setattr(at_scale, "run_missing", fake_run_missing)
    monkeypatch.setattr(at_scale, "_run_full_depth", lambda scale: None)
    r = collected.run("shirodkar.classifier", full=True)
    # 22/23: MiniLM's trained record is undetermined (dead γ coordinates)
    assert calls == ["cpu"] and r.status == "deviates" and r.value == "22/23"
    calls.clear()
    assert collected.run("shirodkar.classifier", full=True).value == "22/23"
    assert calls == []  # nothing missing: nothing run
