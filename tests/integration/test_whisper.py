"""Whisper from its CTranslate2 packages, for each packaged checkpoint (Whisper-base,
multilingual; tiny.en, English-only): the file as found, every tensor mapped and none left
over, the converted model against CTranslate2's own decoding on speech made here, damaged
files, and both stacks read by the Part II machinery. A checkpoint whose package is not
installed is skipped."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm import whisper as W  # noqa: E402
from companion.llm.norms import find_final_norm  # noqa: E402

pytestmark = pytest.mark.slow

#: Float16 tolerance: the file stores float16, so a faithful conversion agrees with
#: CTranslate2 to float16's relative precision 2^-10 at the scale of the compared values.
F16 = 2.0**-10

#: What each packaged file is, as read off it once: (binary version, spec, revision),
#: variables, bytes, stored parameters, layers per stack, d, the tokenizer's size, and per
#: stack the final LayerNorm's (min |γ|, max |γ|, number of γ < 0).
FACTS = {
    "whisper-base": dict(
        header=(6, "WhisperSpec", 3), n_variables=212, n_bytes=145_217_532,
        n_params=72_603_136, layers=6, d=512, n_tokens=50364,
        gamma={"decoder": (4.16, 37.3, 1), "encoder": (0.56, 4.03, 0)},
    ),
    "whisper-tiny-en": dict(
        header=(6, "WhisperSpec", 3), n_variables=148, n_bytes=75_537_502,
        n_params=37_764_864, layers=4, d=384, n_tokens=50363,
        gamma={"decoder": (0.80, 16.9, 2), "encoder": (0.66, 3.47, 0)},
    ),
}  # fmt: skip


def _installed(ck: str) -> bool:
    from companion.llm.registry import package_installed

    return package_installed(W.get_checkpoint(ck).packages[0][0])


@pytest.fixture(scope="module", params=list(FACTS))
def ck(request):
    if not _installed(request.param):
        pytest.skip(f"the package of {request.param} is not installed")
    return request.param


@pytest.fixture(scope="module")
def ct2(ck):
    return W.read_checkpoint(checkpoint=ck)


@pytest.fixture(scope="module")
def whisper(ck):
    # (model, tokenizer, feature extractor); converts when not cached
    return W.load_whisper(checkpoint=ck)


@pytest.fixture(scope="module")
def final_norms(whisper):
    """Each stack of the trained model and its final norm, found by a probe pass."""
    out = {}
    for cls in (W.WhisperDecoderStack, W.WhisperEncoderStack):
        stack = cls(whisper[0])
        out[stack.stack] = stack, find_final_norm(stack, example_input=stack.example_input())
    return out


@pytest.fixture(scope="module")
def clip(whisper):
    from companion.llm.speech import speech_clips

    _, tok, fe = whisper
    (c,) = speech_clips(tok, fe, n_clips=1, window=48)
    return c


def test_the_file_as_found(ck, ct2):
    f, d = FACTS[ck], FACTS[ck]["d"]
    assert (ct2.binary_version, ct2.spec, ct2.revision) == f["header"]
    assert len(ct2.variables) == f["n_variables"] and ct2.n_bytes == f["n_bytes"]
    assert ct2.n_params == f["n_params"]
    tensors = {n for n, v in ct2.variables.items() if v.ndim}
    assert {ct2.dtypes[n] for n in tensors} == {"float16"}
    assert ct2.aliases == {"decoder/projection/weight": "decoder/embeddings/weight"}
    assert ct2.variables["decoder/layer_0/attention/linear_1/weight"].shape == (2 * d, d)
    assert ct2.variables["encoder/layer_0/self_attention/linear_0/weight"].shape == (3 * d, d)


def test_every_tensor_mapped_none_left_over(ck, ct2, whisper):
    model = whisper[0]
    config = W.whisper_config(ct2, W.package_settings(ck))
    _, mapping = W.convert_state_dict(ct2, config)
    assert set(mapping) == set(ct2.variables) | set(ct2.aliases)
    filled = [t for names in mapping.values() for t in names]
    assert len(filled) == len(set(filled))  # no parameter filled twice
    assert set(filled) == set(model.state_dict())  # every parameter filled, no other
    settings = {n for n, names in mapping.items() if names == ()}
    assert settings == {n for n, v in ct2.variables.items() if v.ndim == 0}
    # each parameter holds exactly its stored float16 values (the fused ones split)
    params = model.state_dict()
    for name, names in mapping.items():
        if name in ct2.aliases or not names:
            continue
        parts = np.split(ct2.variables[name].astype(np.float64), len(W.hf_names(name)))
        for target, part in zip(W.hf_names(name), parts, strict=True):
            if target in names:
                np.testing.assert_array_equal(params[target].double().numpy(), part, target)
            else:  # the key bias Whisper does not have: stored as zeros, dropped
                assert target.endswith("k_proj.bias") and not part.any()
    assert mapping["decoder/layer_2/attention/linear_1/weight"] == (
        "model.decoder.layers.2.encoder_attn.k_proj.weight",
        "model.decoder.layers.2.encoder_attn.v_proj.weight",
    )
    assert model.proj_out.weight.data_ptr() == model.model.decoder.embed_tokens.weight.data_ptr()
    # encoder self, decoder self and cross attention: one key bias each, in every layer
    n_key_bias = 3 * FACTS[ck]["layers"] * FACTS[ck]["d"]
    assert sum(p.numel() for p in model.parameters()) == ct2.n_params - n_key_bias
    from companion.llm.registry import get_spec

    for stack in ("decoder", "encoder"):  # the registry's config is the checkpoint's
        for key, value in get_spec(f"{ck}-{stack}").config.items():
            assert getattr(config, key) == value, key


def _ct2_dir(ck, tmp_path):
    files = W.package_files(ck)
    with open(tmp_path / "model.bin", "wb") as out:
        for part in files["parts"]:
            with open(part, "rb") as fh:
                shutil.copyfileobj(fh, out)
    for key in ("config", "tokenizer", "vocabulary"):
        shutil.copy(files[key], tmp_path)
    return str(tmp_path)


def test_conversion_matches_ctranslate2(ck, whisper, clip, tmp_path):
    ctranslate2 = pytest.importorskip("ctranslate2")
    model, tok, _ = whisper
    prefix = W.decoder_prefix(tok)
    feats = clip.features[None]  # (1, 80, 3000)
    ref = ctranslate2.models.Whisper(_ct2_dir(ck, tmp_path), device="cpu", compute_type="float32")
    # the prompt follows the model's kind (tiny.en: no language or task token)
    assert ref.is_multilingual == (len(prefix) == len(W.PREFIX_TOKENS))
    assert ref.is_multilingual == (model.config.vocab_size >= W.MULTILINGUAL_VOCAB)
    sv = ctranslate2.StorageView.from_array(np.ascontiguousarray(feats))
    (res,) = ref.generate(
        sv, [prefix], beam_size=1, suppress_blank=False, suppress_tokens=[],
        return_logits_vocab=True, max_length=448,
    )  # fmt: skip
    ref_ids = res.sequences_ids[0]  # without <|endoftext|>
    ref_logits = np.stack([np.asarray(x) for x in res.logits[0]])  # (steps, vocab)
    ((ids, logits),) = W.greedy_transcribe(model, torch.from_numpy(feats), prefix)
    assert ids[:-1] == ref_ids and ids[-1] == tok.eos_token_id and len(ref_ids) >= 20
    words = set(tok.decode(ids, skip_special_tokens=True).lower().split())
    assert len(words & set(clip.text.lower().split())) >= len(words) // 2  # it hears the speech
    scale = np.abs(ref_logits).max()
    assert np.abs(logits.numpy() - ref_logits).max() <= F16 * scale
    enc_ref = np.asarray(ref.encode(sv, to_cpu=True))
    with torch.no_grad():
        enc = model.model.encoder(torch.from_numpy(feats)).last_hidden_state.numpy()
    assert np.abs(enc - enc_ref).max() <= F16 * np.abs(enc_ref).max()

    def teacher_forced():  # one pass over prefix + transcript: the diagnostic's input
        with torch.no_grad():
            x = torch.tensor([prefix + ref_ids])
            h = model.model.decoder(input_ids=x, encoder_hidden_states=torch.from_numpy(enc))
            return model.proj_out(h.last_hidden_state[0, len(prefix) - 1 :]).numpy()

    assert np.abs(teacher_forced() - ref_logits).max() <= F16 * scale
    # negative control: k and v of one cross-attention swapped (a plausible mapping slip)
    att = model.model.decoder.layers[0].encoder_attn
    with torch.no_grad():
        k, v = att.k_proj.weight.clone(), att.v_proj.weight.clone()
        att.k_proj.weight.copy_(v), att.v_proj.weight.copy_(k)
        try:
            assert np.abs(teacher_forced() - ref_logits).max() > 100 * F16 * scale
        finally:
            att.k_proj.weight.copy_(k), att.v_proj.weight.copy_(v)


def _need(ck: str) -> None:
    if not _installed(ck):
        pytest.skip(f"the package of {ck} is not installed")


def test_truncated_or_corrupted_file(monkeypatch, tmp_path):
    _need("whisper-base")
    files = W.package_files()
    part2 = files["parts"][1]
    short = tmp_path / "model.bin.part2"
    with open(part2, "rb") as fh:
        short.write_bytes(fh.read(41_000_000))
    monkeypatch.setattr(  # where read_checkpoint looks it up
        W.checkpoint,
        "package_files",
        lambda checkpoint="whisper-base": {**files, "parts": [files["parts"][0], str(short)]},
    )
    with pytest.raises(
        ValueError,
        match=r"^`path` must be a complete CTranslate2 model file; got 113,608,766 of "
        r"145,217,532 bytes",
    ):
        W.read_checkpoint()
    raw = bytearray(open(part2, "rb").read())
    raw[1_000_000] ^= 0xFF
    short.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"^`path` must be an intact CTranslate2 model part; "):
        W.read_checkpoint()
    with pytest.raises(ValueError, match=r"^`path` must be a complete CTranslate2 model file; "):
        W.read_checkpoint(parts=[files["parts"][0]])  # part 2 missing: the reader's own check


def test_truncated_single_file_checkpoint(monkeypatch, tmp_path):
    _need("whisper-tiny-en")
    files = W.package_files("whisper-tiny-en")
    short = tmp_path / "model.bin"
    with open(files["parts"][0], "rb") as fh:
        short.write_bytes(fh.read(50_000_000))
    monkeypatch.setattr(
        W.checkpoint,
        "package_files",
        lambda checkpoint="whisper-base": {**files, "parts": [str(short)]},
    )
    with pytest.raises(
        ValueError,
        match=r"^`path` must be a complete CTranslate2 model file; got 50,000,000 of "
        r"75,537,502 bytes",
    ):
        W.read_checkpoint(checkpoint="whisper-tiny-en")
    with pytest.raises(ValueError, match=r"^`checkpoint` must be one of "):
        W.get_checkpoint("whisper-tiny")


def test_registry_loads_both_stacks(ck):
    from companion.llm.loading import load_model, load_tokenizer

    dec, tok = load_model(f"{ck}-decoder")
    enc, _ = load_model(f"{ck}-encoder")
    assert isinstance(dec, W.WhisperDecoderStack) and isinstance(enc, W.WhisperEncoderStack)
    assert len(load_tokenizer(f"{ck}-encoder")) == len(tok) == FACTS[ck]["n_tokens"]
    assert dec.config.d_model == FACTS[ck]["d"] == enc.config.d_model
    assert dec.config.decoder_layers == FACTS[ck]["layers"]
    with pytest.raises(ValueError, match=r"^`input_features` must be given"):
        dec(input_ids=torch.tensor([W.decoder_prefix(tok)]))
    with pytest.raises(ValueError, match=r"^`num_layers` must be None for init='trained'"):
        load_model(f"{ck}-decoder", num_layers=2)


def test_norm_discovery_finds_both_final_layernorms(ck, final_norms):
    expect = FACTS[ck]["gamma"]  # min|γ|, max|γ|, γ < 0
    for stack, fn in final_norms.values():
        assert fn.name == stack.final_norm_name == f"model.model.{stack.stack}.layer_norm"
        assert fn.kind == "layernorm" and not fn.post_ln and fn.offset == 0.0
        lo, hi, neg = expect[stack.stack]
        g = np.abs(fn.gamma)
        assert lo < g.min() < lo + 0.02 and hi - 0.1 < g.max() < hi
        assert int((fn.gamma < 0).sum()) == neg


def test_diagnose_reads_the_encoder_stack(ck, final_norms, clip):
    from companion.llm.dead_directions import diagnose
    from companion.theory.ln_kernel import inverse_scale_direction

    enc, fn = final_norms["encoder"]
    batch = {"input_features": torch.from_numpy(clip.features[None])}
    d = diagnose(enc, [batch], final_norm=fn, profile=True)
    assert d.norm_name == "model.model.encoder.layer_norm" and d.n_tokens == 1500
    assert len(d.sigma_min) == 1 + FACTS[ck]["layers"]  # the embedding output, each block's
    assert d.fp64.cos > 0.9999 and d.fp64.verdict == "layernorm"
    # negative control: a shuffled γ's direction is no kernel. Its |cos| with the bottom
    # direction stays high here (the encoder's γ > 0 is near-uniform, so any permutation's
    # v* is near the all-ones direction), but its Rayleigh quotient is bounded below by the
    # second eigenvalue times its off-kernel share: far from v*'s rounding-level value.
    shuffled = inverse_scale_direction(np.random.default_rng(0).permutation(fn.gamma))
    off = 1.0 - float(d.bottom @ shuffled) ** 2
    assert d.spectrum[1] * off / d.spectrum[-1] > 1e6 * d.rayleigh


@pytest.mark.parametrize("ck", list(FACTS))
def test_random_twin_same_architecture_init_gamma(ck):
    from companion.llm.loading import load_model

    _need(ck)  # the tokenizer is the package's
    dec, tok = load_model(f"{ck}-decoder", init="random", num_layers=2)
    assert isinstance(dec, W.WhisperDecoderStack)
    assert dec.config.decoder_layers == dec.config.encoder_layers == 2
    assert dec.config.d_model == FACTS[ck]["d"] and len(tok) == FACTS[ck]["n_tokens"]
    for norm in (dec.model.model.decoder.layer_norm, dec.model.model.encoder.layer_norm):
        np.testing.assert_array_equal(norm.weight.detach().numpy(), 1.0)
        np.testing.assert_array_equal(norm.bias.detach().numpy(), 0.0)
