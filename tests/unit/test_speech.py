"""Speech made here for Whisper: espeak-ng synthesis, resampling, log-mel features, the
transcript windows (disjoint calibration/evaluation), and every bad input's error."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm import speech  # noqa: E402
from companion.llm.speech import (  # noqa: E402
    SAMPLE_RATE,
    SpeechUnavailable,
    log_mel,
    resample,
    synthesize,
    transcript_windows,
)


@pytest.fixture(scope="module")
def tok():
    from companion.llm.whisper import load_tokenizer

    return load_tokenizer()


@pytest.fixture(scope="module")
def extractor():
    from transformers import WhisperConfig

    from companion.llm.registry import get_spec
    from companion.llm.whisper import feature_extractor

    return feature_extractor(WhisperConfig(**get_spec("whisper-base-decoder").config))


def test_synthesis_is_deterministic_speech():
    a, rate = synthesize("The dead direction of LayerNorm.")
    b, _ = synthesize("The dead direction of LayerNorm.")
    assert rate == 22050 and a.dtype == np.float32
    assert 1.0 < a.size / rate < 4.0
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() > 0.05  # not silence
    c, _ = synthesize("The dead direction of LayerNorm.", speed=350)
    assert c.size < 0.7 * a.size  # faster speech is shorter


def test_resample_keeps_a_tone():
    t = np.arange(22050) / 22050
    y = resample(np.sin(2 * np.pi * 440 * t), 22050)
    assert y.shape == (SAMPLE_RATE,)
    spec = np.abs(np.fft.rfft(y))
    assert abs(int(spec.argmax()) - 440) <= 1  # 1 Hz bins over 1 s


def test_features_shape(extractor):
    audio, rate = synthesize("Anarchism is a political philosophy.")
    feats = log_mel(resample(audio, rate), SAMPLE_RATE, extractor)
    assert feats.shape == (80, 3000) and feats.dtype == np.float32
    speech_part = feats[:, :100].std()
    assert speech_part > feats[:, -100:].std()  # speech, then the padding's silence


def test_bad_inputs_one_style(extractor, monkeypatch):
    with pytest.raises(ValueError, match=r"^`sampling_rate` must be 16000 .*; got 22050$"):
        log_mel(np.zeros(100), 22050, extractor)
    with pytest.raises(
        ValueError, match=r"^`audio` must be a non-empty 1-D clip; got shape \(0,\)"
    ):
        log_mel(np.zeros(0), SAMPLE_RATE, extractor)
    with pytest.raises(
        ValueError, match=r"^`audio` must be a non-empty 1-D clip; got shape \(2, 5\)"
    ):
        log_mel(np.zeros((2, 5)), SAMPLE_RATE, extractor)
    with pytest.raises(ValueError, match=r"^`audio` must contain only finite values; got 1 "):
        log_mel(np.array([0.0, np.nan]), SAMPLE_RATE, extractor)
    with pytest.raises(ValueError, match=r"^`audio` must be at most 30 s long .*; got 31.00 s$"):
        log_mel(np.zeros(31 * SAMPLE_RATE), SAMPLE_RATE, extractor)
    with pytest.raises(ValueError, match=r"^`text` must be a non-empty string; got '  '$"):
        synthesize("  ")
    with pytest.raises(ValueError, match=r"^`speed` must be an integer in \[80, 450\]; got 20$"):
        synthesize("hello", speed=20)
    monkeypatch.setattr(speech.shutil, "which", lambda name: None)
    with pytest.raises(SpeechUnavailable, match=r"^`espeak-ng` must be installed .*Debian package"):
        synthesize("hello")


def test_transcript_windows_are_whole_words_and_disjoint(tok):
    calib = transcript_windows(tok, n_windows=6, window=96)
    evald = transcript_windows(tok, n_windows=6, window=96, offset=6)
    both = transcript_windows(tok, n_windows=12, window=96)
    assert calib.shape == evald.shape == (6, 96)
    assert np.array_equal(both[:6], calib) and np.array_equal(both[6:], evald)  # disjoint
    starts = speech._word_start(tok)
    assert all(starts[int(row[0])] for row in both)
    texts = [tok.decode(r) for r in both.tolist()]
    assert len(set(texts)) == 12 and all(t.isascii() and "=" not in t for t in texts)
    with pytest.raises(ValueError, match=r"^`n_windows` must be <= \d+ for window 96 .*'lee'"):
        transcript_windows(tok, n_windows=10**6, window=96, source="lee")


def test_speech_batches_feed_both_stacks(tok, extractor):
    from companion.llm.whisper import decoder_prefix

    (batch,) = list(speech.speech_batches(tok, extractor, n_clips=2, window=24, batch_size=2))
    assert set(batch) == {"input_features", "input_ids"}
    assert batch["input_features"].shape == (2, 80, 3000)
    assert batch["input_ids"].shape == (2, 4 + 24)
    assert batch["input_ids"][:, :4].tolist() == [decoder_prefix(tok)] * 2
    clips = speech.speech_clips(tok, extractor, n_clips=2, window=24)
    assert [c.ids for c in clips] == batch["input_ids"][:, 4:].tolist()
    np.testing.assert_array_equal(np.stack([c.features for c in clips]), batch["input_features"])
    assert all(0.5 < c.seconds < 30 for c in clips)
