"""σ_min split by sublayer: the attention and MLP ratios multiply to the block ratio, the
block ratios are the σ_min records' steps (same tokens, same estimator), a cancelling MLP
is found in the MLP and a cancelling attention in the attention, and the splits that are not
defined (post-LN, parallel residual) are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from companion.llm import registry  # noqa: E402
from companion.llm.capture import hook_count  # noqa: E402
from companion.llm.dead_directions import diagnose  # noqa: E402
from companion.llm.dead_directions.sublayers import (  # noqa: E402
    SublayerSplit,
    accumulate_split,
    bottom_direction,
    cancelling,
    find_sublayers,
    localise,
    split_of,
)
from companion.llm.loading import build_random  # noqa: E402


def tiny(name, width=32, layers=3):
    return build_random(registry.get_spec(name), num_layers=layers, width=width, vocab_size=128)


def batches(n=32, seq=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return list(torch.randint(0, 128, (n, seq), generator=g).split(8))  # 1,024 tokens


@pytest.mark.parametrize("name", ["smollm2-135m", "gemma3-270m", "gpt2", "opt-125m"])
def test_product_is_the_block_ratio_and_the_records_steps(name):
    model = tiny(name)
    m = accumulate_split(model, batches())
    s = split_of(m.states, tokens=m.tokens)
    assert hook_count(model) == 0
    assert s.block.size == 3 and m.tokens == 1024
    np.testing.assert_allclose(s.attn * s.mlp, s.block, rtol=1e-12)
    prof = diagnose(model, batches()).profile  # the σ_min records' estimator, same rows
    np.testing.assert_allclose(s.block, prof.steps, rtol=1e-6)
    np.testing.assert_allclose(s.block_se, prof.step_se, rtol=1e-4, atol=1e-9)
    back = SublayerSplit.from_record(s.to_record())
    np.testing.assert_array_equal(back.mlp_se, s.mlp_se)


def test_profile_tokens_stops_reading_batches():
    m = accumulate_split(tiny("smollm2-135m"), batches(), profile_tokens=300)
    assert m.tokens == 512  # two batches of 8 × 32: the second starts below 300


@pytest.mark.parametrize("sublayer, carrier", [("mlp", "mlp"), ("attention", "attention")])
def test_a_cancelling_sublayer_is_found_where_it_is(sublayer, carrier):
    model = tiny("smollm2-135m")
    m = accumulate_split(model, batches())
    at = 3 if sublayer == "mlp" else 2  # block 2's input X1 is state 2, its A2 is state 3
    acc = m.states[at][0]
    for a in m.states[at][1:-1]:
        acc.merge(a)
    with cancelling(model, 2, sublayer, bottom_direction(acc), c=0.99):
        s = split_of(accumulate_split(model, batches()).states)
    found = localise(s)
    assert next(d for d in found if d["block"] == 2)["carrier"] == carrier
    layer = find_sublayers(model)[1][1][0]
    assert type(layer.mlp).__name__ == "LlamaMLP"  # put back
    assert type(layer.self_attn).__name__ == "LlamaAttention"


def test_splits_that_are_not_defined_are_refused():
    with pytest.raises(ValueError, match="post-LN"):
        find_sublayers(tiny("minilm-l6"))
    with pytest.raises(ValueError, match="parallel residual"):
        find_sublayers(tiny("pythia-160m"))
    with pytest.raises(ValueError, match="LLaMA-layout"):
        with cancelling(tiny("gpt2"), 1, "mlp", np.ones(32)):
            pass
    with pytest.raises(ValueError, match="`sublayer` must be one of"):
        with cancelling(tiny("smollm2-135m"), 1, "norm", np.ones(32)):
            pass
    with pytest.raises(ValueError, match="`block` must be"):
        with cancelling(tiny("smollm2-135m"), 9, "mlp", np.ones(32)):
            pass
    with pytest.raises(ValueError, match="`states` must be"):
        split_of([[1]])


def _record(attn, mlp, se=0.01):
    attn, mlp = np.asarray(attn), np.asarray(mlp)
    return {
        "split_attn": attn.tolist(), "split_attn_se": [se] * attn.size,
        "split_mlp": mlp.tolist(), "split_mlp_se": [se] * mlp.size,
        "split_block": (attn * mlp).tolist(), "split_block_se": [se] * attn.size,
        "split_sigma_min": [], "split_tokens": 8192, "split_folds": 4,
    }  # fmt: skip


def test_the_claims_reading_of_a_record():
    from companion.chapters.dead_directions.at_scale.split import (
        declines,
        product_gap,
        split_parts,
    )

    r = _record([1.2, 0.5, 0.9, 1.0], [0.5, 1.5, 0.9, 1.0])
    assert [(d["block"], d["carrier"]) for d in declines(r)] == [
        (1, "mlp"), (2, "attention"), (3, "both")
    ]  # fmt: skip
    assert product_gap(r) < 1e-15
    by, parts = split_parts({"toy": r})
    assert by == {"mlp": [("toy", 1)], "attention": [("toy", 2)], "both": [("toy", 3)]}
    assert parts[0].startswith("toy: 3 of 4 blocks below 1 − 4 SE")
    noisy = _record([0.9], [0.9], se=0.1)  # a decline no half resolves at 4 SE
    noisy["split_block_se"] = [0.01]
    assert declines(noisy)[0]["carrier"] == "unresolved"


def test_the_claim_and_its_control_from_the_committed_records():
    from companion import ledger

    r = ledger.run("shirodkar.sigma_min_split", scale="cpu")
    if r.status == "not-run":  # a model registered since the records were written
        assert "missing" in r.reason
        return
    assert r.status in ("reproduced", "deviates", "unresolved")
    assert r.control_status == "deviates", r.control_detail
    assert "mlp:10 → mlp" in str(r.control_value)
    assert "attention:10 → attention" in str(r.control_value)


SPLIT = ["run", "sigma-split"]


@pytest.mark.parametrize(
    "argv, text",
    [
        (SPLIT + ["--model", "minilm-l6"], "is post-LN"),
        (SPLIT + ["--model", "smollm2-135m", "--cancel", "norm:3"], "`cancel` must be"),
        (SPLIT + ["--model", "smollm2-135m", "--cancel", "mlp:31"], "in [1, 30]; got 31"),
        (SPLIT + ["--model", "all", "--out", "/proc/nope"], "`out` must be a folder"),
        (SPLIT + ["--model", "smollm2-135m", "--tokens", "100"], "`tokens` must be > d"),
    ],
)
def test_cli_errors_are_one_line_before_any_model_loads(argv, text, capsys, monkeypatch):
    from companion import cli
    from companion.llm import loading

    monkeypatch.setattr(loading, "load_model", lambda *a, **k: pytest.fail("loaded a model"))
    rc = cli.main(argv)
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and line.startswith("error: ") and text in line, line


def test_cli_writes_a_resumable_record(tmp_path, capsys):
    from companion import cli
    from companion.llm.dead_directions.sublayers_run import load_split_results

    argv = SPLIT + ["--model", "smollm2-135m", "--scale", "smoke", "--out", str(tmp_path)]
    assert cli.main(argv + ["--cancel", "mlp:1"]) == 0
    assert cli.main(argv + ["--cancel", "mlp:1", "--resume"]) == 0
    (rec,) = load_split_results(str(tmp_path), scale="smoke")
    assert rec["settings"]["cancel"] == "mlp:1" and rec["command"].startswith("companion")
    assert rec["localised"][0]["carrier"] == "mlp"
    assert {"model", "scale", "device", "dtype", "wall_s"} <= set(rec)
