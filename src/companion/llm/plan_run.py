"""The runner of the at-scale plan: :func:`run_what_fits` runs the steps of
:func:`companion.llm.plan.plan` that fit, one at a time, each failure in one line."""

from __future__ import annotations

__all__ = ["run_what_fits"]


def _free_memory() -> None:
    import gc
    import sys

    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


def _run_step(step, scale: str, out) -> None:
    if step.experiment == "dead-directions":
        from companion.llm.dead_directions import run_dead_directions

        run_dead_directions(
            step.model,
            init=step.init,
            scale=scale,
            out=out,
            resume=True,
            show_progress=False,
            command=step.command,
        )
    else:
        from companion.llm.sign_flips import run_experiment

        name = step.experiment.removeprefix("sign-flips ")
        run_experiment(
            name,
            step.model,
            scale=scale,
            out=out,
            resume=True,
            progress=False,
            command=step.command,
        )


def run_what_fits(steps: list, scale: str, *, out=None, echo=print) -> list[tuple]:
    """Run every step that fits, one at a time (one model in memory), resumably: a step
    already stored is skipped, a failure is reported in one line and the next step runs.

    Returns ``[(step, status, detail)]`` with status ``"done"``, ``"not run"`` (it does not
    fit: ``detail`` says why) or ``"failed"`` (``detail``: the error's first line). At CPU
    scale nothing runs (the records ship with the package) and nothing is printed.
    """
    import time

    from companion.llm._checks import check_callable, check_path
    from companion.scale import check_scale

    check_scale(scale)
    if not isinstance(steps, (list, tuple)):
        raise TypeError(f"`steps` must be a list of Step; got {type(steps).__name__}")
    for i, s in enumerate(steps):  # a plan.Step (not imported: plan imports this module)
        if not all(hasattr(s, a) for a in ("fits", "reason", "label", "command")):
            raise TypeError(f"`steps[{i}]` must be a plan Step; got {type(s).__name__}")
    check_path(out, "out")
    check_callable(echo, "echo")
    if scale == "cpu":
        return []
    outcomes = []
    for step in steps:
        if not step.fits:
            outcomes.append((step, "not run", step.reason))
            echo(f"not run: {step.label}: {step.reason}")
            continue
        t0 = time.perf_counter()
        try:
            _run_step(step, scale, out)
        except Exception as err:  # one line, and the next step goes on
            first = (str(err).strip().splitlines() or [""])[0]
            outcomes.append((step, "failed", f"{type(err).__name__}: {first}"))
            echo(f"failed: {step.label}: {type(err).__name__}: {first}")
        else:
            minutes = (time.perf_counter() - t0) / 60
            outcomes.append((step, "done", f"{minutes:.1f} min"))
            echo(f"done: {step.label} in {minutes:.1f} min")
        finally:
            _free_memory()
    return outcomes
