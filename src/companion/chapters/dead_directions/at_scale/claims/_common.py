"""What the Part II at-scale claims share: the records a claim needs (NotRun naming the
missing ones; with ``full`` they are run first, resumably), where they came from, and the
claims' common fields."""

from __future__ import annotations

from companion.chapters.dead_directions.at_scale import CHAPTER
from companion.chapters.dead_directions.at_scale.records import (
    WHISPER,
    commands,
    random_init,
    results_folder,
    run_missing,
    stored_records,
    trained,
    whisper_commands,
    whisper_records,
)
from companion.chapters.dead_directions.at_scale.sizes import SIZES
from companion.claims import NotRun
from companion.llm.dead_directions.presets import preset


def _records(scale: str, full: bool) -> list[dict]:
    """The records a claim reads; NotRun when none is stored, unless ``full`` (run them)."""
    recs = stored_records(scale)
    if not recs and full:
        run_missing(scale)
        recs = stored_records(scale)
    if not recs:
        raise NotRun(
            f"needs {scale}-scale records in results/{results_folder(scale)}/dead_directions.jsonl "
            f"(run `companion run dead-directions --model all --init random --scale {scale}` "
            f"and `... --init trained`, or `companion claims --full`)"
        )
    return recs


def records_source(recs: list[dict], scale: str) -> str:
    cmds = sorted({r.get("command", "") for r in recs})
    return f"results/{results_folder(scale)}/dead_directions.jsonl (written by: {'; '.join(cmds)})"


def _expected(scale: str) -> dict:
    """``{name: (model, kind)}`` of the records the model claims expect at ``scale``: one
    random-init record per architecture of ``SIZES[scale]`` at the scale's depth, one per
    trained checkpoint, and a full-depth random-init record of each trained model."""
    from companion.llm.registry import list_models

    sizes = SIZES[scale]
    out = {}
    # the trained-here twins are not part of the at-scale runs (as in records.py)
    every = [s.name for s in list_models() if s.source != "trained-here"]
    for m in sizes.random_models or every:
        out[f"{m} (random init)"] = (m, "random")
    for m in sizes.engine.models:
        out[f"{m} (trained)"] = (m, "trained")
        out[f"{m} (random init, full depth)"] = (m, "random-full")
    return out


def present_records(recs: list[dict]) -> dict:
    """``{name: record}`` under the names of :func:`_expected` (the last written wins)."""
    out = {f"{r['model']} (random init)": r for r in random_init(recs)}
    tr = trained(recs)
    out.update({f"{m} (trained)": r for m, r in tr.items()})
    for r in recs:
        if r["init"] == "random" and r["model"] in tr and r["layers"] == tr[r["model"]]["layers"]:
            out[f"{r['model']} (random init, full depth)"] = r
    return out


def _run_full_depth(scale: str) -> None:
    from companion.llm.dead_directions import run_dead_directions

    for name in SIZES[scale].engine.models:
        run_dead_directions(
            name, init="random", layers="full", scale=scale, resume=True, show_progress=False
        )


def claim_records(
    scale: str,
    full: bool,
    kinds=("random", "trained", "random-full"),
    norm: str | None = None,
    models=None,
) -> tuple[list[dict], dict]:
    """The records a model claim reads (every expected one of ``kinds``, ``norm`` and
    ``models``) and its ``measured_on``. NotRun naming the missing ones; with ``full`` (or
    off CPU scale) they are run first, resumably."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    want = {
        k: v
        for k, v in _expected(scale).items()
        if v[1] in kinds
        and (norm is None or get_spec(v[0]).norm == norm)
        and (models is None or v[0] in models)
    }

    def run(_missing):
        run_missing(scale)
        _run_full_depth(scale)

    complete(
        list(want), lambda: list(present_records(stored_records(scale))), command=commands(scale),
        full=full or scale != "cpu", run=run,
    )  # fmt: skip
    have = present_records(stored_records(scale))
    recs = [have[k] for k in want]
    on = measured_on_records(
        recs, file=f"{results_folder(scale)}/dead_directions.jsonl", scale=scale,
        models=sorted({v[0] for v in want.values()}),
    )  # fmt: skip
    return recs, on


def model_list(recs) -> str:
    return ", ".join(sorted({r["model"] for r in recs}))


def whisper_key(r: dict) -> str:
    return f"{r['model']} {r['init']}" + ("" if r["init"] == "trained" else f" ({r['layers']} bl.)")


def whisper_claim_records(scale: str, full: bool, kinds: tuple = ("trained",)) -> tuple[dict, dict]:
    """``({key: record}, measured_on)`` of Whisper's records of ``kinds`` (keys of
    :func:`whisper_commands`) on every stack of :data:`WHISPER` (both checkpoints), all of
    them or :class:`NotRun` naming the missing ones (``full`` at CPU scale runs them first:
    about 5 min per Whisper-base record, 2 per tiny.en record, on 2 shared cores)."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    # Whisper is measured at CPU scale unless records at ``scale`` exist (whisper_records)
    if not any(r["model"] in WHISPER for r in stored_records(scale)):
        scale = "cpu"

    def depth(m: str, k: str) -> int | None:
        deep = get_spec(m).n_layers
        return {
            "trained": None,
            "random-full": deep,
            "random": preset(scale).random_layers or deep,
        }[k]

    want = {
        f"{m} {'trained' if k == 'trained' else 'random'}"
        + ("" if k == "trained" else f" ({depth(m, k)} bl.)"): (m, k)
        for k in kinds
        for m in WHISPER
    }

    def run(missing):
        from companion.llm.dead_directions import run_dead_directions

        for m, k in (want[key] for key in missing):
            init = "trained" if k == "trained" else "random"
            run_dead_directions(
                m, init=init, layers=depth(m, k), scale=scale, resume=True, show_progress=False
            )

    present = lambda: [whisper_key(r) for r in whisper_records(scale)]  # noqa: E731
    cmd = "; ".join(whisper_commands()[k] for k in kinds)
    count = complete(want, present, command=cmd, full=full, run=run if scale == "cpu" else None)
    recs = {whisper_key(r): r for r in whisper_records(scale)}
    use = {k: recs[k] for k in want}
    on = measured_on_records(use.values(), file=_source_file(scale), scale=scale, models=WHISPER)
    return use, {**on, "records": count}


def _source_file(scale: str) -> str:
    return f"{results_folder(scale)}/dead_directions.jsonl"


COMMON = dict(paper="shirodkar", chapter=CHAPTER, heavy=True)


def random_init_models(norm: str | None = None) -> tuple:
    """The architectures of the CPU-scale random-init set (of one norm type)."""
    from companion.llm.registry import get_spec

    names = SIZES["cpu"].random_models
    return tuple(m for m in names if norm is None or get_spec(m).norm == norm)


INIT = (
    "at random initialisation (real width; 2 blocks, 1 for d ≥ 1536; N = max(2048, 4d) "
    "tokens of Wikipedia text, photos for the vision models; float32 forward, float64 "
    "covariance; CPU)"
)


TRAINED = "all-MiniLM-L6-v2, SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised) and Gemma-3-270M"
