"""Vendor the site's JavaScript from the npm registry, so the book renders with no CDN.

``python -m companion.site.vendor`` (``make vendor``) fetches pinned npm packages with
``npm pack`` (or, without npm, the same tarballs from the registry's tarball URL), and
unpacks only the files the site and the slides load:

* ``_vendor/site/mathjax/``  MathJax 3 (``es5/``: ``tex-mml-chtml.js``, fonts, menu,
  accessibility);
* ``_vendor/reveal.js/``     reveal.js (``dist/``, ``plugin/``) for ``make slides`` only.

``_config.yml`` lists ``_vendor/site`` in ``html_static_path``. The folder is deliberately
not called ``_static``: Jupyter Book auto-injects every ``.js``/``.css`` found in a
``_static`` folder, which would load these bundles twice. ``_vendor/`` is git-ignored;
nothing here is committed. Re-running is a no-op when ``_vendor/VERSIONS.json`` already
matches :data:`PACKAGES`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

__all__ = ["PACKAGES", "vendor", "main"]

#: npm package -> (version, [(path inside the tarball, destination under _vendor/)]).
#: No widget JavaScript: the site shows every Explore figure as plain HTML over precomputed
#: frames (book/_assets/companion.js), never a saved ipywidgets view.
PACKAGES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "mathjax": (
        "3.2.2",
        [
            ("package/es5/tex-mml-chtml.js", "site/mathjax/tex-mml-chtml.js"),
            ("package/es5/output/chtml", "site/mathjax/output/chtml"),
            ("package/es5/input/", "site/mathjax/input/"),
            ("package/es5/ui/", "site/mathjax/ui/"),
            ("package/es5/a11y/", "site/mathjax/a11y/"),
            ("package/es5/sre/", "site/mathjax/sre/"),
        ],
    ),
    # Font Awesome 4: the icons of matplotlib's to_jshtml animations, which nbconvert's decks
    # link from maxcdn (companion.site.book_ext and .slides point that link here).
    "font-awesome": (
        "4.7.0",
        [
            ("package/css/", "site/font-awesome/css/"),
            ("package/fonts/", "site/font-awesome/fonts/"),
        ],
    ),
    "reveal.js": (
        "4.6.1",
        [("package/dist/", "reveal.js/dist/"), ("package/plugin/", "reveal.js/plugin/")],
    ),
}
# Source maps are 10+ MB and never needed by a reader.
_SKIP_SUFFIXES = (".map",)
REGISTRY = "https://registry.npmjs.org"


def _tarball(name: str, version: str, cache: Path) -> Path:
    """The package tarball, from ``npm pack`` (preferred) or the registry's tarball URL."""
    fname = f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    path = cache / fname
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm:
        subprocess.run(
            [npm, "pack", "--silent", f"{name}@{version}"],
            cwd=cache,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    else:
        base = name.split("/")[-1]
        url = f"{REGISTRY}/{name}/-/{base}-{version}.tgz"
        with urllib.request.urlopen(url, timeout=120) as r:
            path.write_bytes(r.read())
    if not path.exists():
        raise FileNotFoundError(f"`npm pack {name}@{version}` did not produce {path}")
    return path


def _extract(tgz: Path, rules, dest: Path) -> int:
    n = 0
    with tarfile.open(tgz, "r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or member.name.endswith(_SKIP_SUFFIXES):
                continue
            for src, dst in rules:
                if (
                    member.name == src
                    or (src.endswith("/") and member.name.startswith(src))
                    or member.name.startswith(src.rstrip("/") + "/")
                ):
                    rel = member.name[len(src.rstrip("/")) :].lstrip("/")
                    target = dest / dst if not rel else dest / dst.rstrip("/") / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with tar.extractfile(member) as fh:
                        target.write_bytes(fh.read())
                    n += 1
                    break
    return n


def vendor(dest: str | Path = "_vendor", *, force: bool = False, quiet: bool = False) -> dict:
    """Fetch and unpack :data:`PACKAGES` into ``dest``; return ``{package: version}``."""
    dest = Path(dest)
    stamp = dest / "VERSIONS.json"
    wanted = {k: v[0] for k, v in PACKAGES.items()}
    if not force and stamp.exists() and json.loads(stamp.read_text())["packages"] == wanted:
        if not quiet:
            print(
                f"vendor: {dest} is up to date ({', '.join(f'{k}@{v}' for k, v in wanted.items())})"
            )
        return wanted
    t0 = time.perf_counter()
    cache = dest / ".npm-cache"
    for sub in ("site", "reveal.js"):
        shutil.rmtree(dest / sub, ignore_errors=True)
    counts = {}
    for name, (version, rules) in PACKAGES.items():
        counts[name] = _extract(_tarball(name, version, cache), rules, dest)
        if counts[name] == 0:
            raise RuntimeError(f"`{name}@{version}` has none of the expected files {rules}")
    seconds = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in (dest / "site").rglob("*") if p.is_file())
    stamp.write_text(
        json.dumps(
            {"packages": wanted, "files": counts, "seconds": round(seconds, 1), "site_bytes": size},
            indent=1,
        )
    )
    if not quiet:
        print(
            f"vendor: {sum(counts.values())} files from {len(counts)} npm packages in "
            f"{seconds:.1f} s; "
            f"{size / 2**20:.1f} MiB go into the site ({dest / 'site'})"
        )
    return wanted


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dest", default="_vendor")
    p.add_argument("--force", action="store_true", help="re-extract even if up to date")
    args = p.parse_args(argv)
    vendor(args.dest, force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
