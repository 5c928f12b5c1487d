"""The rows of ``test_param_validation.py`` for the walk's theory modules (issue 23):
``theory.head_walk``, ``theory.fisher_decay``, ``theory.ln_bracket``, ``theory.ln_finite_t``
and the two verdict helpers of ``theory.null_classifier``."""

from __future__ import annotations

import numpy as np

from companion.theory import head_walk as hwk

_HW = hwk.toy_head_walk(V=6, d=4, n=12, rng=0)
_TS = [0.1, 1.0, 10.0]
_F = [1.0, 0.25, 0.0625]

INSTANCES = {"theory.head_walk.HeadWalk": _HW}

ROWS = {
    # head_walk
    "theory.head_walk.HeadWalk": dict(
        h=_HW.h,
        targets=_HW.targets,
        W=_HW.W,
        gamma=_HW.gamma,
        beta=_HW.beta,
        eps=1e-5,
        kind="layernorm",
        chunk=4,
    ),
    "theory.head_walk.HeadWalk.y": [dict(rows=slice(0, 4), beta=np.zeros(4)), dict(rows=[0, 2])],
    "theory.head_walk.HeadWalk.flat_point": dict(w=np.ones(4) * 0.1, t=0.5),
    "theory.head_walk.HeadWalk.kfac_vs_fisher": dict(u=np.arange(6.0), a=np.ones(4)),
    "theory.head_walk.HeadWalk.walk": [
        dict(curve="flat", ts=_TS, w=np.ones(4) * 0.1),
        dict(curve="line", ts=_TS, R=np.ones((6, 4))),
    ],
    "theory.head_walk.toy_head_walk": dict(V=6, d=4, n=12, kind="layernorm", rng=0),
    # fisher_decay
    "theory.fisher_decay.gaussian_anchor": dict(k=2.0, ts=_TS),
    "theory.fisher_decay.kl_order": dict(slope=2.0, stderr=0.1),
    "theory.fisher_decay.learning_coefficient": dict(ks=[2.0, 4.0]),
    "theory.fisher_decay.local_slopes": dict(ts=_TS, fisher=_F),
    "theory.fisher_decay.loglog_slope": dict(ts=_TS, fisher=_F, stderr=[0.1, 0.01, 0.001]),
    "theory.fisher_decay.simulate_chain_fisher": dict(
        k=2, ts=_TS, rho=1.0, noise=1.0, n=100, rng=0
    ),
    "theory.fisher_decay.simulate_gaussian_fisher": dict(k=2.0, ts=_TS, n=100, rng=0),
    # ln_bracket
    "theory.ln_bracket.bracket_chain": dict(
        ts=_TS, k_pre=1.0, k_post=1.0, eps=0.0, norm=True, d=4, n=20, rng=0
    ),
    "theory.ln_bracket.bracket_rates": dict(k_pre=1.0, k_post=2.0),
    "theory.ln_bracket.crossover_t": dict(k_pre=1.0, eps=1e-5, variance=1.0),
    "theory.ln_bracket.dead_passthrough": dict(x=[1.0, 2.0, 4.0], coord=1, eps=0.0),
    "theory.ln_bracket.ln_jacobian": dict(x=[1.0, 2.0, 4.0], gamma=[1.0, 2.0, 1.0], eps=0.1),
    # ln_finite_t
    "theory.ln_finite_t.expansion": dict(ts=_TS, c0=1.0, c2=0.5, c4=0.1),
    "theory.ln_finite_t.expansion_slope": dict(ts=_TS, c0=1.0, c2=0.5, c4=0.1),
    "theory.ln_finite_t.fit_expansion": dict(
        ts=[0.01, 0.1, 1.0, 10.0, 100.0], G=[1.0, 1.1, 2.0, 60.0, 5000.0]
    ),
    "theory.ln_finite_t.inverse_variance_moment": dict(d=8),
    "theory.ln_finite_t.regime_edges": dict(c0=1.0, c2=0.5, c4=0.1),
    "theory.ln_finite_t.simulate_inverse_variance": dict(d=8, n=100, rng=0),
    "theory.ln_finite_t.simulate_three_term": dict(ts=_TS, b=(0.001, 1.0, 0.01), n=100, rng=0),
    # null_classifier's verdict helpers
    "theory.null_classifier.dead_share": dict(vstar=[0.6, 0.8, 1e-9], dtype="float32"),
    "theory.null_classifier.norm_verdict": dict(
        rho=1e-3, floor=1e-6, dead=0.0, margin=100.0, gap=10.0, label="working-precision"
    ),
}

_RECORD = "a result record the library builds; its fields are not user input"
EXEMPT = {
    "theory.fisher_decay.FisherCurve": _RECORD + " (from simulate_*_fisher)",
    "theory.head_walk.WalkPoint": _RECORD + " (from HeadWalk.walk)",
}

NON_NEGATIVE = {"k_pre", "k_post", "variance", "c0", "c2", "c4", "chunk", "noise", "floor", "dead"}
POSITIVE = {"chunk", "variance"}
