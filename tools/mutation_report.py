"""Run every row of the mutation table and write what each did to its claim.

``python tools/mutation_report.py`` breaks, one row at a time, the function each row of
``tests/mutations/mutation_table.py`` names, measures the claim again (``companion.ledger``,
without its control) and writes ``results/ledger/mutations.json``: per row the claim, the
break, the status before and under the break, and whether the row did what the table says
(``killed`` rows must change the status, a reproduced claim to ``deviates``; ``survives``
rows are stated blind spots). The ledger page quotes its counts; ``make test`` runs the same
rows again (the fast ones) and checks that this report still matches the table.

Strict JSON, written atomically (a temporary file, then a rename): an interrupted run leaves
the previous report whole. Exit code 0 when every row did what the table says, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "ledger" / "mutations.json"
COMMAND = "python tools/mutation_report.py"


def run(log=print) -> dict:
    sys.path.insert(0, str(ROOT / "tests" / "mutations"))
    from mutation_harness import mutated, status
    from mutation_table import MUTATIONS, NO_MUTATION

    from companion import ledger

    base: dict = {}
    rows = []
    start = time.perf_counter()
    for m in MUTATIONS:
        if (m.claim, m.scale) not in base:
            base[m.claim, m.scale] = status(m.claim, m.scale)[0]
        before = base[m.claim, m.scale]
        with mutated(m.target, m.make):
            after = status(m.claim, m.scale)[0]
        changed = after != before and (before != "reproduced" or after == "deviates")
        ok = changed if m.expect == "killed" else after == before
        rows.append(
            dict(claim=m.claim, target=m.target, what=m.what, scale=m.scale,
                 expect=m.expect, before=before, under_break=after, as_stated=ok)
        )  # fmt: skip
        log(f"{'ok ' if ok else 'BAD'} {m.claim} <- {m.target}: {before} -> {after}")
    ids = [c.id for c in ledger.all_claims()]
    killed = {r["claim"] for r in rows if r["expect"] == "killed" and r["as_stated"]}
    return dict(
        command=COMMAND,
        written=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        wall_s=round(time.perf_counter() - start, 1),
        counts=dict(
            claims=len(ids),
            rows=len(rows),
            rows_as_stated=sum(r["as_stated"] for r in rows),
            claims_killed=len(killed),
            blind_spots=sum(r["expect"] == "survives" for r in rows),
            claims_with_reason=len(NO_MUTATION),
        ),
        rows=rows,
        no_mutation=dict(sorted(NO_MUTATION.items())),
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the report (JSON)")
    args = parser.parse_args(argv)
    report = run()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, args.out)
    c = report["counts"]
    print(
        f"{c['rows_as_stated']} of {c['rows']} rows as stated; {c['claims_killed']} of "
        f"{c['claims']} claims killed, {c['claims_with_reason']} with a stated reason; "
        f"{report['wall_s']:.0f} s -> {args.out.relative_to(ROOT)}"
    )
    return 0 if c["rows_as_stated"] == c["rows"] else 1


if __name__ == "__main__":
    sys.exit(main())
