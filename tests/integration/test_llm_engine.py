"""Integration tests of the model engine (companion.llm): tiny random configs of every
registered architecture, two real offline checkpoints on a few hundred tokens, hooks,
resume, and the failure modes (each fails clearly and leaves no result file)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm import registry  # noqa: E402
from companion.llm.capture import StreamingGram, hook_count, hooks  # noqa: E402
from companion.llm.dead_directions import diagnose, results_path, run_dead_directions  # noqa: E402
from companion.llm.loading import HubUnavailable, build_random, load_model  # noqa: E402
from companion.llm.norms import NormNotFound, find_final_norm  # noqa: E402
from companion.results import ResultStore, run_record, settings_key  # noqa: E402

# the engine's models; the trained-here twins are tested in tests/unit/test_train.py
ALL = [s.name for s in registry.list_models() if s.source != "trained-here"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("COMPANION_PROGRESS", "0")


def tiny(name, layers=1, width=32, vocab=128):
    spec = registry.get_spec(name)
    over = {"image_size": 32, "patch_size": 8} if spec.modality == "image" else None
    return build_random(spec, num_layers=layers, width=width, vocab_size=vocab, overrides=over)


def tiny_batches(model, n_tokens=192, seq=32, seed=0):
    if hasattr(model, "example_input"):  # Whisper's stacks: log-mel features + transcript
        return [model.example_input(batch=2, seq=seq, seed=seed)]  # 64 tokens or 3000 frames
    g = torch.Generator().manual_seed(seed)
    if getattr(model, "main_input_name", "input_ids") == "pixel_values":
        n_img = -(-n_tokens // 17)  # 16 patches + CLS per image
        return [{"pixel_values": torch.randn(n_img, 3, 32, 32, generator=g)}]
    ids = torch.randint(0, 128, (n_tokens // seq, seq), generator=g)  # (windows, seq)
    return list(ids.split(2))


@pytest.mark.parametrize("name", ALL)
def test_tiny_every_architecture(name):
    spec = registry.get_spec(name)
    model = tiny(name)
    probe = model.example_input() if hasattr(model, "example_input") else None  # speech stacks
    fn = find_final_norm(model, example_input=probe)
    assert fn.kind == spec.norm
    assert fn.offset == spec.gamma_offset
    assert fn.post_ln == spec.post_ln
    diag = diagnose(model, tiny_batches(model), final_norm=fn if probe else None)
    assert hook_count(model) == 0
    assert diag.n_tokens > diag.d
    assert diag.dtype == "float32"
    if spec.norm == "layernorm":
        assert diag.verdict == "layernorm", diag.classifier_reason
        assert diag.cos >= 0.9999
    else:
        assert diag.verdict == "rmsnorm", diag.classifier_reason
    assert len(diag.sigma_min) == len(diag.sigma_min_no_pos0) >= 2
    assert diag.profile_degenerate == spec.post_ln


def test_opt_final_norm_is_not_the_per_layer_one():
    model = tiny("opt-125m", layers=2)
    assert find_final_norm(model).name == "decoder.final_layer_norm"


def test_gemma_effective_gamma_is_one_plus_weight():
    model = tiny("gemma3-270m", layers=1)
    with torch.no_grad():
        model.norm.weight.copy_(torch.linspace(-0.5, 300.0, 32))  # trained Gemma: up to 300
    fn = find_final_norm(model)
    np.testing.assert_array_equal(fn.gamma, 1.0 + model.norm.weight.detach().double().numpy())


class _ScaleNorm(torch.nn.Module):
    """A LayerNorm written by hand (unknown class name to the engine)."""

    def __init__(self, d):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 2.0, d))
        self.bias = torch.nn.Parameter(torch.zeros(d))

    def forward(self, x):
        xc = x - x.mean(-1, keepdim=True)
        return self.weight * xc / torch.sqrt(xc.pow(2).mean(-1, keepdim=True) + 1e-6) + self.bias


class _Toy(torch.nn.Module):
    def __init__(self, d=16, with_norm=True):
        super().__init__()
        self.emb = torch.nn.Embedding(50, d)
        self.mix = torch.nn.Linear(d, d)
        self.final = _ScaleNorm(d) if with_norm else torch.nn.Identity()
        self.head = torch.nn.Linear(d, 50)

    def forward(self, input_ids):
        return self.head(self.final(self.mix(self.emb(input_ids))))


def test_unknown_architecture_norm_found_from_the_head():
    model = _Toy()
    fn = find_final_norm(model, example_input={"input_ids": torch.arange(8).view(1, -1)})
    assert fn.name == "final" and fn.kind == "layernorm"
    np.testing.assert_array_equal(fn.gamma, model.final.weight.detach().double().numpy())
    diag = diagnose(
        model,
        [torch.randint(0, 50, (4, 16), generator=torch.Generator().manual_seed(1))],
        final_norm=fn,
        profile=False,
    )
    assert diag.verdict == "layernorm" and diag.cos > 0.9999


def test_model_without_final_norm_fails_listing_what_was_found():
    model = _Toy(with_norm=False)
    with pytest.raises(NormNotFound, match="found none among its module types: Embedding"):
        find_final_norm(model, example_input={"input_ids": torch.arange(8).view(1, -1)})
    model.extra = torch.nn.LayerNorm(16)  # a norm that is never on the output path
    with pytest.raises(
        NormNotFound, match=re.escape("none of the norm-like modules found does: extra (LayerNorm)")
    ):
        find_final_norm(model, example_input={"input_ids": torch.arange(8).view(1, -1)})


def test_hooks_are_removed_even_on_error():
    model = tiny("gpt2")

    def boom(name, m, i, o):
        raise RuntimeError("inside the hook")

    with pytest.raises(RuntimeError, match="inside the hook"):
        with hooks({"ln_f": model.ln_f, "h0": model.h[0]}, boom):
            model(torch.zeros(1, 4, dtype=torch.long))
    assert hook_count(model) == 0
    with pytest.raises(KeyError):
        with hooks({"ln_f": model.ln_f}, lambda *a: None):
            raise KeyError("body")
    assert hook_count(model) == 0


def test_streaming_gram_matches_one_shot():
    x = torch.randn(3, 40, 5, generator=torch.Generator().manual_seed(2))
    g = StreamingGram()
    for part in x.split(1):
        g.update(part)
    ref = np.cov(x.reshape(-1, 5).double().numpy(), rowvar=False)
    np.testing.assert_allclose(g.acc.covariance(), ref, rtol=1e-12, atol=1e-14)


def test_unknown_model_name_fails_and_writes_nothing(tmp_path):
    msg = "`name` must be a registered model ("
    with pytest.raises(ValueError, match=re.escape(msg)):
        run_dead_directions("gpt-5", out=str(tmp_path))
    assert not os.path.exists(results_path(str(tmp_path)))


def test_hub_name_without_network_fails_at_once(tmp_path):
    with pytest.raises(HubUnavailable, match="offline alternative: 'minilm-l6'"):
        load_model("gpt2")
    with pytest.raises(HubUnavailable, match="offline alternative: 'smollm2-135m'"):
        run_dead_directions("tinyllama-1.1b", init="trained", out=str(tmp_path))
    assert not os.path.exists(results_path(str(tmp_path)))


def test_revision_only_for_trained_hub_models(tmp_path):
    msg = (
        "`revision` must be None unless init='trained' on a hub model; got 'step1000' for "
        "'minilm-l6' (offline, init='trained')"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        run_dead_directions("minilm-l6", revision="step1000", out=str(tmp_path))
    with pytest.raises(HubUnavailable, match="offline alternative"):
        run_dead_directions("pythia-160m", revision="step1000", out=str(tmp_path))
    assert not os.path.exists(results_path(str(tmp_path)))


def test_too_few_tokens_fails_and_writes_nothing(tmp_path):
    msg = (
        "`tokens` must be > d = 384 for model 'minilm-l6' (a unique bottom direction needs "
        "N > d); got 300"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        run_dead_directions("minilm-l6", tokens=300, out=str(tmp_path))
    assert not os.path.exists(results_path(str(tmp_path)))
    model = tiny("llama" if False else "smollm2-135m")
    with pytest.raises(
        ValueError, match=re.escape("`batches` must provide more than d = 32 tokens")
    ):
        diagnose(model, [torch.zeros(1, 20, dtype=torch.long)])
    assert hook_count(model) == 0


def test_failed_measure_leaves_no_record(tmp_path):
    store = ResultStore(tmp_path / "r.jsonl")

    def fails():
        raise RuntimeError("midway")

    with pytest.raises(RuntimeError):
        run_record(store, {"a": 1}, fails)
    assert not os.path.exists(store.path)
    run_record(store, {"a": 2}, lambda: {"v": 1})
    with pytest.raises(RuntimeError):
        run_record(store, {"a": 1}, fails)
    assert [r["settings"] for r in store.records()] == [{"a": 2}]
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp")]


def test_resume_after_an_interrupted_run(tmp_path, monkeypatch):
    import companion.llm.dead_directions.driver as dd  # the driver calls its diagnose
    import companion.llm.loading as loading

    built = []

    def fake_load(name, **kw):
        built.append(name)
        tok = loading.load_tokenizer("minilm-l6")
        return tiny(name, layers=1, vocab=len(tok)), tok

    monkeypatch.setattr(loading, "load_model", fake_load)
    real = dd.diagnose
    calls = {"n": 0}

    def interrupting(*a, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # a Colab disconnect in the middle of the second model
        return real(*a, **kw)

    monkeypatch.setattr(dd, "diagnose", interrupting)
    out = str(tmp_path)
    kw = dict(init="random", layers=1, out=out, tokens=400, show_progress=False)
    run_dead_directions("minilm-l6", **kw)
    with pytest.raises(KeyboardInterrupt):
        run_dead_directions("dinov2-small", **kw)
    recs = ResultStore(results_path(out)).records()
    assert [r["model"] for r in recs] == ["minilm-l6"]
    monkeypatch.setattr(dd, "diagnose", real)
    built.clear()
    for name in ("minilm-l6", "dinov2-small"):
        run_dead_directions(name, resume=True, **kw)
    assert built == ["dinov2-small"]  # the finished one was skipped
    recs = ResultStore(results_path(out)).records()
    assert [r["model"] for r in recs] == ["minilm-l6", "dinov2-small"]
    assert len({r["key"] for r in recs}) == 2
    assert all(r["command"] and r["version"] and r["dtype"] == "float32" for r in recs)


def test_token_windows_are_disjoint_with_offset():
    from companion.llm.data import token_windows
    from companion.llm.loading import load_tokenizer

    tok = load_tokenizer("minilm-l6")
    a = token_windows(tok, n_windows=2, window=64, source="lee")
    b = token_windows(tok, n_windows=2, window=64, source="lee", offset=2)
    both = token_windows(tok, n_windows=4, window=64, source="lee")
    assert a.shape == (2, 64) and a.dtype == torch.long
    assert torch.equal(torch.cat([a, b]), both)
    with pytest.raises(ValueError, match=r"`n_windows` must be <= \d+ for source 'lee'"):
        token_windows(tok, n_windows=10**6, window=64, source="lee")


def test_minilm_trained_few_hundred_tokens():
    from companion.llm.data import token_windows

    model, tok = load_model("minilm-l6")
    ids = token_windows(tok, n_windows=2, window=256)  # 512 tokens > d = 384
    diag = diagnose(model, [ids])
    assert diag.norm_name == "encoder.layer.5.output.LayerNorm" and diag.post_ln
    # v* lies on MiniLM's dead γ coordinates (|γ_i| ~ 1e-9), a kernel of any norm: the
    # classifier says so (null_classifier.dead_share, issue 18) instead of "layernorm"
    assert diag.verdict == "undetermined" and diag.rayleigh < 1e-10
    # trained MiniLM has γ entries ~1e-9: those coordinates are numerically dead too, so the
    # single bottom eigenvector is arbitrary inside a several-dimensional null space; v* lies in it
    assert diag.fp64.kernel_dim >= 2
    assert diag.fp64.cos_subspace > 0.999 and diag.forward.cos_subspace > 0.999
    assert 0.5 < diag.gamma_stats["mean"] < 0.8  # trained γ, mean 0.64
    assert hook_count(model) == 0


def test_smollm2_trained_few_hundred_tokens():
    from companion.llm.data import token_windows

    model, tok = load_model("smollm2-135m")  # cached fp32 after first load
    assert type(model).__name__ == "LlamaForCausalLM"
    ids = token_windows(tok, n_windows=3, window=256)  # 768 tokens > d = 576
    diag = diagnose(model, [ids], profile_tokens=256)
    assert diag.norm_name == "model.norm" and diag.norm_kind == "rmsnorm"
    assert diag.verdict == "rmsnorm"
    assert diag.gamma_stats["min"] == pytest.approx(-2.125)
    assert len(diag.sigma_min) == 31
    assert hook_count(model) == 0


def test_import_stays_light():
    code = (
        "import sys, companion, companion.theory, companion.llm, companion.llm.cli, "
        "companion.llm.registry; import companion.cli as c; c._build_parser(); "
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_cli_models_prints_the_registry(capsys):
    from companion.cli import main

    assert main(["models"]) == 0
    text = capsys.readouterr().out
    for name in [s.name for s in registry.list_models()]:  # the trained-here twins too
        assert name in text


def test_the_registry_is_its_toml_file(tmp_path):
    """``models.toml`` is the registry: every table becomes a ModelSpec, a shared config is
    looked up by name, and a table with an unknown or missing field is refused, naming it."""
    import tomllib

    data = tomllib.loads(registry.REGISTRY_FILE.read_text(encoding="utf-8"))
    assert [m["name"] for m in data["model"]] == [s.name for s in registry.list_models()]
    assert registry.get_spec("whisper-base-encoder").config == data["configs"]["whisper-base"]
    bad = tmp_path / "models.toml"
    for text, match in [
        ('[[model]]\nname = "x"\nwidht = 4\n', r"model 'x' has unknown fields \['widht'\]"),
        ('[[model]]\nname = "x"\nconfig = "nope"\n', r"model 'x': no \[configs.nope\] table"),
        ('[[model]]\nname = "x"\n', "model 'x': .*missing"),
    ]:
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=match):
            registry._read_registry(bad)


def test_settings_key_is_order_free():
    assert settings_key({"a": 1, "b": [1, 2]}) == settings_key({"b": [1, 2], "a": 1})


def test_smoke_records_say_what_was_built(tmp_path):
    """A smoke build of a 768-wide, 12-block model is one block of width 32: its records say
    so ("layers" and "width" were the registry's 12 and 768), the diagnosis and the σ_min
    split alike."""
    from companion.llm.dead_directions.sublayers_run import run_sigma_split

    rec = run_dead_directions(
        "gpt2", init="trained", scale="smoke", out=str(tmp_path), show_progress=False
    )
    assert (rec["d"], rec["width"], rec["layers"]) == (32, 32, 1)
    split = run_sigma_split("gpt2", scale="smoke", out=str(tmp_path / "split"))
    assert (split["width"], split["layers"]) == (32, 1)
    assert split["wall_s"] > 0  # timed by run_record


@pytest.mark.parametrize("out", ["/proc/nope", "", "/dev/null"])
def test_walk_checks_out_before_any_model_loads(out, capsys, monkeypatch):
    """``run walk --out /proc/nope`` walked the model for 30 s and then failed with a raw
    ``[Errno 2]``: the folder is checked first, one line, exit 2."""
    import companion.llm.dead_directions.walk as walk
    from companion import cli

    def never(*a, **kw):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(walk, "capture_head", never)
    assert (
        cli.main(["run", "walk", "--model", "smollm2-135m", "--scale", "smoke", "--out", out]) == 2
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("error: argument --out: must ")
