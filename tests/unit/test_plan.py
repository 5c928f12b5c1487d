"""The at-scale plan: estimates that follow their formula, fits that respect the memory given,
reasons with numbers, gated models that say what to do, and a runner that goes on after a
failure (companion.llm.plan, companion plan, companion run what-fits)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from companion.cli import main
from companion.llm import plan as pl
from companion.llm import plan_run
from companion.llm.costs import dead_directions_cost, device_for, weights_gb
from companion.llm.registry import get_spec
from companion.llm.runtime import read_runtime


def _rt(gb, ram, *, hub=True, token=False):
    rt = read_runtime(gb, ram_gb=ram, probe_hub=False)
    return replace(rt, hub=hub, hub_reason="" if hub else "HF_HUB_OFFLINE=1 is set", token=token)


@pytest.mark.parametrize("gb, ram", [(15.0, 12.7), (40.0, 83.5)])
def test_nothing_planned_exceeds_the_memory_given(gb, ram):
    steps = pl.plan("full", runtime=_rt(gb, ram, token=True))
    fits = [s for s in steps if s.fits]
    assert fits and all(s.est_memory_gb <= gb and s.est_host_gb <= ram for s in fits)
    # and the check can fail: with a tenth of the memory, the big ones no longer fit
    small = pl.plan("full", runtime=_rt(gb / 10, ram, token=True))
    assert sum(s.fits for s in small) < len(fits)


def test_mistral_on_a_t4_says_why_with_numbers():
    step = next(s for s in pl.plan("full", runtime=_rt(15, 83.5)) if s.model == "mistral-7b")
    assert not step.fits
    first = step.reason.split("; also ")[0]
    assert first.startswith("mistral-7b needs ~44 GB in float32, ~23 GB in float16")
    assert first.endswith("this runtime has 15 GB")


def test_memory_is_weights_plus_activations_and_grows_with_bytes_per_param():
    spec, dev = get_spec("tinyllama-1.1b"), device_for("T4", 15.0)
    kw = dict(tokens=65536, batch_tokens=8192, layers=22, device=dev, trained=True)
    c32, c16 = (dead_directions_cost(spec, dtype=d, **kw) for d in ("float32", "float16"))
    # 1.2 (P b + T (L+1) d b + 2 T f b + 48 T d + 16 d²) + 0.5 GB, by hand for TinyLlama
    P, T, L, d, f = 1.1e9, 8192, 22, 2048, 5632
    acts = T * (L + 1) * d * 4 + 2 * T * f * 4 + 48 * T * d + 16 * d * d
    assert c32.memory_gb == pytest.approx((1.2 * (P * 4 + acts) + 0.5e9) / 1e9)
    assert weights_gb(spec, "float16") < c16.memory_gb < c32.memory_gb
    assert weights_gb(spec, "float32") == pytest.approx(4.4)


def test_gated_models_say_what_the_user_must_do_and_a_token_lifts_it():
    no_token = {s.model: s for s in pl.plan("full", runtime=_rt(40, 83.5))}
    assert "accept its licence at https://huggingface.co/google/gemma-3-1b-pt" in (
        no_token["gemma3-1b"].reason
    )
    assert "HF_TOKEN" in no_token["gemma3-1b"].reason and not no_token["gemma3-1b"].fits
    with_token = {s.model: s for s in pl.plan("full", runtime=_rt(40, 83.5, token=True))}
    assert with_token["gemma3-1b"].fits


def test_hub_checkpoints_need_the_hub_random_init_does_not():
    steps = pl.plan("full", runtime=_rt(40, 83.5, hub=False), parts="dead-directions")
    trained = {s.model: s for s in steps if s.init == "trained"}
    random = {s.model: s for s in steps if s.init == "random"}
    assert not trained["gpt2"].fits and "hub" in trained["gpt2"].reason
    assert random["gpt2"].fits and random["gemma3-1b"].fits  # MiniLM's tokenizer offline


def test_precision_dead_directions_float32_sign_flips_half_on_a_gpu():
    steps = pl.plan("full", runtime=_rt(15, 12.7))
    assert {s.dtype for s in steps if s.experiment == "dead-directions"} == {"float32"}
    assert {s.dtype for s in steps if s.experiment.startswith("sign-flips")} == {"float16"}
    smoke = pl.plan("smoke", runtime=_rt(15, 12.7))
    assert {s.dtype for s in smoke} == {"float32"}


def test_smoke_scale_needs_no_hub_and_fits_a_cpu():
    cpu = replace(read_runtime(probe_hub=False), device=device_for(None, 24.0))
    steps = pl.plan("smoke", runtime=cpu)
    assert steps and all(s.fits for s in steps), [s.reason for s in steps if not s.fits]


def test_no_gpu_plans_nothing_at_full_scale():
    cpu = replace(read_runtime(probe_hub=False), device=device_for(None, 24.0))
    steps = pl.plan("full", runtime=cpu)
    assert steps and not any(s.fits for s in steps)
    assert all(pl.NO_GPU in s.reason for s in steps)


def test_no_gpu_says_what_a_t4_would_run_here(capsys, monkeypatch):
    cpu = replace(read_runtime(probe_hub=False), device=device_for(None, 24.0), ram_gb=24.0)
    cpu = replace(cpu, hub=False, hub_reason="HF_HUB_OFFLINE=1 is set")
    steps = pl.plan("full", runtime=cpu)
    text = pl.format_plan(steps, cpu)
    t4 = pl.plan("full", runtime=replace(cpu, device=device_for("T4", 15.0)))
    n = sum(s.fits for s in t4)
    assert 0 < n < len(steps)
    assert f"with a T4 here, {n} of {len(steps)} experiments fit" in text
    assert text.splitlines()[3 + len(steps)].startswith(f"0 of {len(steps)} experiments fit")


def test_defaults_are_the_chapters_sizes():
    from companion.chapters.dead_directions import at_scale as dd
    from companion.chapters.sign_magnitude import at_scale as sm

    for scale in ("full", "smoke"):
        assert pl.SIGN_FLIP_MODEL[scale] == sm.SIZES[scale].model
    steps = pl.plan("full", runtime=_rt(40, 83.5), parts="dead-directions")
    assert dd.SIZES["full"].random_models is None  # the plan's default: every model
    assert tuple(s.model for s in steps if s.init == "trained") == dd.SIZES["full"].engine.models


def test_bad_input_is_one_line(capsys):
    with pytest.raises(ValueError, match="`parts` must be one of"):
        pl.plan("full", runtime=_rt(15, 12.7), parts="sign_flips")
    with pytest.raises(ValueError, match="`scale` must be one of"):
        pl.plan("gpu", runtime=_rt(15, 12.7))
    for argv in (
        ["plan", "--gpu-memory", "-3"],
        ["plan", "--gpu-memory", "x"],
        ["plan", "--scale", "huge"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err


def test_cli_json_one_object_per_experiment(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["plan", "--scale", "full", "--gpu-memory", "15", "--ram", "12.7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    keys = {"model", "experiment", "dtype", "est_memory_gb", "est_minutes", "fits"}
    assert doc["experiments"] and all(keys <= set(e) for e in doc["experiments"])
    assert all(e["est_memory_gb"] <= 15 for e in doc["experiments"] if e["fits"])
    assert doc["runtime"]["device"]["memory_gb"] == 15.0


def test_cli_text_fits_one_screen(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["plan", "--gpu-memory", "15", "--ram", "12.7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) <= 60 and out[0].startswith("scale full on: GPU with 15.0 GB (given)")
    assert any(line.startswith("not run: mistral-7b (random): mistral-7b needs") for line in out)


def test_run_what_fits_goes_on_after_a_failure(monkeypatch):
    steps = pl.plan("smoke", runtime=_rt(15, 12.7), parts="sign-flips")[:3]
    steps[2] = replace(steps[2], fits=False, reason="a reason")
    seen = []

    def fake(step, scale, out):
        seen.append(step.experiment)
        if step is steps[0]:
            raise RuntimeError("CUDA out of memory.\nTried to allocate ...")

    monkeypatch.setattr(plan_run, "_run_step", fake)
    lines = []
    outcomes = pl.run_what_fits(steps, "smoke", echo=lines.append)
    assert [o[1] for o in outcomes] == ["failed", "done", "not run"]
    assert seen == [steps[0].experiment, steps[1].experiment]
    assert lines[0] == f"failed: {steps[0].label}: RuntimeError: CUDA out of memory."
    assert pl.run_what_fits(steps, "cpu") == []  # CPU scale: the records ship; nothing runs


def test_cli_run_what_fits_exit_code_follows_failures(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    calls = []

    def fake(step, scale, out):
        calls.append((step.experiment, scale, out))
        if step.experiment == "sign-flips leverage":
            raise MemoryError("out of memory")

    monkeypatch.setattr(plan_run, "_run_step", fake)
    argv = ["run", "what-fits", "--scale", "smoke", "--part", "sign-flips", "--out", str(tmp_path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "failed: sign-flips leverage tinyllama-1.1b (trained): MemoryError: out of memory" in out
    assert len(calls) == 7 and {c[1:] for c in calls} == {("smoke", str(tmp_path))}


def test_chapter_table_says_constant_columns_once_and_smoke_proves_the_path():
    steps, rt = pl.chapter_plan("cpu", "sign-flips", sign_flip_model="tinyllama-1.1b")
    assert rt.describe().startswith("A Colab T4 runtime") and steps[0].command.endswith("--resume")
    html = pl.plan_html(steps, rt).data
    assert "Every row: model tinyllama-1.1b, init trained, dtype float16." in html
    assert "<th>model</th>" not in html and pl.SMOKE_NOTE not in html
    smoke, rt = pl.chapter_plan("smoke", "sign-flips", sign_flip_model="tinyllama-1.1b")
    assert pl.SMOKE_NOTE in pl.plan_html(smoke, rt).data
