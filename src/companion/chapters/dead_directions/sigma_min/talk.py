"""T3 and T4, the residual stream's smallest singular value, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-sigma-min-residual",),
    "steps": ("The toy",),
    "punchline": "shirodkar.sigma_min_residual",
    "exercise": "ex-sigma-skew",
    "slides": {
        "title": {
            "say": (
                "From the norm to the stream it normalises: can a dead direction be born inside "
                "the residual stream?"
            ),
            "ask": (
                "What would a dead direction of the residual stream look like in its singular "
                "values?"
            ),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    r"Stack the token states: a dead direction makes \(\sigma_{\min}\) **fall** "
                    "with depth."
                ),
                ("The paper: the profile is preserved block to block on 13 of 14 models."),
                "Why is that the default, and when does it fail?",
            ),
            "say": (
                "Stack the token states of one layer: a dead direction would make the smallest "
                "singular value fall with depth. The paper finds the profile preserved on 13 of "
                "14 models; the theory says why that is the default."
            ),
            "ask": "What would a block have to do to the stream to shrink σ_min?",
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"T4: if \(\mathrm{sym}(B) \succeq 0\), then \(\sigma_{\min}(I + B) \ge 1\): "
                    "no shrinking."
                ),
                (r"On data: non-cancellation, \(\mathrm{sym}(X^\top F) \succeq 0\), is enough."),
                "A branch that **cancels** the stream can kill the floor.",
                r"T3: every LayerNorm output has \(\sigma_{\min} = 0\) exactly.",
            ),
            "say": (
                "T4: a residual block whose branch does not cancel the stream cannot lower the "
                "floor; the expansion is three terms. Sharpness: two routes that cancel can kill "
                "it. T3: every LayerNorm output has σ_min exactly zero, so read the profile "
                "before the norm. The Lean corollaries are the framework paper's; the data-matrix"
                " form is ours."
            ),
            "ask": "Why must the profile be read on pre-norm states?",
            "min": 1,
        },
        "The toy": {
            "bullets": (
                (r"Random PSD plus skew branches, minus \(c\) along one direction \(u\)."),
                r"At \(c = 0\) the hypothesis holds **by construction**.",
                "So the toy checks the corollary, not whether real networks obey it.",
            ),
            "say": (
                "The toy satisfies the hypothesis by construction at c = 0, so the check verifies"
                " the corollary; it does not test real networks. That test is in the at-scale "
                "chapter, where two trained RMSNorm checkpoints break it."
            ),
            "ask": ("If the toy is built to satisfy the hypothesis, what does its check prove?"),
            "min": 1,
        },
        "figure": {
            "bullets": (r"Move the depth and the cancellation strength \(c\).",),
            "say": (
                "At c = 0 the profile never falls. Raise the cancellation c: the profile drops "
                "under its ceiling. The right panel: every LayerNorm output sits at the float64 "
                "floor, whatever the state before it."
            ),
            "ask": "How large a c does it take before the floor goes?",
            "min": 1.5,
        },
        "number": {
            "bullets": ("The toy's profile: smallest ratio over the blocks, measured now.",),
            "say": (
                "The toy's smallest block-to-block ratio, measured now: [[ours]]. Status: "
                "[[status]]."
            ),
            "ask": "Would a ratio slightly above one at every block be a surprise?",
            "min": 0.5,
        },
        "exercise": {
            "say": "One minute, alone: a skew-symmetric branch. The expansion gives it away.",
            "ask": "What is vᵀBv for a skew-symmetric B?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "The middle term vanishes, so the floor can only rise; a rotation-like branch "
                "pushes states outward. Non-cancellation is a weak requirement."
            ),
            "ask": "Why would trained branches ever cancel the stream?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    r"\(\sigma_{\min}\) of \(N \times d\) grows like \(\sqrt N\): why does the "
                    "ratio not care?"
                ),
                r"Attention-sink tokens: do they raise or lower \(\sigma_{\min}\)?",
                "What branch could cancel the stream, and how would you find it?",
            ),
            "say": "For the ledger discussion: the third question leads to Gemma 4-31B.",
            "ask": "How would you locate a cancelling block from the profile alone?",
            "min": 0,
        },
        "claims": {
            "say": (
                "Three claims: the operator form, the data form and the post-LN zero. [[tally]]."
            ),
            "ask": "Which of these is checked on real models, and where?",
            "min": 0,
        },
        "next": {
            "bullets": (r"Next: how large \(|\cos|\) gets by chance, and the classifier.",),
            "say": "The seminar skips the Schur ratio (reading) and goes to the classifier.",
            "ask": "How large can |cos| get between two random directions in 768 dimensions?",
            "min": 0,
        },
    },
}
