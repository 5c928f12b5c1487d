"""T6, the null and the classifier, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-classifier",),
    "punchline": "shirodkar.null_cos",
    "exercise": "ex-null-mean",
    "slides": {
        "title": {
            "say": (
                "The payoff of Part II's theory: read a model's normalisation from its parameters"
                " and one forward pass. Two questions make it usable."
            ),
            "ask": ("Given only a checkpoint, how would you tell LayerNorm from RMSNorm today?"),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                "The kernel's presence **classifies** the norm: LayerNorm or RMSNorm.",
                r"How large is \(|\cos|\) by pure chance? The exact null.",
                (
                    r"\(|\cos|\) fails both ways (bf16, heterogeneous \(\gamma\)): test "
                    "**exactness** instead."
                ),
            ),
            "say": (
                "How large can |cos| with the kernel be by chance? That is the null, which is "
                "exact. And what should the decision look at, given that bf16 can push a "
                "LayerNorm's |cos| down and a heterogeneous γ can push an RMSNorm's up? The "
                "paper's rule is not available; ours tests exactness against the rounding floor."
            ),
            "ask": "Which of the two failures of |cos| from the last talks worries you more?",
            "min": 1,
        },
        "statement": {
            "bullets": (
                (
                    r"(a) Random \(u\): \(\cos^2(u, v) \sim \mathrm{Beta}(\tfrac12, "
                    r"\tfrac{d-1}{2})\)."
                ),
                (r"So \(\mathbb E|\cos| \approx \sqrt{2/(\pi d)}\): small at LLM widths."),
                (
                    r"(b) \(\rho = v^{*\top} C v^* / \sum_i v_i^{*2} C_{ii}\), tested against the "
                    "rounding floor."
                ),
            ),
            "say": (
                "Part (a) is exact: squared cosine of a random direction is a Beta, its mean "
                "absolute value about root of 2 over pi d. Part (b) is ours: ρ, the variance "
                "along v* relative to its diagonal share, is compared with the working "
                "precision's rounding floor."
            ),
            "ask": "At d = 768, about how large is |cos| by chance?",
            "min": 1.5,
        },
        "figure": {
            "bullets": ("Move the width; lower the precision of the activations.",),
            "say": (
                "Left: every width looks alike on the root-d scale. Right: lower the precision. "
                "The LayerNorm points rise with the floor, the RMSNorm points do not move, and "
                "the thresholds keep them apart; black would mark a wrong verdict."
            ),
            "ask": "Why do the RMSNorm points not move with precision?",
            "min": 1.5,
        },
        "number": {
            "bullets": (
                (r"How large \(|\cos|\) gets by chance: the 99.9 % quantile at \(d = 768\)."),
            ),
            "say": (
                "The 99.9% quantile of chance |cos| at d = 768, from the exact law: [[ours]], "
                "against the summary's [[paper]]. Status: [[status]]; the paper states no level. "
                "Whatever the level, a measured |cos| near 1 is no accident."
            ),
            "ask": "Why does the paper's 'four decimal places' need no significance test?",
            "min": 1,
        },
        "exercise": {
            "say": "One minute in pairs: derive the null's mean without the Beta law.",
            "ask": "What is E|g₁| for a standard normal g₁?",
            "min": 1,
        },
        "solution": {
            "say": (
                "|cos| is |g₁| over the norm of g, about root d, so the mean is root of 2/π over "
                "root d; three percent low at d = 8."
            ),
            "ask": "At which width does the approximation stop being good enough?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (r"The classifier never looks at \(|\cos|\): what role is left for the null?"),
                (r"The float32 floor grows like \(d\,u^2\): where does the test stop working?"),
            ),
            "say": (
                "For the ledger discussion: the second question quantifies the classifier's limit."
            ),
            "ask": "At which width would a float32 LayerNorm look like an RMSNorm?",
            "min": 0,
        },
        "claims": {
            "say": (
                "One claim here; the classifier's verdicts on real models are in the at-scale "
                "chapter. [[tally]]."
            ),
            "ask": "What would a wrong verdict on a real model teach us?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the diagnostic at scale.",),
            "say": "Next: the diagnostic on every architecture, at random init and trained.",
            "ask": "Would you expect trained models to make the kernel deeper or shallower?",
            "min": 0,
        },
    },
}
