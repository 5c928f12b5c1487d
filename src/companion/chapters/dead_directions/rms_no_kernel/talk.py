"""T2, RMSNorm has no kernel, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-rms-no-kernel",),
    "steps": ("The trap",),
    "punchline": "shirodkar.rms_no_kernel",
    "exercise": "ex-rms-data-kernel",
    "slides": {
        "title": {
            "say": (
                "The negative partner of the LayerNorm kernel. A proof by witness, and a trap "
                "that catches people who only look at |cos|."
            ),
            "ask": "What does RMSNorm leave out compared with LayerNorm?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (r"RMSNorm = LayerNorm **without** the mean subtraction and without \(\beta\)."),
                ("Does the kernel survive? The paper: absent on every RMSNorm model it tried."),
                ("A negative result needs a witness: one input law that moves every direction."),
            ),
            "say": (
                "RMSNorm drops the mean subtraction and β. The paper says that single omission "
                "removes the kernel, and finds it absent on 5 of 5 RMSNorm models."
            ),
            "ask": "Which line of the two-line LayerNorm proof needs the mean subtraction?",
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (r"For **every** direction \(v \ne 0\) some admissible input moves it."),
                (
                    r"Witness: \(X\) uniform on \(\pm e_i\); the variance is \(\sum_i "
                    r"(v_i\gamma_i)^2/(1 + d\varepsilon) > 0\)."
                ),
                "LayerNorm's outputs lie on a hyperplane; RMSNorm's on an ellipsoid.",
            ),
            "say": (
                "For any direction v, feed the 2d points plus and minus e_i: the reading along v "
                "has strictly positive variance. No direction, from γ or from anything else, is a"
                " kernel for every input. The witness is the authors' Lean proof."
            ),
            "ask": ("Why is a single input distribution enough to prove a 'for every' negative?"),
            "min": 1,
        },
        "The trap": {
            "bullets": (
                (r"\(\gamma^{-1}\) weights the coordinates with the smallest \(|\gamma_i|\)."),
                "RMSNorm's smallest variances sit on the same coordinates.",
                (r"Heterogeneous \(\gamma\): \(|\cos|\) far above chance, **no** kernel."),
                (r"The exactness statistic \(\rho\) stays put: use it, not \(|\cos|\)."),
            ),
            "say": (
                "With a very heterogeneous trained γ, both γ⁻¹ and the RMSNorm covariance's "
                "smallest variances concentrate on the smallest-|γ| coordinates. So |cos| rises "
                "far above chance even though there is no kernel. The exactness statistic ρ does "
                "not move."
            ),
            "ask": "If |cos| can be high without a kernel, what would you measure instead?",
            "min": 1,
        },
        "figure": {
            "bullets": (r"Raise the spread \(\sigma\) of \(\gamma\).",),
            "say": (
                "Both spectra side by side: LayerNorm has its eigenvalue at zero, RMSNorm none. "
                "Raise the spread σ of γ and watch the weight of both directions concentrate on "
                "the smallest-|γ| coordinates: that is the trap, live."
            ),
            "ask": "At what spread would you stop trusting |cos| here?",
            "min": 1,
        },
        "number": {
            "bullets": (
                ("The witness's variance along a direction, enumerated exactly now: not zero."),
            ),
            "say": (
                "The witness enumerated now at small d: [[ours]] against [[paper]]. Status: "
                "[[status]]."
            ),
            "ask": "Why enumerate the witness exactly rather than sample it?",
            "min": 0.5,
        },
        "exercise": {
            "say": (
                "Thirty seconds to pose, set as homework: a data-dependent kernel can still "
                "appear, and the classifier then says LayerNorm. Is it wrong?"
            ),
            "ask": "If the inputs are already mean-free, is an RMSNorm still an RMSNorm?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "With mean-free inputs RMSNorm is a LayerNorm with β = 0, so the kernel appears; "
                "the classifier is right about the outputs it sees."
            ),
            "ask": "What does that say about classifying a model from one dataset?",
            "min": 0,
        },
        "discuss": {
            "bullets": (
                ("Linear constraint (LayerNorm) or quadratic (RMSNorm): which others are linear?"),
                (r"Why is \(|\cos|\) dangerous with a heterogeneous trained \(\gamma\)?"),
            ),
            "say": "For the ledger discussion; the first question generalises the chapter.",
            "ask": "Which other normalisers put a linear constraint on their outputs?",
            "min": 0,
        },
        "claims": {
            "say": "One claim, the Lean witness enumerated exactly: [[tally]].",
            "ask": "What would a deviation here even look like?",
            "min": 0,
        },
        "next": {
            "bullets": (
                ("Next: from an activation kernel to a dead direction in parameter space."),
            ),
            "say": ("Next, read as homework: lifting the activation kernel into parameter space."),
            "ask": (
                "If the outputs never move along v*, what can the next layer's weights do along it?"
            ),
            "min": 0,
        },
    },
}
