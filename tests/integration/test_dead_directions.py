"""The diagnostic as accumulate + read-out: the record it writes and reads back (every
committed record loads), its controls (a shuffled γ and the swapped norm must fail where
the real norm passes), the jackknife of the σ_min steps, and bad input (non-finite
activations, out-of-vocabulary ids, an unknown capture) with one-style errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm import registry  # noqa: E402
from companion.llm.capture import capture_module, hook_count  # noqa: E402
from companion.llm.dead_directions import (  # noqa: E402
    Diagnosis,
    accumulate,
    diagnose,
    load_results,
    read_out,
)
from companion.llm.loading import build_random  # noqa: E402
from companion.llm.norms import find_final_norm  # noqa: E402


def tiny(name, width=32, layers=2):
    return build_random(registry.get_spec(name), num_layers=layers, width=width, vocab_size=128)


def batches(n=16, seq=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return list(torch.randint(0, 128, (n, seq), generator=g).split(4))  # 512 tokens


def trained_gamma(model, seed=0):
    """Give the final norm a spread, positive γ, as training does (γ ≡ 1 at init)."""
    fn = find_final_norm(model)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        fn.module.weight.copy_(torch.exp(0.5 * torch.randn(fn.d, generator=g)))
    return find_final_norm(model)


def test_diagnose_is_accumulate_then_read_out():
    model = tiny("gpt2")
    fn = find_final_norm(model)
    a = diagnose(model, batches(), final_norm=fn).to_record()
    b = read_out(accumulate(model, batches(), fn), fn).to_record()
    for rec in (a, b):
        rec.pop("timings")
    assert a == b
    assert hook_count(model) == 0


def test_record_round_trip_and_every_committed_record_loads():
    model = tiny("smollm2-135m")
    d = diagnose(model, batches())
    rec = d.to_record()
    back = Diagnosis.from_record(rec)
    assert back.to_record() == rec
    old = load_results()
    assert len(old) >= 26
    for r in old:  # records written before the split: same names, fewer of them
        diag = Diagnosis.from_record(r)
        assert diag.cos == r["cos"] and diag.verdict == r["verdict"]
        assert diag.fp64.cos == r["cos_fp64"] and diag.fp64.kernel_dim == r["kernel_dim_fp64"]
        np.testing.assert_array_equal(diag.sigma_ratio_no_pos0, r["sigma_ratio_no_pos0"])
        assert diag.schur.ratio == r["schur_ratio"] or np.isnan(r["schur_ratio"] or np.nan)


@pytest.mark.parametrize("name", ["gpt2", "smollm2-135m"])
def test_controls_fail_where_the_real_norm_passes(name):
    model = tiny(name)
    fn = trained_gamma(model)
    d = diagnose(model, batches(), final_norm=fn)
    swap = d.controls["norm_swap"]
    shuffled = d.controls["shuffled_gamma"]
    assert len(shuffled) == 3
    if fn.kind == "layernorm":
        assert d.verdict == d.fp64.verdict == "layernorm"
        assert swap.verdict == "rmsnorm" and swap.diag_rayleigh > 1e6 * d.fp64.diag_rayleigh
        assert all(r.verdict == "rmsnorm" for r in shuffled)
    else:  # the swap is a LayerNorm of the same input: it has the kernel the RMSNorm lacks
        assert d.verdict == "rmsnorm" and swap.verdict == "layernorm"
    rec = d.to_record()["controls"]
    assert rec["norm_swap"]["verdict"] == swap.verdict and len(rec["shuffled_gamma"]) == 3


def test_random_init_gamma_has_no_shuffled_control():
    d = diagnose(tiny("gpt2"), batches())  # γ ≡ 1: a permutation changes nothing
    assert "shuffled_gamma" not in d.controls and "norm_swap" in d.controls


def test_sigma_steps_and_their_jackknife():
    d = diagnose(tiny("gpt2", layers=3), batches(n=32))
    p = d.profile
    assert p.folds == 4 and p.steps.shape == p.step_se.shape == (3,)
    np.testing.assert_allclose(p.steps, p.sigma_min_no_pos0[1:] / p.sigma_min_no_pos0[:-1])
    assert np.all(np.isfinite(p.step_se)) and np.all(p.step_se > 0)
    assert np.all(p.step_se < 0.5 * p.steps)  # 1,000 rows per fold at d = 32: a usable SE
    rec = d.to_record()
    assert rec["sigma_step_no_pos0"] == p.steps.tolist()
    assert len(rec["schur_random"]) == 8 and 0 < rec["schur_ratio"] <= 1


def test_gamma_stats_report_the_absolute_range():
    model = tiny("gpt2")
    fn = trained_gamma(model)
    with torch.no_grad():
        fn.module.weight[0] = -0.01  # one small negative entry
    g = diagnose(model, batches()).gamma_stats
    w = fn.module.weight.detach().double().abs().numpy()
    assert g["abs_min"] == pytest.approx(0.01) and g["abs_max"] == pytest.approx(w.max())
    assert g["n_negative"] == 1 and g["min"] == pytest.approx(-0.01)


def test_nan_weight_says_the_activations_are_not_finite():
    model = tiny("gpt2")
    fn = find_final_norm(model)
    with torch.no_grad():
        next(p for n, p in model.named_parameters() if "mlp" in n).view(-1)[0] = float("nan")
    with pytest.raises(ValueError, match=r"`model` must produce finite activations; the probe"):
        diagnose(model, batches())  # the norm is found by a probe pass
    with pytest.raises(ValueError, match=r"`model` must produce finite activations; its final"):
        diagnose(model, batches(), final_norm=fn)  # given: the forward pass finds it
    assert hook_count(model) == 0


def test_out_of_vocabulary_ids():
    model = tiny("gpt2")
    bad = [torch.full((2, 300), 128)]
    with pytest.raises(ValueError, match=r"`batches` must hold token ids in \[0, 128\).*128"):
        diagnose(model, bad, final_norm=find_final_norm(model))
    with pytest.raises(ValueError, match=r"got ids from -1 to 5"):
        diagnose(model, [torch.tensor([[-1, 5] * 200])], final_norm=find_final_norm(model))
    assert hook_count(model) == 0


def test_capture_module_refuses_an_unknown_what():
    lin = torch.nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"`what` must be one of 'output', 'input'; got 'x'"):
        with capture_module(lin, what="x"):
            pass
    assert hook_count(lin) == 0


def test_speech_runs_read_the_same_clips_for_both_stacks():
    from companion.llm.dead_directions.driver import run_settings as _settings

    kw = dict(scale="cpu", tokens=None, layers=None, dtype=None, revision=None)
    for name in ("whisper-base-decoder", "whisper-base-encoder"):
        for init in ("trained", "random"):
            st, _ = _settings(registry.get_spec(name), init=init, **kw)
            assert (st["tokens"], st["clips"], st["window"]) == (2048, 21, 96)
            assert st["source"] == "espeak-ng speech of wiki"
    with pytest.raises(ValueError, match=r"`tokens` must be > d = 512"):
        _settings(
            registry.get_spec("whisper-base-encoder"), init="trained", **{**kw, "tokens": 100}
        )


def test_whisper_stacks_list_their_own_linear_layers():
    from companion.llm.sign_flips import linear_layers

    for name in ("whisper-base-decoder", "whisper-base-encoder"):
        stack = tiny(name, layers=1)
        own = linear_layers(stack)
        assert own and all(n.startswith(f"model.model.{stack.stack}.") for n in own)
        assert stack.get_output_embeddings() is stack.model.proj_out
        assert stack.model.proj_out not in own.values()


def test_missing_espeak_is_one_line_before_loading(monkeypatch, tmp_path, capsys):
    import companion.llm.loading as loading
    import companion.llm.speech as speech
    from companion.cli import main

    monkeypatch.setattr(speech.shutil, "which", lambda name: None)
    monkeypatch.setattr(loading, "load_model", lambda *a, **k: pytest.fail("loaded a model"))
    argv = ["run", "dead-directions", "--model", "whisper-base-encoder", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: whisper-base-encoder: `espeak-ng` must ")
    assert "apt-get install -y espeak-ng" in err[0]
    assert not list(tmp_path.iterdir())  # nothing written
