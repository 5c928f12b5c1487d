"""Part I at scale, its records: read from the results that ``companion run sign-flips`` wrote (or
run now at ``full``/``smoke`` scale when missing), and their summaries, cached per results file."""

from __future__ import annotations

from functools import lru_cache

from companion.chapters.sign_magnitude.at_scale.sizes import SIZES


def records(experiment: str, scale: str) -> list[dict]:
    """The records of one experiment at ``scale`` from the results root; at ``full`` and
    ``smoke`` scale a missing experiment is run now (resumable: an interrupted run continues).

    Raises
    ------
    FileNotFoundError
        At CPU scale when the results file is absent (it ships with the package), naming the
        command that writes it.
    """
    from companion.llm import sign_flips as sf

    model = SIZES[scale].model
    recs = sf.load_results(model, experiment, scale=scale)
    if not recs and scale != "cpu":
        recs = sf.run_experiment(experiment, model, scale=scale, resume=True, progress=False)
    if not recs:
        raise FileNotFoundError(
            f"no records in {sf.results_path(None, model, experiment, scale)}; run "
            f"`{sf.command_line(experiment, model, scale)}`"
        )
    _cached.cache_clear()
    return recs


@lru_cache(maxsize=32)
def _cached(experiment: str, model: str, scale: str):
    """(records, summary) of one results file; (records, None) when it is empty."""
    from companion.llm import sign_flips as sf

    recs = tuple(sf.load_results(model, experiment, scale=scale))
    return recs, (sf.summarize(experiment, list(recs)) if recs else None)


def model_summary(experiment, model, scale):
    return _cached(experiment, model, scale)[1]


def model_records(experiment, model, scale):
    return list(_cached(experiment, model, scale)[0])
