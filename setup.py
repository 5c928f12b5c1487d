"""Packaging beyond ``pyproject.toml``: the committed ``results/`` ship inside the package.

A non-editable build (a wheel: ``pip install .``, ``pip install git+...`` on Colab) copies the
repository's ``results/`` (JSON and JSON-lines files) into ``companion/_results``, where
:mod:`companion.results` reads them when no checkout is around. ``results/`` itself stays at
the repository root, where ``companion run`` writes. An editable install reads the checkout's
``results/`` directly, so it copies nothing. The measured chapter run times,
``bench/exec_times.json``, ship the same way as ``companion/site/exec_times.json`` (the Execution
times and seminar pages read them).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESULTS = Path(__file__).resolve().parent / "results"
EXEC_TIMES = RESULTS.parent / "bench" / "exec_times.json"


class BuildPyWithResults(build_py):
    """``build_py``, then ``results/**/*.json[l]`` into ``<build>/companion/_results``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "companion" / "_results"
        for path in sorted(RESULTS.rglob("*")):
            rel = path.relative_to(RESULTS)
            if not path.is_file() or path.suffix not in (".json", ".jsonl"):
                continue
            if rel.parts[0].startswith(("_", ".")) or path.name.startswith("."):
                continue  # results/_scratch and temporary files are not results
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / rel)
        if EXEC_TIMES.exists():
            shutil.copy2(EXEC_TIMES, Path(self.build_lib) / "companion" / "site" / EXEC_TIMES.name)


setup(cmdclass={"build_py": BuildPyWithResults})
