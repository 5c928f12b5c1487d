"""The ``companion.results`` rows of ``test_param_validation.py`` (issue 22): valid arguments
of every public function of the results package, on files in a temporary folder."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

from companion.results import ResultStore

_DIR = Path(tempfile.mkdtemp(prefix="companion-results-validation-"))
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
_JSONL = _DIR / "r.jsonl"
_JSONL.write_text('{"key": "k", "value": 1.0}\n')
_JSON = _DIR / "bench.json"
_JSON.write_text(json.dumps({"a": 1.0}))

ROWS = {
    "results.results_root": dict(write=False),
    "results.experiment_dir": dict(experiment="sign_flips", write=False),
    "results.jsonl.read_jsonl": dict(path=str(_JSONL), schema=None),
    "results.jsonl.write_jsonl": dict(path=str(_DIR / "w.jsonl"), records=[{"key": "a"}]),
    "results.jsonl.read_json": dict(path=str(_JSON)),
    "results.jsonl.remove_stale_temporaries": dict(
        folder=str(_DIR), pattern=r"^\.tmp-(?P<pid>\d+)-.*\.jsonl$", max_age_s=3600.0
    ),
    "results.schema.RecordSchema": dict(name="x", required={"key": "string"}, optional={}),
    "results.schema.schema_for": dict(path="results/theorem3/table2-cpu.jsonl"),
    "results.store.ResultStore": dict(path=str(_DIR / "store.jsonl"), schema=None),
    "results.store.ResultStore.append": dict(record={"key": "k", "value": 1.0}, command="test"),
    "results.store.ResultStore.done": dict(key="k"),
    "results.store.ResultStore.get": dict(key="k"),
    "results.store.run_record": dict(
        store=ResultStore(_DIR / "run.jsonl"),
        settings={"p": 1},
        measure=lambda: {"v": 1.0},
        key="p|1",
        resume=True,
        command="test",
        timed="wall_s",
        since=0.0,
    ),
    "results.store.settings_key": dict(settings={"a": 1}),
    "results.strict.dumps_strict": dict(record={"a": 1.0}),
    "results.strict.loads_strict": dict(line='{"a": 1.0}'),
}

INSTANCES = {"results.store.ResultStore": ResultStore(_DIR / "instance.jsonl")}

EXEMPT = {
    "results.schema.RecordSchema.problem": "a checker: it says what is wrong with any value "
    "(that is its answer), it refuses nothing",
}


#: (environment variable, value, call that reads it, exception, message): each variable the
#: library reads is refused in one line where it is read (COMPANION_SCALE was a traceback at
#: import that broke every command).
def _env_cases():
    from companion import _validate, scale
    from companion import results as res
    from companion.theory import bussgang as bg

    return [
        ("COMPANION_SCALE", "bogus", scale.detect_scale, ValueError,
         "`COMPANION_SCALE` must be one of 'cpu', 'full', 'smoke'; got 'bogus'"),
        ("COMPANION_MEMORY", "lots", _validate.memory_bytes, ValueError,
         "`COMPANION_MEMORY` must be a number of bytes (an integer); got 'lots'"),
        ("COMPANION_MEMORY", "0", _validate.memory_bytes, ValueError,
         "`COMPANION_MEMORY` must be an integer >= 1; got 0"),
        ("COMPANION_MEMORY", "1000", lambda: bg.sample_weights((100, 100)), ValueError,
         "`shape` must fit in this machine's memory (1000 B); got (100, 100), which needs "
         "about 78.1 KiB (1e+04 float64 weights)"),
        ("COMPANION_RESULTS", str(_JSON), res.results_root, ValueError,
         f"`COMPANION_RESULTS` must name a folder (the results root); got {str(_JSON)!r}, "
         "which is not a folder"),
    ]  # fmt: skip


ENV_CASES = _env_cases()
