"""Fact 1, the Bussgang constant, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-bussgang",),
    "punchline": "dong.fact1",
    "exercise": "ex-bussgang-finite",
    "slides": {
        "title": {
            "say": (
                "Part I starts with one number. Every later result of Dong's paper leans on it, "
                "so we take a few minutes to own it."
            ),
            "ask": (
                "Who has used a ternary or binary quantiser, and what did it keep of a weight?"
            ),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    "Ternary and binary quantisers keep the **sign** of each weight, drop most of"
                    " its **magnitude**."
                ),
                (
                    r"How much of a weight row \(w\) survives? Measure \(\cos^2(w, "
                    r"\mathrm{sign}\,w)\)."
                ),
                "For Gaussian rows it is one constant, and Part I is built on it.",
            ),
            "say": (
                "A sign quantiser keeps every sign and throws the magnitudes away. The cosine "
                "between a row and its sign pattern says how much of the row survives."
            ),
            "ask": ("Guess: for a Gaussian row, is that squared cosine nearer 0.3, 0.6 or 0.9?"),
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                r"Rows with i.i.d. \(\mathcal N(0, \sigma^2)\) entries.",
                (
                    r"\(\cos^2(w, \mathrm{sign}\,w) = (\mathbb E|w|)^2 / \mathbb E[w^2]\) in the "
                    "limit."
                ),
                r"For the Gaussian: \(2/\pi\), with no \(\sigma\) left.",
                r"At width \(n\), exactly \(2/\pi + (1 - 2/\pi)/n\).",
            ),
            "say": (
                "The squared cosine is the squared mean absolute value over the mean square. For "
                "a Gaussian that is 2/π, whatever the scale σ. The author's code states it; the "
                "finite-width formula and the other laws are our re-derivation."
            ),
            "ask": "Why can σ not appear in the answer?",
            "min": 1,
        },
        "figure": {
            "bullets": ("Move the width n, then the weight law (and ν for Student-t).",),
            "say": (
                "Start at small n: the row cosines scatter widely. Slide n up and the scatter "
                "collapses onto the limit. Then switch the distribution to Student-t and lower ν:"
                " the limit itself drops."
            ),
            "ask": ("Which of the laws on the menu would you expect trained weights to follow?"),
            "min": 1.5,
        },
        "number": {
            "bullets": ("The constant, simulated now on Gaussian rows.",),
            "say": (
                "Measured now on Gaussian rows at one width: [[ours]] against the paper's "
                "[[paper]]. Status: [[status]]."
            ),
            "ask": ("How wide must a row be before the 1/n term is below the standard error here?"),
            "min": 1,
        },
        "exercise": {
            "say": (
                "Pairs, two minutes: prove the finite-width formula. The hint does the heavy "
                "lifting: the norm and the direction of a Gaussian vector are independent."
            ),
            "ask": (
                "What is the expected absolute product of two different coordinates of a unit "
                "vector?"
            ),
            "min": 1.5,
        },
        "solution": {
            "say": (
                "Expand the square of the sum of |u_j|: n diagonal terms give 1, the n(n−1) cross"
                " terms give 2/(πn) each. Divide by n."
            ),
            "ask": "Where exactly did Gaussianity enter the proof?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    r"Why does the scale \(\sigma\) drop out, and what does that mean for per-row "
                    "absmean quantisers?"
                ),
                ("Heavy tails or a few outlier weights: which hurts sign quantisation more?"),
            ),
            "say": (
                "Take one answer for each; the heavy-tail question comes back in the at-scale "
                "chapter, where trained rows sit below 2/π."
            ),
            "ask": "Would you rather quantise heavy-tailed rows or rows with a few outliers?",
            "min": 0.5,
        },
        "claims": {
            "say": (
                "One claim in this chapter: [[tally]]. Its trained-weight partner is in the at-"
                "scale chapter."
            ),
            "ask": "What would make this claim deviate on a trained model?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: what RMSNorm keeps of a perturbation.",),
            "say": (
                "Next we see what RMSNorm does with a perturbation, which is where the constant "
                "starts to matter."
            ),
            "ask": "If 2/π of a row survives, where does the rest go?",
            "min": 0,
        },
    },
}
