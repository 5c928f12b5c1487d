"""The engine's core files are no longer than the house's ~450 lines, as ``test_layout.py``
keeps ``llm``, ``theory`` and the chapters: the ``results`` package (``results.py`` was 576
lines) and the top-level modules every command goes through."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "companion"
MAX_LINES = 450
CORE = ("cli.py", "_validate.py", "stats.py", "scale.py")


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_results_package_and_core_modules_stay_under_450_lines():
    files = sorted((SRC / "results").rglob("*.py")) + [SRC / name for name in CORE]
    assert len(files) > len(CORE) and all(f.exists() for f in files)
    long = {str(f.relative_to(SRC)): n for f in files if (n := _lines(f)) > MAX_LINES}
    assert not long, f"split by job (at most {MAX_LINES} lines): {long}"
