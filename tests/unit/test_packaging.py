"""The two dependency lists agree, and the light parts of the library stay light."""

import pathlib
import re
import subprocess
import sys

import tomllib
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _norm(req: str) -> str:
    return re.sub(r"\s+", "", req.split(";")[0]).lower()


def test_environment_yml_names_the_pyproject_dependencies():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_norm(r) for r in py["dependencies"]}
    for extra in ("llm", "book", "test"):
        wanted |= {_norm(r) for r in py["optional-dependencies"][extra]}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    pip_lines = {_norm(m) for m in pip if not m.startswith("-e") and "==2.13.0" not in m}
    assert pip_lines == wanted


def test_import_companion_and_theory_never_imports_torch():
    code = (
        "import sys, companion, companion.claims, companion.cli, companion.widgets, "
        "companion.scale;"
        "import companion.theory.sign_magnitude, companion.theory.dead_directions;"
        "import companion.ledger; companion.ledger.all_claims();"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "False"]
