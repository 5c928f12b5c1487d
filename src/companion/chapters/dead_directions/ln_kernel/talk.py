"""T1, the LayerNorm kernel, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-ln-kernel",),
    "steps": ("Precision",),
    "punchline": "shirodkar.ln_kernel",
    "exercise": "ex-ln-kernel-zero",
    "slides": {
        "title": {
            "say": (
                "Part II: a second paper, a different question. Not what a norm does to a "
                "perturbation, but what its outputs can never do."
            ),
            "ask": "A LayerNorm output has d coordinates: can it move in all d directions?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (r"A LayerNorm output can move in \(d\) directions, but **never** along one."),
                (r"That direction is \(\gamma^{-1}\), read off the parameters: no forward pass."),
                ("The paper: it matches the measured bottom direction on 9 of 9 LayerNorm models."),
            ),
            "say": (
                "There is one direction along which a LayerNorm output never moves, whatever the "
                "input: the reciprocal of the scale γ. So you can read it off the parameters, "
                "with no forward pass. The paper's diagnostic is built on this."
            ),
            "ask": (
                "If you had only the layer's parameters, could you predict anything about its "
                "outputs' covariance?"
            ),
            "min": 1,
        },
        "statement": {
            "bullets": (
                (
                    r"\(\mathrm{LN}(x) = \gamma \odot (s(x)\,Px) + \beta\), any scalar normaliser "
                    r"\(s\)."
                ),
                (
                    r"Then \(\mathrm{Cov}(\mathrm{LN}(X))\,\gamma^{-1} = 0\), for every input "
                    "distribution."
                ),
                (r"Sample by sample too: the centred data matrix kills \(\gamma^{-1}\)."),
                r"A zero in \(\gamma\): the kernel is that coordinate axis.",
            ),
            "say": (
                "Any normaliser, any ε, any β, any input distribution: the covariance has an "
                "exact zero eigenvalue along γ⁻¹. The statement is from the authors' Lean "
                "development; the precision analysis is ours."
            ),
            "ask": ("Which of these hypotheses would you expect a real implementation to break?"),
            "min": 1.5,
        },
        "Precision": {
            "bullets": (
                (
                    "In floating point the reading is constant only **up to rounding**: a floor, "
                    "not a zero."
                ),
                "bf16 rounding is far coarser than fp64 or fp32.",
                (
                    r"When the bulk reaches the floor, the measured direction mixes: \(|\cos|\) "
                    "collapses ([[ours:shirodkar.bf16_floor]] in bf16 on the chapter's set-up)."
                ),
                ("Hence fp64 accumulation, and a classifier that tests against the floor."),
            ),
            "say": (
                "The proof is two lines: the reading along γ⁻¹ is the same constant for every "
                "input. But in floating point it is constant only up to rounding, and bf16 "
                "rounding is large. When the smallest bulk eigenvalues come down to that floor, "
                "the measured bottom direction mixes with them."
            ),
            "ask": "Is the kernel still there when |cos| collapses in bf16?",
            "min": 1.5,
        },
        "figure": {
            "bullets": ((r"Choose the precision of the activations, then move the width \(d\)."),),
            "say": (
                "Start in float64: the bottom eigenvalue sits at machine zero and the right panel"
                " is a diagonal line. Now choose bfloat16 and move the width up: the bulk comes "
                "down to the floor and |cos| in the title falls. Precision stays where you put it"
                " while d moves."
            ),
            "ask": "At which width does bf16 lose the direction on this set-up?",
            "min": 2,
        },
        "number": {
            "bullets": ((r"Worst \(\|Cv^*\|/\|C\|\) over awkward float64 set-ups, computed now."),),
            "say": (
                "Checked now on awkward synthetic inputs in float64: [[ours]]. The paper's "
                "statement: [[paper]]. Status: [[status]]."
            ),
            "ask": "What does an exact zero tell you that an eigenvalue of 1e-30 does not?",
            "min": 1,
        },
        "exercise": {
            "say": (
                "Ninety seconds: one coordinate of γ is zero. Most people see it once they write "
                "down that coordinate of the output."
            ),
            "ask": "What is coordinate i₀ of the output when γ_i₀ is zero?",
            "min": 1.5,
        },
        "solution": {
            "say": (
                "That coordinate is the constant β_i₀, so the axis is a kernel direction; the "
                "library refuses to invert such a γ and says why."
            ),
            "ask": "Would you call a dead coordinate a bug of training or a feature?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    "The prediction is free and exact. What can the **measured** eigenvalue tell "
                    "you that it cannot?"
                ),
                ('bf16: exact to its precision, \\(|\\cos|\\) destroyed. Which is "present"?'),
                (
                    "Every LayerNorm has its own kernel: what does that imply for the weights "
                    "reading it?"
                ),
            ),
            "say": (
                "Take one answer to the second question now; it is the thread of the next two "
                "talks and of the ledger discussion."
            ),
            "ask": ("Exact to bf16 precision but |cos| destroyed: is the kernel present or not?"),
            "min": 0.5,
        },
        "claims": {
            "say": "Three claims: the kernel, and two about precision. [[tally]].",
            "ask": "Which precision claim would change how you store activations?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: RMSNorm has no such kernel.",),
            "say": (
                "Next: does RMSNorm have such a kernel? The answer is no, and the proof is a "
                "witness."
            ),
            "ask": "RMSNorm does not centre: which step of the proof breaks?",
            "min": 0,
        },
    },
}
