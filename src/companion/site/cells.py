"""The chapters' code cells at 88 columns: ``ruff format`` them in place, or check them.

A chapter's code is read on a page 88 columns wide, so every ``{code-cell}`` of a MyST chapter
is formatted with ``ruff format --line-length 88`` (the library uses 100) and no line may be
longer than 88 characters (``ruff format`` does not split long strings or comments).

    python -m companion.site.cells            # format every chapter's cells in place
    python -m companion.site.cells --check    # exit 1 and list the cells that would change

``tests/unit/test_layout.py`` runs the check.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

__all__ = ["WIDTH", "check", "code_cells", "format_source"]

#: The width of chapter code.
WIDTH = 88

# A code cell of a MyST chapter: the fence, its options (":tags: [...]" and a blank line), code.
_CELL = re.compile(r"^```\{code-cell\} ipython3\n((?::[\w-]+:[^\n]*\n)*\n?)(.*?)^```$", re.S | re.M)


def chapters(root: str | Path = ".") -> list[Path]:
    """Every MyST chapter (a ``.md`` with a kernelspec) under ``root/book``."""
    return [
        p
        for p in sorted(Path(root, "book").rglob("*.md"))
        if "kernelspec:" in p.read_text(encoding="utf-8")[:3000]
    ]


def code_cells(text: str) -> list[re.Match]:
    """The code cells of a chapter's text, as matches (group 2 is the code)."""
    return list(_CELL.finditer(text))


def format_source(code: str) -> str:
    """``code`` as ``ruff format --line-length 88`` writes it (raises on a syntax error)."""
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "format", f"--line-length={WIDTH}", "-"],
        input=code,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise ValueError(f"`code` must be valid Python; ruff says: {run.stderr.strip()}")
    return run.stdout


def check(root: str | Path = ".") -> list[str]:
    """One line per cell that is not formatted or has a line over :data:`WIDTH` characters."""
    problems = []
    for md in chapters(root):
        text = md.read_text(encoding="utf-8")
        for m in code_cells(text):
            code, line = m.group(2), text[: m.start()].count("\n") + 1
            if format_source(code) != code:
                problems.append(f"{md}:{line}: cell not formatted (ruff format, {WIDTH} columns)")
            for k, row in enumerate(code.splitlines(), 1):
                if len(row) > WIDTH:
                    problems.append(
                        f"{md}:{line + k}: {len(row)} > {WIDTH} columns: {row.strip()[:40]}..."
                    )
    return problems


def fix(root: str | Path = ".") -> list[Path]:
    """Format every cell in place; return the chapters that changed."""
    changed = []
    for md in chapters(root):
        text = md.read_text(encoding="utf-8")
        new = _CELL.sub(
            lambda m: m.group(0)[: m.start(2) - m.start()] + format_source(m.group(2)) + "```", text
        )
        if new != text:
            md.write_text(new, encoding="utf-8")
            changed.append(md)
    return changed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.site.cells", description=__doc__)
    p.add_argument("--check", action="store_true", help="report, change nothing")
    p.add_argument("--root", default=".")
    args = p.parse_args(argv)
    if args.check:
        problems = check(args.root)
        print("\n".join(problems) or "every chapter cell is formatted")
        return 1 if problems else 0
    for md in fix(args.root):
        print(f"formatted: {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
