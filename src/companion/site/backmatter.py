"""The back-matter pages' tools in one place: what the book's cells and ``make`` call.

The work is split by job; this module gathers it for the pages
(``from companion.site import backmatter``) and runs the one command:

* :mod:`companion.site.exec_record`: the measured chapter run times
  (``bench/exec_times.json``) and the Execution times table;
* :mod:`companion.site.seminar`: the 90-minute plan, whose data is
  :mod:`companion.site.seminar_plan`, with its clock and the seminar page's table;
* :mod:`companion.site.results_pages`: what results exist, measured where, and the commands
  of the full-scale runs.

``python -m companion.site.backmatter record`` writes ``bench/exec_times.json`` from the last
``make book``'s execution records.
"""

from __future__ import annotations

import argparse
import sys

from companion.site.book_pages import book_root, doc_title
from companion.site.exec_record import (
    exec_record,
    exec_times,
    exec_times_html,
    machine,
    record,
)
from companion.site.paths import repo_root
from companion.site.results_pages import (
    commands_html,
    full_scale_commands,
    full_scale_results,
    inventory_html,
    results_inventory,
)
from companion.site.seminar import (
    SEMINAR,
    SESSION_MINUTES,
    Stop,
    seminar_html,
    seminar_rows,
)

__all__ = [
    "SEMINAR",
    "SESSION_MINUTES",
    "Stop",
    "book_root",
    "commands_html",
    "doc_title",
    "exec_record",
    "exec_times",
    "exec_times_html",
    "full_scale_commands",
    "full_scale_results",
    "inventory_html",
    "machine",
    "main",
    "repo_root",
    "results_inventory",
    "seminar_html",
    "seminar_rows",
]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m companion.site.backmatter", description=__doc__.splitlines()[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser(
        "record", help="write bench/exec_times.json from the last `make book`'s execution records"
    )
    p.parse_args(argv)
    return record()


if __name__ == "__main__":
    sys.exit(main())
