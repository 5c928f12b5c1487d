"""The walk chapter reads its records (committed at CPU scale) and says which command writes
them when they are absent; its tables and figure are pure functions of the records."""

import pytest

from companion.chapters.dead_directions import walk as ch


def test_committed_records_show_a_flat_curve_and_live_controls():
    recs = ch.records("cpu")
    rows = {(r["model"], r["direction"]): r for r in ch.flatness_rows(recs)}
    flat = rows[("Whisper-base decoder", "flat curve (β compensated)")]["max |ΔNLL| (nats)"]
    unc = rows[("Whisper-base decoder", "same W_t, β fixed")]["max |ΔNLL| (nats)"]
    rms = rows[("SmolLM2-135M", "γ⁻¹ direction (no β to compensate)")]["max |ΔNLL| (nats)"]
    assert flat < 1e-12 and unc > 1.0 and rms > 1.0
    fisher = {(r["model"], r["direction"]): r for r in ch.fisher_rows(recs)}
    assert fisher[("Whisper-base decoder", "flat curve (β compensated)")][
        "k̂ = 1 + slope/2"
    ].startswith("–")
    assert fisher[("Whisper-base decoder", "W + t² R (a curve of order 2)")][
        "k̂ = 1 + slope/2"
    ].startswith("2.0000")
    (kf,) = [r for r in ch.kfac_rows(recs) if r["model"] == "Whisper-base decoder"]
    assert kf["K-FAC, centred A"] < 1e-30 < kf["true Fisher along u v*ᵀ"]


def test_absent_records_name_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="companion run walk --model whisper-base"):
        ch.records("cpu")


def test_draw_moves_without_repainting_the_nll_panel():
    from matplotlib.figure import Figure

    state = ch.draw(Figure(layout="constrained"), t=1.0)
    assert state.update(t=100.0) == []  # a move of t repaints nothing
    assert len(state.update(direction="random direction")) == 1  # only the Fisher panel
