"""The structural pass of ``make test``: build the site with execution off, warnings as errors.

Broken cross-references, unknown labels, bad directives and bibliography errors fail
here in seconds, independently of how long the chapters take to execute (they are
executed separately, through nbval). Output goes to ``_build/structural``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(root: str = ".") -> int:
    root = Path(root).resolve()
    cfg = (root / "_config.yml").read_text(encoding="utf-8")
    if "execute_notebooks: cache" not in cfg:
        raise ValueError("`_config.yml` must set execute_notebooks: cache; got another setting")
    out = root / "_build" / "structural"
    out.mkdir(parents=True, exist_ok=True)
    alt = out / "_config.yml"
    alt.write_text(
        cfg.replace("execute_notebooks: cache", 'execute_notebooks: "off"').replace(
            "bibtex_bibfiles: [references.bib]", f"bibtex_bibfiles: [{root / 'references.bib'}]"
        ),
        encoding="utf-8",
    )
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(jb),
        "build",
        str(root),
        "-W",
        "-n",
        "--keep-going",
        "--config",
        str(alt),
        "--path-output",
        str(out),
    ]
    print("structural build:", " ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
