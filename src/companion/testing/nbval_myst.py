"""pytest plugin: run MyST-markdown chapters (``book/**.md``) through nbval.

nbval collects only ``.ipynb``. This plugin reads a ``.md`` chapter with jupytext
and hands the notebook to nbval, so the chapter source itself is what the tests
execute (not a possibly stale paired ``.ipynb``). Chapters whose front matter sets
``mystnb: {execution_mode: "off"}`` (full-scale GPU chapters) are skipped unless
``--run-heavy`` is given. Relies on nbval 0.11 reading notebooks through
``nbformat.read``; the pin ``nbval==0.11.*`` keeps that true.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--run-heavy",
        action="store_true",
        help="also run chapters marked mystnb.execution_mode: off",
    )


def _is_chapter(path) -> bool:
    if path.suffix != ".md":
        return False
    head = path.read_text(encoding="utf-8")[:3000]
    return head.startswith("---") and "kernelspec:" in head


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if not _is_chapter(file_path):
        return None
    return _myst_notebook_class().from_parent(parent, path=file_path)


def _myst_notebook_class():
    import jupytext
    import nbval.plugin as nbp

    class MystNotebook(nbp.IPyNbFile):
        def collect(self):
            nb = jupytext.read(str(self.path))
            heavy = nb.metadata.get("mystnb", {}).get("execution_mode") == "off"
            if heavy and not self.config.getoption("--run-heavy"):
                pytest.skip("full-scale chapter (execution_mode: off); use --run-heavy")
            orig = nbp.nbformat.read
            nbp.nbformat.read = lambda *_a, **_k: nb
            try:
                yield from super().collect()
            finally:
                nbp.nbformat.read = orig

    return MystNotebook
