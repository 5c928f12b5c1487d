"""Real speech made here: the book's Wikipedia text read aloud by ``espeak-ng``, for Whisper.

The voice is synthetic (eSpeak NG's formant synthesiser, Debian package ``espeak-ng``,
installed by ``make``): real English sentences, a robotic voice. A clip's pipeline:

1. **Text**: the gensim Wikipedia articles of :func:`companion.llm.data.corpus_text`,
   prose paragraphs only (headings and short caption lines dropped), folded to ASCII
   (accents dropped, other scripts removed: the English voice cannot read them);
2. **Transcript windows**: the text tokenised once with Whisper's tokenizer and cut into
   consecutive windows of ``window`` tokens that start and end on word boundaries;
   ``offset`` counts windows to skip, so calibration (``offset=0``) and evaluation
   (``offset=n_calib``) transcripts are disjoint, as in :func:`companion.llm.data.token_windows`;
3. **Speech**: each window's text spoken by ``espeak-ng`` (22,050 Hz, 16-bit mono), faster
   when needed so that it fits Whisper's 30 s window, resampled to 16 kHz
   (``scipy.signal.resample_poly``);
4. **Features**: log-mel spectrograms from transformers' ``WhisperFeatureExtractor`` built
   from the model's config (:func:`companion.llm.whisper.feature_extractor`), padded to 30 s;
5. **Decoder input**: Whisper's prompt ``<|startoftranscript|><|en|><|transcribe|>
   <|notimestamps|>`` then the window's tokens, teacher-forced.

:func:`speech_batches` yields ``{"input_features", "input_ids"}`` dicts that feed both
:class:`~companion.llm.whisper.WhisperDecoderStack` (``4 + window`` tokens per clip) and
:class:`~companion.llm.whisper.WhisperEncoderStack` (1500 frames per clip).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

from companion._validate import (
    check_choice,
    check_finite_array,
    check_int,
    check_memory,
    check_nonempty,
)
from companion.llm._checks import check_callable, check_tokenizer

__all__ = [
    "SAMPLE_RATE",
    "MAX_SECONDS",
    "SpeechUnavailable",
    "espeak",
    "synthesize",
    "resample",
    "log_mel",
    "speech_paragraphs",
    "transcript_windows",
    "Clip",
    "speech_clips",
    "speech_batches",
    "clips_for_tokens",
]

#: Whisper's sampling rate (Hz).
SAMPLE_RATE = 16_000
#: Whisper's window: every clip is padded to (and must fit in) 30 s.
MAX_SECONDS = 30.0
_DEFAULT_SPEED = 175  # espeak-ng's default, words per minute


class SpeechUnavailable(OSError):
    """The speech synthesiser ``espeak-ng`` is not installed (an error of the environment,
    like a missing file: the command line reports it as one line)."""


def espeak() -> str:
    """The path of the ``espeak-ng`` executable.

    Raises
    ------
    SpeechUnavailable
        When it is not on ``PATH``, naming the Debian package and its install command.
    """
    path = shutil.which("espeak-ng")
    if path is None:
        raise SpeechUnavailable(
            "`espeak-ng` must be installed to synthesise speech (the Debian package "
            "espeak-ng: `apt-get install -y espeak-ng`, which `make test` runs as root); "
            "got no espeak-ng on PATH"
        )
    return path


def _parse_wav(raw: bytes) -> tuple[np.ndarray, int]:
    """16-bit PCM WAV bytes → float32 samples in [-1, 1) and the rate. espeak-ng's
    ``--stdout`` stream leaves the RIFF sizes unset, so the data run to the end."""
    if raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        raise RuntimeError(f"espeak-ng must write a WAV stream; got {raw[:12]!r}")
    pos, rate, bits, chans = 12, None, None, None
    while pos + 8 <= len(raw):
        tag, size = raw[pos : pos + 4], int.from_bytes(raw[pos + 4 : pos + 8], "little")
        if tag == b"fmt ":
            chans = int.from_bytes(raw[pos + 10 : pos + 12], "little")
            rate = int.from_bytes(raw[pos + 12 : pos + 16], "little")
            bits = int.from_bytes(raw[pos + 22 : pos + 24], "little")
        if tag == b"data":
            if (bits, chans) != (16, 1):
                raise RuntimeError(f"espeak-ng must write 16-bit mono; got {bits}-bit, {chans} ch")
            pcm = raw[pos + 8 :]
            pcm = pcm[: len(pcm) // 2 * 2]
            return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0, int(rate)
        pos += 8 + size + (size & 1)
    raise RuntimeError("espeak-ng's WAV stream has no data chunk")


def _check_voice(voice) -> str:
    if not isinstance(voice, str):
        raise TypeError(f"`voice` must be a str (an espeak-ng voice); got {type(voice).__name__}")
    return voice


def synthesize(text: str, *, voice: str = "en-us", speed: int = _DEFAULT_SPEED):
    """``text`` spoken by ``espeak-ng`` → ``(samples, rate)``: float32 mono in [-1, 1) at
    espeak-ng's native rate (22,050 Hz). Deterministic: the same text gives the same samples.

    Raises
    ------
    ValueError
        Empty text, a speed outside espeak-ng's 80-450 words per minute.
    SpeechUnavailable
        No ``espeak-ng`` (see :func:`espeak`).
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"`text` must be a non-empty string; got {text!r}")
    _check_voice(voice)
    speed = check_int(speed, "speed", low=80, high=450)
    out = subprocess.run(
        [espeak(), "-v", voice, "-s", str(speed), "--stdin", "--stdout"],
        input=text.encode("utf-8"),
        capture_output=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(
            f"espeak-ng failed (exit {out.returncode}): {out.stderr.decode(errors='replace')}"
        )
    return _parse_wav(out.stdout)


def resample(audio, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """``audio`` at ``rate`` Hz → float32 at ``target`` Hz (polyphase, anti-aliased); time is
    the last axis (a ``(channels, time)`` array keeps its channels).

    A 2-D array with more channels than samples is refused: it is ``(time, channels)``
    (soundfile's layout; pass ``audio.T``), which would be resampled across its channels.

    Examples
    --------
    >>> resample(np.zeros(22050), 22050).shape
    (16000,)
    >>> resample(np.zeros((22050, 2)), 22050)
    Traceback (most recent call last):
    ...
    ValueError: `audio` must be 1-D (time) or 2-D (channels, time) ...; got shape (22050, 2) ...
    """
    rate = check_int(rate, "rate", low=1)
    target = check_int(target, "target", low=1)
    x = check_nonempty(check_finite_array(audio, "audio", dtype=np.float32), "audio")
    if x.ndim > 2 or (x.ndim == 2 and x.shape[0] > x.shape[1]):
        hint = " (a (time, channels) array: pass audio.T)" if x.ndim == 2 else ""
        raise ValueError(
            "`audio` must be 1-D (time) or 2-D (channels, time) with fewer channels than "
            f"samples; got shape {x.shape}{hint}"
        )
    if rate == target:
        return x
    from scipy.signal import resample_poly

    f = Fraction(target, rate)
    up, down = f.numerator, f.denominator  # the filter has 20 max(up, down) + 1 taps
    check_memory(
        8.0 * (20 * max(up, down) + 1) + 8.0 * x.size * up / down,
        "rate" if rate > target else "target",
        max(rate, target),
        what=f"a {up}/{down} polyphase filter and {x.size * up / down:.3g} float64 samples",
    )
    return resample_poly(x, f.numerator, f.denominator, axis=-1).astype(np.float32)


def log_mel(audio, sampling_rate: int, extractor) -> np.ndarray:
    """Whisper's log-mel features of one clip → float32 ``(n_mels, frames)``, padded to 30 s.

    Raises
    ------
    ValueError
        A sampling rate other than 16 kHz (resample first), an empty or non-1-D clip,
        non-finite samples, a clip longer than 30 s (Whisper would cut it silently).

    Examples
    --------
    >>> log_mel(np.zeros(100), 22050, None)
    Traceback (most recent call last):
    ...
    ValueError: `sampling_rate` must be 16000 (Whisper's rate; resample first); got 22050
    >>> log_mel(np.zeros(0), 16000, None)
    Traceback (most recent call last):
    ...
    ValueError: `audio` must be a non-empty 1-D clip; got shape (0,)
    """
    if check_int(sampling_rate, "sampling_rate", low=1) != SAMPLE_RATE:
        raise ValueError(
            f"`sampling_rate` must be {SAMPLE_RATE} (Whisper's rate; resample first); "
            f"got {sampling_rate!r}"
        )
    x = check_finite_array(audio, "audio", dtype=np.float32)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"`audio` must be a non-empty 1-D clip; got shape {x.shape}")
    if x.size > MAX_SECONDS * SAMPLE_RATE:
        raise ValueError(
            f"`audio` must be at most {MAX_SECONDS:g} s long (Whisper's window); got "
            f"{x.size / SAMPLE_RATE:.2f} s"
        )
    check_callable(extractor, "extractor")
    feats = extractor(x, sampling_rate=SAMPLE_RATE, return_tensors="np")["input_features"]
    return feats[0].astype(np.float32)  # (n_mels, frames)


# ----------------------------------------------------------------------------- the text


def speech_paragraphs(source: str = "wiki", min_chars: int = 80) -> tuple:
    """The prose paragraphs of ``source`` (``"wiki"`` or ``"lee"``, as in
    :func:`companion.llm.data.corpus_text`) as
    espeak-ng can read them: heading lines (``= Title =``, ``==Section==``) and lines
    shorter than ``min_chars`` (captions, list items) dropped, folded to ASCII, whitespace
    collapsed."""
    # checked before the cache, which would refuse an unhashable value in its own words
    from companion.llm.data import SOURCES

    check_choice(source, "source", SOURCES)
    return _paragraphs(source, check_int(min_chars, "min_chars", low=0))


@lru_cache(maxsize=2)
def _paragraphs(source: str, min_chars: int) -> tuple:
    from companion.llm.data import corpus_text

    out = []
    for line in corpus_text(source).splitlines():
        line = line.strip()
        if not line or line.startswith("="):
            continue
        line = unicodedata.normalize("NFKD", line).encode("ascii", "ignore").decode("ascii")
        line = re.sub(r"\s+", " ", line).strip()
        if len(line) >= min_chars:
            out.append(line)
    return tuple(out)


def _word_start(tokenizer) -> np.ndarray:
    """A boolean per vocabulary id: does the token begin a word (byte-level BPE ``Ġ``)?"""
    cached = getattr(tokenizer, "_companion_word_start", None)
    if cached is None or cached.size != len(tokenizer):
        toks = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        cached = np.array([t is not None and t.startswith("Ġ") for t in toks])
        tokenizer._companion_word_start = cached
    return cached


def transcript_windows(
    tokenizer, *, n_windows: int, window: int = 96, offset: int = 0, source: str = "wiki"
):
    """``n_windows`` consecutive transcripts of ``window`` Whisper tokens each →
    ``LongTensor (n_windows, window)``.

    Each window starts at a word and the token after it starts the next word (so the
    spoken text is whole words); windows do not overlap; ``offset`` skips that many
    windows first (calibration ``offset=0``, evaluation ``offset=n_calib``: disjoint).

    Raises
    ------
    ValueError
        Fewer than ``offset + n_windows`` windows in the text (the message says how many).
    """
    import torch

    n_windows = check_int(n_windows, "n_windows", low=1)
    window = check_int(window, "window", low=2, high=440)
    offset = check_int(offset, "offset", low=0)
    starts = _word_start(check_tokenizer(tokenizer))
    want = offset + n_windows
    ids: list = []
    found: list = []
    pos = 0
    for para in speech_paragraphs(check_choice(source, "source", ("wiki", "lee"))):
        ids.extend(tokenizer(" " + para, add_special_tokens=False)["input_ids"])
        while len(found) < want:
            s = pos
            while s + window < len(ids) and not (starts[ids[s]] and starts[ids[s + window]]):
                s += 1
            if s + window >= len(ids):
                break
            found.append(ids[s : s + window])
            pos = s + window
        if len(found) >= want:
            break
    if len(found) < want:
        raise ValueError(
            f"`n_windows` must be <= {len(found) - offset} for window {window} and offset "
            f"{offset} (source {source!r} holds {len(found)} windows); got {n_windows}"
        )
    return torch.tensor(found[offset:], dtype=torch.long)  # (n_windows, window)


# ----------------------------------------------------------------------------- the clips


@dataclass
class Clip:
    """One synthesised clip: its transcript, speech and Whisper features."""

    text: str
    ids: list = field(repr=False)
    audio: np.ndarray = field(repr=False)  # float32 at 16 kHz
    speed: int
    features: np.ndarray = field(repr=False)  # (n_mels, frames) float32

    @property
    def seconds(self) -> float:
        return self.audio.size / SAMPLE_RATE


def _clip(text: str, ids: list, extractor, voice: str) -> Clip:
    speed = _DEFAULT_SPEED
    for _ in range(4):  # a long window (numbers read out) is spoken faster until it fits
        raw, rate = synthesize(text, voice=voice, speed=speed)
        audio = resample(raw, rate)
        seconds = audio.size / SAMPLE_RATE
        if seconds <= MAX_SECONDS - 0.5:
            return Clip(text, ids, audio, speed, log_mel(audio, SAMPLE_RATE, extractor))
        speed = min(450, math.ceil(speed * seconds / (MAX_SECONDS - 1.0)))
    raise ValueError(
        f"`window` must be short enough to speak in {MAX_SECONDS:g} s; a clip took "
        f"{seconds:.1f} s at {speed} words per minute: {text[:60]!r}..."
    )


def _check_clip_args(tokenizer, extractor, n_clips, voice) -> int:
    """Checked before any synthesis; returns ``n_clips``."""
    check_tokenizer(tokenizer)
    check_callable(extractor, "extractor")
    _check_voice(voice)
    return check_int(n_clips, "n_clips", low=1)


def speech_clips(
    tokenizer,
    extractor,
    *,
    n_clips: int,
    window: int = 96,
    offset: int = 0,
    voice: str = "en-us",
    source: str = "wiki",
) -> list[Clip]:
    """``n_clips`` clips of :func:`transcript_windows` spoken and turned into features."""
    n_clips = _check_clip_args(tokenizer, extractor, n_clips, voice)
    wins = transcript_windows(
        tokenizer, n_windows=n_clips, window=window, offset=offset, source=source
    )
    return [_clip(tokenizer.decode(r).strip(), r, extractor, voice) for r in wins.tolist()]


def clips_for_tokens(tokens: int, *, window: int = 96, stack: str = "decoder") -> int:
    """Clips needed for ``tokens`` samples of a stack's final norm: ``4 + window`` decoder
    positions or 1500 encoder frames per clip.

    Examples
    --------
    >>> clips_for_tokens(2048), clips_for_tokens(2048, stack="encoder")
    (21, 2)
    """
    window = check_int(window, "window", low=2, high=440)  # transcript_windows' range
    per = (
        (4 + window) if check_choice(stack, "stack", ("decoder", "encoder")) == "decoder" else 1500
    )
    return math.ceil(check_int(tokens, "tokens", low=1) / per)


def speech_batches(
    tokenizer,
    extractor,
    *,
    n_clips: int,
    window: int = 96,
    offset: int = 0,
    batch_size: int = 4,
    voice: str = "en-us",
    source: str = "wiki",
):
    """Batches of spoken transcripts for Whisper: dicts ``{"input_features": (b, n_mels,
    3000) float32, "input_ids": (b, 4 + window) long}``, the ids being Whisper's prompt
    (:data:`companion.llm.whisper.PREFIX_TOKENS`) then the transcript, teacher-forced.
    One batch feeds either stack (see the module docs). Synthesises as it goes."""
    import torch

    from companion.llm.whisper import decoder_prefix

    n_clips = _check_clip_args(tokenizer, extractor, n_clips, voice)
    batch_size = check_int(batch_size, "batch_size", low=1)
    prefix = decoder_prefix(tokenizer)
    wins = transcript_windows(
        tokenizer, n_windows=n_clips, window=window, offset=offset, source=source
    )
    for part in wins.split(batch_size):
        clips = [_clip(tokenizer.decode(r).strip(), r, extractor, voice) for r in part.tolist()]
        feats = torch.from_numpy(np.stack([c.features for c in clips]))  # (b, n_mels, frames)
        ids = torch.cat([torch.tensor(prefix).expand(len(clips), -1), part], 1)  # (b, 4+window)
        yield {"input_features": feats, "input_ids": ids}
