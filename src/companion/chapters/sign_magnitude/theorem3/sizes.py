"""The chapter's sizes per scale, in a module of their own: its ``records`` and ``tables``
read them without importing the package ``__init__`` that re-exports them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    check_n: int  # width n = m = d of the chapter's two-flip-rate check
    check_samples: int  # sphere inputs per seed there
    check_seeds: int  # independent weight draws there
    # relative tolerances the check's width resolves (C_hidden against C; the post-norm
    # readout against its inflation); None at smoke, where the O(1/n) terms exceed them
    check_tols: tuple | None
    table_widths: tuple  # widths of the chapter's Table 2
    table_samples: int
    table_seeds: int
    ladder_widths: tuple  # widths n = m = d of the claims' width extrapolation
    ladder_samples: int  # sphere inputs per weight draw there
    ladder_seeds: int  # weight draws per width
    table2_n: int  # Table 2's width (dong.thm3.table2 / .author_code; a results file)
    table2_samples: int
    table2_seeds: int


SIZES = {
    "cpu": Sizes(
        check_n=256,
        check_samples=600,
        check_seeds=6,
        check_tols=(0.01, 0.05),
        table_widths=(256, 512),
        table_samples=1000,
        table_seeds=3,
        ladder_widths=(256, 512, 1024),
        ladder_samples=1000,
        ladder_seeds=6,
        table2_n=2048,  # the author's protocol, 5 seeds: results/theorem3/table2-cpu.jsonl
        table2_samples=10000,
        table2_seeds=5,
    ),
    "full": Sizes(  # the author's protocol for Table 2: 20 seeds x 10,000 samples
        check_n=1024,
        check_samples=10000,
        check_seeds=10,
        check_tols=(0.01, 0.05),
        table_widths=(256, 512, 1024, 2048),
        table_samples=10000,
        table_seeds=20,
        ladder_widths=(512, 1024, 2048),
        ladder_samples=10000,
        ladder_seeds=10,
        table2_n=2048,
        table2_samples=10000,
        table2_seeds=20,
    ),
    "smoke": Sizes(
        check_n=32,
        check_samples=50,
        check_seeds=2,
        check_tols=None,
        table_widths=(32,),
        table_samples=50,
        table_seeds=2,
        ladder_widths=(16, 32, 64),
        ladder_samples=50,
        ladder_seeds=2,
        table2_n=64,
        table2_samples=100,
        table2_seeds=2,
    ),
}


#: Flip rates of the width ladder (Table 2's four and a small one for the limit).
LADDER_PS = (0.005, 0.01, 0.02, 0.05, 0.10)
