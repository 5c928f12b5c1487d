"""Fixtures of the site tests.

``make site-test`` runs ``test_browser.py`` and ``test_suite.py`` with
``-p pytest_playwright.pytest_playwright`` and ``COMPANION_SITE_HTML=_build/html`` (the
executed build of ``make book``). Without that variable ``test_browser.py`` is not
collected, so ``make test`` runs only the tests here that need no built site.

pytest-playwright is off by default (``-p no:playwright`` in pyproject.toml): its autouse
``delete_output_dir`` removes the ``--output`` folder (``test-results/`` of whatever
directory pytest runs in) in every session; the override below keeps that from happening.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from companion.site import browser

SITE = os.environ.get("COMPANION_SITE_HTML")
collect_ignore = [] if SITE else ["test_browser.py"]

# per visit (test and page): seconds and the problems found, written to the screenshot
# folder's report.json (comparable from run to run) and summarised at the end
TIMES: dict[str, float] = {}
PROBLEMS: dict[str, list[str]] = {}


@pytest.fixture(scope="session", autouse=True)
def delete_output_dir():
    """Replaces pytest-playwright's fixture of this name, which deletes ``--output``: the
    suite writes nothing there and deletes no folder it did not create."""


@pytest.fixture(scope="session")
def browser_type_launch_args():
    """Debian's chromium, never a downloaded browser."""
    return {"executable_path": browser.find_chromium(), "args": browser.CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def shots():
    """The screenshot folder (``COMPANION_SITE_SHOTS``, default ``_build/screenshots``)."""
    folder = browser.ShotFolder(os.environ.get("COMPANION_SITE_SHOTS", "_build/screenshots"))
    yield folder
    if TIMES:
        report = {
            "seconds_per_visit": round(sum(TIMES.values()) / len(TIMES), 2),
            "seconds": TIMES,
            "problems": PROBLEMS,
        }
        folder.file("report.json").write_text(json.dumps(report, indent=1))


@pytest.fixture
def record(request):
    """Records the visit's wall time and problems (``record.append``) under its test name."""
    problems: list[str] = []
    t0 = time.perf_counter()
    yield problems
    TIMES[request.node.name] = round(time.perf_counter() - t0, 2)
    PROBLEMS[request.node.name] = problems


def pytest_terminal_summary(terminalreporter):
    if TIMES:
        mean = sum(TIMES.values()) / len(TIMES)
        slowest = max(TIMES, key=TIMES.get)
        terminalreporter.write_line(
            f"site test: {len(TIMES)} page visits, {mean:.2f} s each on average "
            f"(slowest {slowest}: {TIMES[slowest]:.1f} s); screenshots in "
            f"{Path(os.environ.get('COMPANION_SITE_SHOTS', '_build/screenshots'))}/"
        )
