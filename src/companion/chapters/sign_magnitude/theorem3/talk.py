"""Theorem 3, the sign–magnitude asymmetry, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-theorem3",),
    "steps": ("Arc-cosine kernel", "The trap: measuring after the norm"),
    "punchline": "dong.thm3.small_p",
    "exercise": "ex-t3-expand",
    "slides": {
        "title": {
            "say": "Dong's main result: after a ReLU, a second layer and RMSNorm, flipping "
            "weight signs costs about 2.75 times more than changing magnitudes by the same "
            "amount. Today we derive the constant and check it ourselves.",
            "ask": "Hands up: who would guess that a sign flip and a magnitude change of the "
            "same Frobenius norm do equal damage?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                "Same energy in, different damage out: Proposition 1 said the two "
                "perturbations inject **equal** energy.",
                r"The model: \(\hat x \to W_1 \to \mathrm{ReLU} \to W_2 \to "
                r"\mathrm{RMSNorm}\); perturb only \(W_1\).",
                "RMSNorm throws the radial part away: what survives is the **transverse** energy.",
                "So the question is geometric: which perturbation points sideways?",
            ),
            "say": "Recall the filter chapter: the norm keeps only what is orthogonal to the "
            "signal. A magnitude change keeps every sign, so it mostly rescales the signal and "
            "the norm undoes it. A sign flip points somewhere new.",
            "ask": "Before any algebra: which of the two do you expect to be mostly radial, and "
            "why?",
            "min": 1,
        },
        "statement": {
            "bullets": (
                r"Flip signs at rate \(p\), or add \(\delta\,\mathrm{sign}(W_1)\) of the same "
                "Frobenius norm.",
                r"\(C(p)\) = transverse energy of the flips over that of the magnitude "
                "change, before the norm.",
                r"At infinite width, \(C(p) \to \pi/(\pi-2) = 1/(1-2/\pi)\) as \(p \to 0\).",
                r"At finite \(p\) the author gives a closed form \(c(p)\), a little below.",
            ),
            "say": "The constant is one over one minus two over pi: everything the norm does "
            "not discard. The limit is in the abstract; the model and the finite-p formula are "
            "from the author's code; the derivation is ours.",
            "ask": "Where have we met 2/π before, and what did it measure there?",
            "min": 1.5,
        },
        "Arc-cosine kernel": {
            "bullets": (
                "Each hidden unit sees a Gaussian pair: clean and perturbed pre-activation.",
                r"Through a ReLU their product has a closed form, the arc-cosine kernel "
                r"\(k(\rho)\).",
                r"Sign flips: correlation \(1-2p\), radial fraction \(\approx p\).",
                r"Magnitude change: aligned by Bussgang, radial fraction \(2/\pi\).",
            ),
            "say": "One line from Price's theorem gives the kernel. Plug in the two "
            "correlations: the sign branch is almost all transverse, the magnitude branch loses "
            "two thirds of itself to the radial direction. Their ratio is the constant.",
            "ask": "Why does the ReLU, and not the linear layer, create the difference?",
            "min": 1.5,
        },
        "The trap: measuring after the norm": {
            "bullets": (
                "The magnitude change also **lengthens** the hidden vector; flips do not.",
                "A finite difference taken after RMSNorm divides the magnitude branch by that "
                "length.",
                r"That inflates \(C\) by \(1 + 4\sqrt{2p/\pi} + 4p\): at \(p = 0.01\), "
                "[[ours:dong.thm3.post_norm_trap]].",
                "Theorem 3 is about the first-order, pre-norm energy.",
            ),
            "say": "This is the number the author's own V0 and V2 controls print. It looks "
            "like the theory explains more than it does; it is an artefact of where you "
            "measure.",
            "ask": "If a paper reports 3.6 here, what would you ask the authors to check first?",
            "min": 1.5,
        },
        "figure": {
            "bullets": (
                "Left: limit, the author's formula, the exact kernel, our simulation ± 2 SE.",
                "Right: the same ratio measured after the norm.",
            ),
            "say": "Move p to the smallest value, then up to 0.1: the simulation follows the "
            "exact kernel, not the author's formula. Then widen n and watch the error bars "
            "shrink onto the kernel curve.",
            "ask": "At which flip rate does the author's formula visibly leave the simulation?",
            "min": 2,
        },
        "number": {
            "bullets": (
                "A fresh simulation at \\(p = 0.005\\), extrapolated to infinite width.",
                "Compared with the exact kernel at the same \\(p\\), not with the limit "
                "[[paper:dong.thm3.limit]].",
            ),
            "say": "Three widths, fitted C(n) = C∞ + b/n, extrapolated: [[ours]]. Against the "
            "exact kernel at p = 0.005: [[status]]. The limit itself is reached only as p "
            "goes to zero, so no simulation can test it directly.",
            "ask": "Why extrapolate in width rather than just run one very wide model?",
            "min": 1,
        },
        "exercise": {
            "say": "Give the room three minutes in pairs: expand the kernel to third order in "
            "theta. Hint if stuck: write rho as cos theta first.",
            "ask": "Which term gives the 4p^(3/2)/(3π) correction?",
            "min": 2,
        },
        "solution": {
            "say": "Walk through it: sin theta plus (pi minus theta) cos theta, expand, then "
            "substitute theta squared = 4p.",
            "ask": "What does the p^(3/2) term do to C at p = 0.01: raise it or lower it?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                "Which assumption carries each factor: Gaussian weights, ReLU, delocalised "
                r"inputs, constant \(\delta\)?",
                "Real models show 6–24×, far above 2.75: what else must be going on?",
            ),
            "say": "Collect one answer per question; the outlier chapter answers the second.",
            "ask": "Which assumption would you drop first on a real transformer?",
            "min": 0.5,
        },
        "claims": {
            "say": "Read the status column: [[tally]]. Against the author's own code: "
            "[[status:dong.thm3.author_code]]; the README's Table 2: "
            "[[status:dong.thm3.table2]]. That is the chapter's provenance story.",
            "ask": "Which of these would you have bet against before seeing the status?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the same geometry for quantisation, Theorem 4.",),
            "say": "Close: the constant is exact, the trap is real, and the real-model gap "
            "needs another explanation.",
            "ask": "What would convince you that outliers, not depth, close the gap?",
            "min": 0,
        },
    },
}
