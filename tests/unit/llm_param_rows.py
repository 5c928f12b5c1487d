"""The ``companion.llm`` rows of ``test_param_validation.py``: valid arguments of every public
function of the engine, built lazily (torch, transformers and the offline models load only
when ``companion.llm`` is collected, once per session).

The shared objects are tiny: a one-block Llama (width 16, vocabulary 64) at random init, two
windows of 16 token ids, its Linear layers, and a Whisper of width 16 at random init.
Everything a row builds is registered in :data:`SHARED`, so the harness passes those objects
as they are instead of deep-copying a model per call.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import struct
import tempfile
from types import SimpleNamespace

import numpy as np

#: Objects the harness must not copy (models, their modules and tensors, tokenizers).
SHARED: list = []

Q = "model.layers.0.self_attn.q_proj"


def _share(*objs):
    import torch

    for obj in objs:
        SHARED.append(obj)
        if isinstance(obj, torch.nn.Module):
            SHARED.extend(obj.modules())
            SHARED.extend(obj.parameters())
    return objs[0] if len(objs) == 1 else objs


@functools.cache
def ns() -> SimpleNamespace:
    """The tiny Llama, its windows and layers, and what the sign-flip rows read."""
    import dataclasses

    import torch
    import transformers

    from companion.llm import sign_flips as sf
    from companion.llm.loading import load_tokenizer

    cfg = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
    )
    state = torch.random.get_rng_state()
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).eval()
    torch.random.set_rng_state(state)
    windows = torch.randint(0, 64, (2, 16), generator=torch.Generator().manual_seed(1))
    layers = sf.linear_layers(model)
    out = tempfile.mkdtemp(prefix="companion-validation-")
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    tiny = dataclasses.replace(
        sf.setup("smoke"),
        eval_windows=1,
        window=16,
        calib_windows=1,
        seeds=1,
        leverage_seeds=1,
        sphere_samples=10,
        table1_layers=2,
        min_calib_tokens=16,
        leverage_ps=(0.1,),
        n_columns=3,
    )
    mom = sf.input_moments(model, windows, layers, min_tokens=16)
    cols = sf.outlier_columns({k: v["abs_mean"] for k, v in mom.items()}, 0.25)
    recs = sf.run_experiment(
        "table1",
        "tiny",
        scale="smoke",
        options=sf.Options(setup=tiny),
        inputs=sf.Inputs(model=model),
        out=out,
        progress=False,
        command="validation",
    )
    tok = load_tokenizer("minilm-l6")
    _share(model, windows, tok)
    return SimpleNamespace(
        model=model,
        windows=windows,
        layers=layers,
        out=out,
        tiny=tiny,
        moments=mom,
        columns=cols,
        flips=sf.bernoulli_flips(layers, 0.1, seed=0),
        stats=sf.activation_stats(model, windows, layers, Q, min_tokens=16),
        records=recs,
        summary=sf.summarize("table1", recs),
        tokenizer=tok,
        weight=np.random.default_rng(0).standard_normal((8, 8)),
    )


@functools.cache
def dd() -> SimpleNamespace:
    """The dead-direction objects of the tiny Llama: its final norm, moments, a diagnosis."""
    from companion.llm.dead_directions.diagnosis import read_out
    from companion.llm.dead_directions.moments import accumulate
    from companion.llm.norms import find_final_norm

    n = ns()
    fn = find_final_norm(n.model)
    moments = accumulate(n.model, [n.windows], fn)
    return SimpleNamespace(final_norm=fn, moments=moments, diagnosis=read_out(moments, fn))


@functools.cache
def speech() -> SimpleNamespace:
    """Whisper's tokenizer and feature extractor (offline package), a tiny random Whisper."""
    import torch
    import transformers

    from companion.llm import whisper
    from companion.llm.registry import get_spec

    base = get_spec("whisper-base-decoder").config

    cfg = transformers.WhisperConfig(**base)
    small = transformers.WhisperConfig(
        **{
            **base,
            "d_model": 16,
            "encoder_layers": 1,
            "decoder_layers": 1,
            "encoder_attention_heads": 2,
            "decoder_attention_heads": 2,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
        }
    )
    state = torch.random.get_rng_state()
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(small).eval()
    torch.random.set_rng_state(state)
    tok = whisper.load_tokenizer()
    features = torch.zeros(1, 80, 3000)
    _share(model, tok, features)
    return SimpleNamespace(
        config=cfg,
        extractor=whisper.feature_extractor(cfg),
        tokenizer=tok,
        model=model,
        features=features,
        prefix=whisper.decoder_prefix(tok),
        ids=torch.tensor([whisper.decoder_prefix(tok)]),
    )


def _ct2_bytes() -> bytes:
    """A one-variable CTranslate2 model file (binary version 6)."""

    def s(x: str) -> bytes:
        return struct.pack("<H", len(x) + 1) + x.encode() + b"\0"

    arr = np.arange(4, dtype=np.float32)
    return (
        struct.pack("<I", 6)
        + s("WhisperSpec")
        + struct.pack("<II", 3, 1)
        + s("decoder/w")
        + struct.pack("<BI", 1, 4)
        + struct.pack("<BI", 0, arr.nbytes)
        + arr.tobytes()
        + struct.pack("<I", 0)
    )


def _ct2_path() -> str:
    """:func:`_ct2_bytes` written to a file in the tiny Llama's temporary folder."""
    import os

    path = os.path.join(ns().out, "model.bin")
    with open(path, "wb") as fh:
        fh.write(_ct2_bytes())
    return path


def _torch():
    import torch

    return torch


def _sf():
    from companion.llm import sign_flips as sf

    return sf


def _spec(name):
    from companion.llm.registry import get_spec

    return get_spec(name)


_SF = "llm.sign_flips."
_DD = "llm.dead_directions."

#: ``key -> () -> row`` (a dict of valid arguments, or a list of them).
ROWS = {
    # capture (W2)
    "llm.capture.hooks": lambda: dict(
        modules={"norm": ns().model.model.norm}, fn=lambda *a: None, pre=False
    ),
    "llm.capture.hook_count": lambda: dict(model=ns().model),
    "llm.capture.StreamingGram": lambda: dict(d=4),
    "llm.capture.StreamingGram.update": lambda: dict(x=_torch().ones(3, 4), mask=None),
    "llm.capture.capture_module": lambda: dict(
        module=ns().model.model.norm, what="output", mask_fn=None
    ),
    # the CTranslate2 reader (W1's, phase 1)
    # a path, the main use: a str is then a valid type (a missing file is an OSError)
    "llm.ctranslate2_file.read_model": lambda: dict(source=_ct2_path(), expected_bytes=None),
    # data
    "llm.data.corpus_text": lambda: dict(source="lee"),
    "llm.data.token_windows": lambda: dict(
        tokenizer=ns().tokenizer, n_windows=2, window=16, source="lee", offset=0
    ),
    "llm.data.image_batches": lambda: dict(
        n_images=1, size=8, batch_size=1, seed=0, mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]
    ),
    # dead directions (W2)
    _DD + "diagnosis.read_out": lambda: dict(moments=dd().moments, final_norm=dd().final_norm),
    _DD + "diagnosis.diagnose": lambda: dict(
        model=ns().model,
        batches=[ns().windows],
        final_norm=None,
        profile=True,
        profile_tokens=None,
        recompute_fp64=True,
        show_progress=False,
        total=None,
    ),
    _DD + "driver.run_dead_directions": lambda: dict(
        name="gpt2",
        init="random",
        scale="smoke",
        tokens=None,
        layers=None,
        out=ns().out,
        resume=True,
        device=None,
        dtype=None,
        command="validation",
        show_progress=False,
        profile_tokens=None,
        revision=None,
    ),
    _DD + "driver.results_dir": lambda: dict(scale="smoke", write=False),
    _DD + "driver.results_path": lambda: dict(out=ns().out, scale="smoke"),
    _DD + "driver.load_results": lambda: dict(out=ns().out, scale="smoke"),
    _DD + "moments.accumulate": lambda: dict(
        model=ns().model,
        batches=[ns().windows],
        final_norm=dd().final_norm,
        profile=True,
        profile_tokens=None,
        recompute_fp64=True,
        swap=True,
        folds=2,
        show_progress=False,
        total=None,
    ),
    _DD + "reads.KernelRead.fields": lambda: dict(suffix="_x", arrays=True),
    _DD + "reads.near_null_alignment": lambda: dict(
        C=np.diag([3.0, 1e-9, 2.0]), vstar=[0.0, 1.0, 0.0], dtype="float32", factor=1000.0
    ),
    # evaluate
    "llm.evaluate.evaluate_nll": lambda: dict(model=ns().model, windows=ns().windows, batch_size=1),
    # loading
    "llm.loading.build_random": lambda: dict(
        spec=_spec("gpt2"),
        num_layers=1,
        vocab_size=64,
        width=16,
        seed=0,
        overrides=None,
        causal_lm=False,
    ),
    "llm.devices.check_device": lambda: dict(device="cpu"),
    "llm.devices.as_dtype": lambda: dict(dtype="float32"),
    "llm.loading.load_model": lambda: dict(
        name="gpt2",
        init="random",
        scale="smoke",
        device="cpu",
        dtype="float32",
        num_layers=1,
        revision=None,
    ),
    "llm.loading.load_tokenizer": lambda: dict(name="minilm-l6"),
    "llm.loading.model_info": lambda: dict(model=ns().model),
    # norms (W2)
    "llm.norms.find_final_norm": lambda: dict(model=ns().model, example_input=None),
    "llm.norms.norm_form": lambda: dict(module=ns().model.model.norm, d=None, seed=0),
    "llm.norms.norm_candidates": lambda: dict(model=ns().model),
    "llm.norms.recompute_norm": lambda: dict(x=_torch().ones(3, 16), fn=dd().final_norm, kind=None),
    # registry
    "llm.dead_directions.presets.ScalePreset.n_tokens": lambda: dict(width=16),
    "llm.dead_directions.presets.ScalePreset.width": lambda: dict(spec=_spec("gpt2")),
    "llm.registry.get_spec": lambda: dict(name="gpt2"),
    "llm.registry.list_models": lambda: dict(norm="layernorm", source="hub"),
    "llm.dead_directions.presets.preset": lambda: dict(scale="smoke"),
    # sign flips
    _SF + "activations.activation_stats": lambda: dict(
        model=ns().model, windows=ns().windows, layers=ns().layers, name=Q, min_tokens=16
    ),
    _SF + "activations.alpha_from_stats": lambda: dict(stats=ns().stats),
    _SF + "activations.input_abs_mean": lambda: dict(
        model=ns().model, windows=ns().windows, layers=ns().layers, min_tokens=16
    ),
    _SF + "activations.input_moments": lambda: dict(
        model=ns().model, windows=ns().windows, layers=ns().layers, min_tokens=16
    ),
    _SF + "activations.log_spaced_columns": lambda: dict(alpha=[0.01, 0.1, 1.0, 0.02, 0.5], k=3),
    _SF + "activations.outlier_columns": lambda: dict(
        abs_mean={"a": np.array([0.1, 5.0, 0.2, 3.0])}, frac=0.5
    ),
    _SF + "activations.single_flip_energy": lambda: dict(
        weight=[[1.0, 0.0], [1.0, 2.0]], ex2=[1.0, 0.5]
    ),
    _SF + "activations.spearman": lambda: dict(a=[1.0, 2.0, 3.0, 4.0], b=[10.0, 20.0, 25.0, 100.0]),
    _SF + "experiments.experiment": lambda: dict(name="alpha"),
    _SF + "experiments.format_summary": lambda: dict(s=ns().summary),
    _SF + "experiments.summarize": lambda: dict(experiment="table1", records=ns().records),
    _SF + "layers.default_target": lambda: dict(layers=ns().layers),
    _SF + "layers.evenly_spaced": lambda: dict(names=list("abcdefghij"), k=4),
    _SF + "layers.get_linear": lambda: [
        dict(model=ns().model, name=Q, layers=ns().layers),
        dict(model=ns().model, name=Q),
    ],
    _SF + "layers.linear_layers": lambda: dict(model=ns().model),
    _SF + "activations.leverage_prediction": lambda: dict(
        layers=ns().layers, moments=ns().moments, columns=ns().columns
    ),
    _SF + "masks.FlipSet.sq_norm": lambda: dict(layers=ns().layers),
    _SF + "masks.allocate": lambda: dict(sizes={"a": 300, "b": 100}, n_flips=10),
    _SF + "masks.bernoulli_flips": lambda: [
        dict(layers=ns().layers, p=0.1, seed=0, columns=None, pool="all"),
        dict(layers=ns().layers, p=0.1, seed=0, columns=ns().columns, pool="outlier"),
    ],
    _SF + "masks.column_flip_set": lambda: dict(layer_name=Q, weight_shape=(16, 16), column=3),
    _SF + "masks.count_matched_flips": lambda: dict(
        layers=ns().layers, n_flips=10, columns=ns().columns, pool="non", seed=0
    ),
    _SF + "masks.matrix_rng": lambda: dict(seed=0, layer_index=3, tag="all"),
    _SF + "masks.pool_sizes": lambda: [
        dict(layers=ns().layers, columns=ns().columns, pool="outlier"),
        dict(layers=ns().layers, columns=None, pool="all"),
    ],
    _SF + "perturbations.perturbed": lambda: dict(
        layers=ns().layers, flips=ns().flips, kind="scaled_flip", scale=0.5
    ),
    _SF + "runner.Inputs": lambda: dict(
        model=ns().model,
        tokenizer=ns().tokenizer,
        windows=ns().windows,
        calib=ns().windows,
        device="cpu",
    ),  # fmt: skip
    _SF + "runner.Options": lambda: dict(
        seeds=1, p=0.05, ps=[0.05, 0.01], layer=Q, calibration="disjoint", setup=ns().tiny
    ),
    _SF + "runner.command_line": lambda: dict(
        experiment="table1", model="smollm2-135m", scale="cpu", seeds=2
    ),
    _SF + "runner.load_results": lambda: dict(
        model="tiny", experiment="table1", scale="smoke", out=ns().out
    ),
    _SF + "runner.results_path": lambda: dict(
        out=ns().out, model="tiny", experiment="table1", scale="smoke"
    ),
    _SF + "runner.run_experiment": lambda: dict(
        experiment="table1",
        model_name="tiny",
        scale="smoke",
        options=_sf().Options(setup=ns().tiny),
        inputs=_sf().Inputs(model=ns().model),
        out=ns().out,
        resume=True,
        command="validation",
        progress=False,
    ),
    _SF + "setups.Setup": lambda: (
        {k: getattr(ns().tiny, k) for k in ns().tiny.__dataclass_fields__}
        | {"leverage_ps": [0.1, 0.05]}
    ),
    _SF + "setups.setup": lambda: dict(scale="smoke"),
    _SF + "table1.table1_layer": lambda: dict(name=Q, weight=ns().weight, samples=10, rng=0),
    _SF + "table1.vector_cos2": lambda: dict(weight=ns().weight, samples=10, rng=0, batch=5),
    # speech (W2)
    "llm.speech.synthesize": lambda: dict(text="Hello world.", voice="en-us", speed=175),
    "llm.speech.resample": lambda: dict(
        audio=np.sin(np.arange(800) / 5.0), rate=8000, target=16000
    ),
    "llm.speech.log_mel": lambda: dict(
        audio=np.sin(np.arange(1600) / 5.0), sampling_rate=16000, extractor=speech().extractor
    ),
    "llm.speech.speech_paragraphs": lambda: dict(source="lee", min_chars=80),
    "llm.speech.transcript_windows": lambda: dict(
        tokenizer=speech().tokenizer, n_windows=1, window=16, offset=0, source="lee"
    ),
    "llm.speech.speech_clips": lambda: dict(
        tokenizer=speech().tokenizer,
        extractor=speech().extractor,
        n_clips=1,
        window=8,
        offset=0,
        voice="en-us",
        source="lee",
    ),  # fmt: skip
    "llm.speech.speech_batches": lambda: dict(
        tokenizer=speech().tokenizer,
        extractor=speech().extractor,
        n_clips=1,
        window=8,
        offset=0,
        batch_size=1,
        voice="en-us",
        source="lee",
    ),  # fmt: skip
    "llm.speech.clips_for_tokens": lambda: dict(tokens=100, window=96, stack="decoder"),
    # whisper (W2)
    "llm.whisper.conversion.whisper_config": lambda: dict(ct2=_ct2(), settings=None),
    "llm.whisper.conversion.hf_names": lambda: dict(name="decoder/layer_0/ffn/linear_0/weight"),
    "llm.whisper.checkpoint.load_tokenizer": lambda: dict(folder=None, checkpoint="whisper-base"),
    "llm.whisper.checkpoint.get_checkpoint": lambda: dict(checkpoint="whisper-tiny-en"),
    "llm.whisper.checkpoint.package_files": lambda: dict(checkpoint="whisper-base"),
    "llm.whisper.checkpoint.package_settings": lambda: dict(checkpoint="whisper-base"),
    "llm.whisper.conversion.special_token_ids": lambda: dict(vocab_size=51864),
    "llm.whisper.stacks.checkpoint_of": lambda: dict(name="whisper-tiny-en-decoder"),
    "llm.whisper.checkpoint.feature_extractor": lambda: dict(config=speech().config),
    "llm.whisper.transcription.decoder_prefix": lambda: dict(tokenizer=speech().tokenizer),
    "llm.whisper.transcription.greedy_transcribe": lambda: dict(
        model=speech().model,
        input_features=speech().features,
        prefix=speech().prefix,
        max_new_tokens=2,
    ),
    "llm.whisper.stacks.WhisperDecoderStack": lambda: dict(model=speech().model),
    "llm.whisper.stacks.WhisperDecoderStack.forward": lambda: dict(
        input_ids=speech().ids,
        input_features=speech().features,
        encoder_hidden_states=None,
        output_hidden_states=False,
    ),
    "llm.whisper.stacks.WhisperEncoderStack": lambda: dict(model=speech().model),
    "llm.whisper.stacks.WhisperEncoderStack.forward": lambda: dict(
        input_features=speech().features, input_ids=None, output_hidden_states=False
    ),
    "llm.whisper.stacks.load_stack": lambda: dict(
        spec=_spec("whisper-base-decoder"), init="random", num_layers=1, dtype=None, device=None
    ),
    "llm.whisper.stacks.build_random_stack": lambda: dict(
        spec=_spec("whisper-base-encoder"),
        num_layers=1,
        vocab_size=64,
        width=16,
        seed=0,
        overrides=None,
    ),
}


@functools.cache
def _plan():
    """A T4 plan of both parts at smoke scale, a folder for the walk, a walk record."""
    from companion.llm import plan as pl
    from companion.llm.registry import get_spec

    out = tempfile.mkdtemp(prefix="companion-walk-validation-")
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    rt = pl.colab_runtime("T4")
    steps = pl.plan("smoke", runtime=rt, random_models=["gpt2"], trained_models=["gpt2"])
    rec = {"model": "gpt2", "c": 0.1, "curves": {"flat": {"max_abs_dnll": 1e-9}}, "run_s": 1.0}
    return SimpleNamespace(rt=rt, steps=steps, spec=get_spec("gpt2"), out=out, rec=rec)


def _t4():
    from companion.llm.costs import device_for

    return device_for("Tesla T4", 15.0)


def _hw():
    from companion.theory.head_walk import toy_head_walk

    return toy_head_walk(V=6, d=4, n=12, rng=0)


ROWS.update(
    {
        # costs, runtime, plan (issue 21)
        "llm.costs.device_for": lambda: dict(name="Tesla T4", memory_gb=15.0, cpus=2),
        "llm.costs.weights_gb": lambda: dict(spec=_plan().spec, dtype="float16"),
        "llm.costs.dead_directions_cost": lambda: dict(
            spec=_plan().spec,
            tokens=1024,
            batch_tokens=256,
            layers=2,
            dtype="float32",
            device=_t4(),
            trained=True,
        ),
        "llm.costs.sign_flips_cost": lambda: dict(
            spec=_plan().spec,
            evaluations=3,
            perturbed=2,
            eval_tokens=256,
            window=64,
            p_max=0.05,
            dtype="float16",
            device=_t4(),
        ),
        "llm.runtime.read_runtime": lambda: dict(
            gpu_memory_gb=15.0, gpu_name="T4", ram_gb=12.0, probe_hub=False
        ),
        "llm.plan.colab_runtime": lambda: dict(gpu="T4"),
        "llm.plan.planned_scale": lambda: dict(scale="cpu"),
        "llm.plan.plan": lambda: dict(
            scale="smoke",
            runtime=_plan().rt,
            parts=("dead-directions",),
            random_models=["gpt2"],
            trained_models=["gpt2"],
            sign_flip_model="tinyllama-1.1b",
        ),
        "llm.plan.chapter_plan": lambda: dict(scale="cpu", part="sign-flips"),
        "llm.plan.format_plan": lambda: dict(
            steps=_plan().steps, runtime=_plan().rt, scale="smoke"
        ),
        "llm.plan.to_json": lambda: dict(steps=_plan().steps, runtime=_plan().rt, scale="smoke"),
        "llm.plan.plan_html": lambda: dict(steps=_plan().steps, runtime=_plan().rt, caption="x"),
        "llm.plan_run.run_what_fits": lambda: dict(
            steps=[s for s in _plan().steps if not s.fits][:1] or [],
            scale="smoke",
            out=_plan().out,
            echo=lambda *a: None,
        ),
        # the walk (issue 23)
        _DD + "walk.walk_head": lambda: dict(hw=_hw(), ts=[0.1, 1.0], n_random=1, seed=0),
        _DD + "walk.results_path": lambda: dict(out=_plan().out, scale="smoke"),
        _DD + "walk.load_walk": lambda: dict(out=_plan().out, scale="smoke"),
        _DD + "walk.summary": lambda: dict(rec=_plan().rec),
        _DD + "walk.capture_head": lambda: dict(
            name="smollm2-135m", scale="smoke", settings=None, model=None, device="cpu"
        ),
        _DD + "walk.run_walk": lambda: dict(
            name="smollm2-135m",
            scale="smoke",
            tokens=64,
            n_random=1,
            seed=0,
            ts=[0.1, 1.0],
            out=_plan().out,
            resume=True,
            command="test",
        ),
        # the σ_min split by sublayer (issue 22)
        _DD + "sublayers.accumulate_split": lambda: dict(
            model=ns().model, batches=[ns().windows], final_norm=None, profile_tokens=None, folds=2
        ),
        _DD + "sublayers.split_of": lambda: dict(states=_split().states, tokens=_split().tokens),
        _DD + "sublayers.localise": lambda: dict(split=_split().split, k=4.0),
        _DD + "sublayers.cancelling": lambda: dict(
            model=ns().model, block=1, sublayer="mlp", direction=np.ones(16), c=0.99
        ),
        _DD + "sublayers_run.run_sigma_split": lambda: dict(
            name="smollm2-135m",
            init="trained",
            scale="smoke",
            tokens=None,
            cancel=None,
            out=_plan().out,
            resume=True,
            device=None,
            dtype=None,
            command="test",
        ),
        _DD + "sublayers_run.split_results_path": lambda: dict(
            out=_plan().out, scale="smoke", write=False
        ),
        _DD + "sublayers_run.load_split_results": lambda: dict(out=_plan().out, scale="smoke"),
    }
)


@functools.cache
def _split():
    """The sublayer split of the tiny Llama on its two windows (two folds)."""
    from companion.llm.dead_directions.sublayers import accumulate_split, split_of

    m = accumulate_split(ns().model, [ns().windows], folds=2)
    return SimpleNamespace(states=m.states, tokens=m.tokens, split=split_of(m.states))


@functools.cache
def _ct2():
    from companion.llm.whisper import read_checkpoint

    return read_checkpoint(verify=False)


#: ``owner -> () -> instance`` whose public methods are checked.
INSTANCES = {
    "llm.capture.StreamingGram": lambda: __import__(
        "companion.llm.capture", fromlist=["StreamingGram"]
    ).StreamingGram(4),
    _DD + "reads.KernelRead": lambda: dd().diagnosis.forward,
    "llm.dead_directions.presets.ScalePreset": lambda: _preset("cpu"),
    _SF + "masks.FlipSet": lambda: ns().flips,
    "llm.whisper.stacks.WhisperDecoderStack": lambda: _share(
        __import__("companion.llm.whisper", fromlist=["x"]).WhisperDecoderStack(speech().model)
    ),
    "llm.whisper.stacks.WhisperEncoderStack": lambda: _share(
        __import__("companion.llm.whisper", fromlist=["x"]).WhisperEncoderStack(speech().model)
    ),
}


def _preset(scale):
    from companion.llm.dead_directions.presets import preset

    return preset(scale)


_RECORD = "a result record the library builds; its fields are not user input"
_CLI = "an argparse Namespace of `companion run`; its options are checked there (test_cli_errors)"
#: Targets that are not checked, with the reason.
EXEMPT = {
    "llm.cli.add_commands": "argparse plumbing: takes the parser's subparsers object",
    "llm.plan_cli.add_commands": "argparse plumbing: takes the parser's subparsers object",
    _DD + "walk_cli.add_walk_command": "argparse plumbing: takes `companion run`'s subparsers",
    _DD + "walk.run_cli": _CLI,
    "llm.costs.Cost": _RECORD + " (from dead_directions_cost / sign_flips_cost)",
    "llm.costs.Device": _RECORD + " (from device_for)",
    "llm.plan.Step": _RECORD + " (from plan)",
    "llm.runtime.Runtime": _RECORD + " (from read_runtime / colab_runtime)",
    "llm.ctranslate2_file.CT2File": _RECORD + " (from read_model)",
    _DD + "diagnosis.Diagnosis": _RECORD + " (from read_out)",
    _DD + "driver.run_cli": _CLI,
    _DD + "moments.Moments": _RECORD + " (from accumulate)",
    _DD + "sublayers.SublayerSplit": _RECORD + " (from split_of)",
    _DD + "reads.KernelRead": _RECORD,
    _DD + "reads.SchurRead": _RECORD,
    _DD + "reads.SigmaProfile": _RECORD,
    "llm.evaluate.NLLResult": _RECORD + " (from evaluate_nll)",
    "llm.norms.FinalNorm": _RECORD + " (from find_final_norm)",
    "llm.registry.ModelSpec": "a registry entry the library defines (get_spec)",
    "llm.dead_directions.presets.ScalePreset": "a preset the library defines (preset)",
    "llm.progress.progress": "a thin tqdm.auto wrapper: its arguments are tqdm's, checked by tqdm",
    _SF + "masks.FlipSet": _RECORD + " (from bernoulli_flips and friends)",
    _SF + "runner.run_cli": _CLI,
    "llm.speech.Clip": _RECORD + " (from speech_clips)",
    # cost, not trust: each valid call reads or writes the 290 MB Whisper checkpoint
    "llm.whisper.checkpoint.read_checkpoint": "reads and hashes 150 MB per call (test_whisper)",
    "llm.whisper.checkpoint.Checkpoint": "a frozen record of package names and paths (data)",
    "llm.whisper.conversion.convert": "writes the 290 MB converted checkpoint (a minute per call)",
    "llm.whisper.conversion.load_whisper": "loads (first converts) the 290 MB checkpoint",
    "llm.whisper.conversion.convert_state_dict": "converts all 72 M parameters per call",
}

#: Scalar parameters that also take arrays.
ACCEPTS_ARRAYS: set = set()

#: Array parameters for which an empty array is valid (documented result).
EMPTY_OK: dict = {}

#: Parameter names that mean a count, size or index (in addition to theory's).
NON_NEGATIVE = {
    "batch_size", "column", "layer_index", "max_new_tokens", "min_chars", "min_tokens",
    "n_clips", "n_flips", "n_images", "n_windows", "num_layers", "offset", "profile_tokens",
    "rate", "sampling_rate", "seed", "size", "speed", "target", "tokens", "vocab_size",
    "width", "window", "expected_bytes", "folds", "eval_windows", "calib_windows",
    "leverage_seeds", "sphere_samples", "table1_layers", "min_calib_tokens", "n_columns",
    "memory_gb", "cpus", "batch_tokens", "layers", "evaluations", "perturbed", "eval_tokens",
    "gpu_memory_gb", "ram_gb", "n_random",
}  # fmt: skip
POSITIVE = {
    "batch_size", "max_new_tokens", "min_tokens", "n_clips", "n_images", "n_windows",
    "num_layers", "rate", "sampling_rate", "size", "speed", "target", "tokens", "vocab_size",
    "width", "window", "folds", "eval_windows", "calib_windows", "leverage_seeds",
    "sphere_samples", "table1_layers", "min_calib_tokens", "n_columns",
    "memory_gb", "cpus", "batch_tokens", "layers", "eval_tokens",
    "gpu_memory_gb", "ram_gb", "n_random",
}  # fmt: skip

#: Cases that fail only because of code another helper owns: ``case id -> reason``, each a
#: strict expected failure (it turns red when fixed, and then its line goes). None now.
PENDING: dict = {}


def _flip_in(layer: str, index: int):
    sf = _sf()
    return sf.perturbed(ns().layers, sf.FlipSet({layer: np.array([index])}))


def _columns(index: int) -> dict:
    return {k: np.array([index]) for k in ns().layers}


def _windows(shape, fill=0):
    return _torch().full(shape, fill, dtype=_torch().long)


#: ``(call, exception, message)``: the issue's ``llm`` examples (each a torch internal, a
#: bare Python error or a silent NaN before the fix), then the other degenerate inputs.
EDGE_CASES = [
    (
        lambda: _sf().summarize("alpha", []),  # was a bare StopIteration
        ValueError,
        "`records` must hold at least one 'alpha' record (key 'alpha|'...); got 0 records",
    ),
    (
        lambda: _sf().spearman([1.0, 2.0, 3.0], [1.0, 2.0]),
        ValueError,
        "`b` must have the length of `a` (3); got 2",
    ),
    (
        lambda: _sf().spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]),  # was a silent NaN
        ValueError,
        "`a` must not be constant (no ranks to correlate); got 1.0",
    ),
    (
        lambda: _sf().vector_cos2(np.zeros((4, 4)), samples=10, rng=0),  # 0/0
        ValueError,
        "`weight` must be non-empty with no all-zero rows (cos² is 0/0 there)",
    ),
    (
        lambda: _sf().table1_layer("w", np.ones((4, 4)), samples=10, rng=0),  # kurtosis 0/0
        ValueError,
        "`weight` must not be constant (its kurtosis is 0/0); got one value",
    ),
    (
        lambda: _flip_in("model.layers.9.nope", 0),
        ValueError,
        "`flips` must name layers of `layers`; got 'model.layers.9.nope', which is not one",
    ),
    (
        lambda: _flip_in(Q, 256),  # q_proj is 16 x 16
        ValueError,
        f"`flips` must hold flat indices in [0, 255] for {Q!r}; got [256, 256]",
    ),
    (
        lambda: _flip_in(Q, -1),  # was a silent flip of the last entry
        ValueError,
        f"`flips` must hold flat indices in [0, 255] for {Q!r}; got [-1, -1]",
    ),
    (
        lambda: _sf().bernoulli_flips(ns().layers, 0.1, pool="outlier", columns=_columns(16)),
        ValueError,
        f"`columns[{Q!r}]` must hold column indices in [0, 15]; got [16, 16]",
    ),
    (
        lambda: _sf().bernoulli_flips(ns().layers, 0.1, pool="outlier", columns=_columns(-1)),
        ValueError,
        f"`columns[{Q!r}]` must hold column indices in [0, 15]; got [-1, -1]",
    ),
    (
        lambda: __import__("companion.llm.loading", fromlist=["x"]).load_model(
            "gpt2", init="random", scale="smoke", dtype="float8"
        ),
        ValueError,
        "`dtype` must be one of 'float32', 'float16', 'bfloat16', 'float64' or None; got 'float8'",
    ),
    (
        lambda: __import__("companion.llm.loading", fromlist=["x"]).load_model(
            "gpt2", init="random", scale="smoke", num_layers=10**6
        ),  # was an unbounded build
        ValueError,
        "`num_layers` must be an integer in [1, 12]; got 1000000",
    ),
    (
        lambda: __import__("companion.llm.data", fromlist=["x"]).image_batches(n_images=1, size=0),
        ValueError,
        "`size` must be an integer >= 1; got 0",
    ),
    (
        lambda: __import__("companion.llm.evaluate", fromlist=["x"]).evaluate_nll(
            ns().model, _windows((0, 16))
        ),  # was a silent NaN
        ValueError,
        "`windows` must be a 2-D tensor of at least one window of at least 2 tokens; "
        "got shape (0, 16)",
    ),
    (
        lambda: __import__("companion.llm.evaluate", fromlist=["x"]).evaluate_nll(
            ns().model, _windows((1, 16), 64)
        ),  # was torch's IndexError: index out of range in self
        ValueError,
        "`windows` must hold token ids in [0, 63] (the model's vocabulary); got ids in [64, 64]",
    ),
    (
        lambda: __import__("companion.llm.loading", fromlist=["x"]).build_random(
            __import__("companion.llm.registry", fromlist=["x"]).get_spec("gpt2"), width=10**6
        ),  # was a raw allocation error
        ValueError,
        "`width` must fit in this machine's memory (",
    ),
    (
        lambda: __import__("companion.llm.data", fromlist=["x"]).token_windows(
            ns().tokenizer, n_windows=1, window=32, offset=10**9
        ),  # named `n_windows` and a negative bound
        ValueError,
        "`offset` must be < ",
    ),
    (
        lambda: __import__("companion.llm.data", fromlist=["x"]).token_windows(
            ns().tokenizer, n_windows=1, window=10**9
        ),  # named `offset` ("must be < 0; got 0")
        ValueError,
        "`window` must be <= ",
    ),
    (
        lambda: __import__("companion.llm.data", fromlist=["x"]).token_windows(
            ns().tokenizer, n_windows=10**5000, window=32
        ),  # the message itself failed: str() of an integer over 4,300 digits
        ValueError,
        "`n_windows` must be an integer that fits in 64 bits (|x| < 2**63); got ~1e5000",
    ),
    (
        lambda: __import__("companion.llm.speech", fromlist=["x"]).resample(
            np.zeros((22050, 2)), 22050
        ),  # (time, channels): was resampled across its 2 channels into shape (22050, 1)
        ValueError,
        "`audio` must be 1-D (time) or 2-D (channels, time) with fewer channels than samples; "
        "got shape (22050, 2) (a (time, channels) array: pass audio.T)",
    ),
    (
        lambda: __import__("companion.llm.speech", fromlist=["x"]).resample(
            np.zeros(100), 10**18
        ),  # was a MemoryError (an 8.9 PiB filter)
        ValueError,
        "`rate` must fit in this machine's memory (",
    ),
    (
        lambda: __import__("companion.llm.dead_directions.walk", fromlist=["x"]).run_walk(
            "smollm2-135m", scale="smoke", out="/proc/nope"
        ),  # failed after the walk
        ValueError,
        "`out` must be a folder this process can write; got '/proc/nope'",
    ),
    (
        lambda: __import__("companion.llm.dead_directions.walk", fromlist=["x"]).run_walk(
            "smollm2-135m", scale="smoke", out=""
        ),
        ValueError,
        "`out` must name a folder; got ''",
    ),
    (
        lambda: _sf().vector_cos2(np.ones((8, 8)), samples=10**10),  # ran on unguarded
        ValueError,
        "`samples` must fit in this machine's memory (",
    ),
    (
        lambda: __import__("companion.llm.evaluate", fromlist=["x"]).evaluate_nll(
            _nan_model(), ns().windows
        ),  # was a silent nll = nan
        ValueError,
        "`model` must have finite weights; got non-finite entries in 1 parameters: "
        "model.layers.0.mlp.down_proj.weight (1)",
    ),
]


def _nan_model():
    """A copy of the tiny Llama with one NaN weight (the shared one stays whole)."""
    import copy

    torch = _torch()
    model = copy.deepcopy(ns().model)
    with torch.no_grad():
        model.model.layers[0].mlp.down_proj.weight[0, 0] = float("nan")
    return model


def vector_cos2_of_an_array():
    """``vector_cos2`` of a NumPy matrix (was ``AttributeError: ... 'detach'``): the same
    estimate as of the tensor."""
    torch, sf = _torch(), _sf()
    W = ns().weight
    a = sf.vector_cos2(W, samples=10, rng=0)
    b = sf.vector_cos2(torch.as_tensor(W, dtype=torch.float32), samples=10, rng=0)
    return a, b
