"""Theorem 4, sign quantisation, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-theorem4",),
    "steps": ("After ReLU",),
    "punchline": "dong.thm4.cos2",
    "exercise": "ex-t4-scale",
    "slides": {
        "title": {
            "say": (
                "Theorem 3 said sign-preserving perturbations are the mild kind. Theorem 4 says "
                "quantisation to signs is one of them."
            ),
            "ask": "Is a 1-bit quantisation error a sign flip or a magnitude change?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                "Quantise each row to its sign times the row's absmean.",
                "The error never changes a sign: is it the mild kind of Theorem 3?",
                "BitNet's ternary quantiser zeroes small weights: does that break it?",
            ),
            "say": (
                "Replace each row by its sign times its mean absolute value. No sign changes, so "
                "by Theorem 3's logic the error should be aligned and partly discarded by the "
                "norm."
            ),
            "ask": ("What would the error's radial fraction have to be for the norm to help us?"),
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                r"The error \(W_T - W\) keeps every sign.",
                r"Row and vector level: \(\cos^2 \to 2/\pi\), Fact 1 again.",
                r"Before ReLU the error's radial fraction is \(1 - 2/\pi\).",
                "After ReLU it barely moves: the abstract's 0.365.",
            ),
            "say": (
                "The abstract states the property and the constants; the quantiser is from the "
                "author's code; the closed form after ReLU and the proofs are ours. The key fact:"
                " the error is orthogonal to the quantised row."
            ),
            "ask": "Where did 2/π come from in Fact 1, and why does it reappear here?",
            "min": 1,
        },
        "After ReLU": {
            "bullets": (
                (
                    "Clean and quantised pre-activations: jointly Gaussian, correlation "
                    r"\(\sqrt{2/\pi}\)."
                ),
                "The arc-cosine kernel gives the three moments in closed form.",
                r"Result: within half a percent of \(1 - 2/\pi\).",
            ),
            "say": (
                "Same arc-cosine kernel as Theorem 3, now at correlation root of 2/π. The ReLU is"
                " almost transparent to the quantisation error."
            ),
            "ask": (
                "Why would a ReLU leave the radial fraction almost unchanged here but not for "
                "sign flips?"
            ),
            "min": 0.5,
        },
        "figure": {
            "bullets": (r"Choose the quantiser and the width \(n\).",),
            "say": (
                "Start with the sign quantiser: the cloud's slope is 2/π. Switch to ternary: the "
                "slope and every constant move. Then widen n and watch the error bars close on "
                "the theorem."
            ),
            "ask": "Why does the ternary quantiser change every constant at once?",
            "min": 1,
        },
        "number": {
            "bullets": (r"Vector-level \(\cos^2\) of the sign quantiser, simulated now.",),
            "say": (
                "The vector-level cos², simulated now for one Gaussian matrix: [[ours]] against "
                "[[paper]]. Status: [[status]]."
            ),
            "ask": "Would you expect the row level or the vector level to converge faster?",
            "min": 0.5,
        },
        "exercise": {
            "say": (
                "One minute: the absmean scale is a least-squares fit. Once they see that, "
                "orthogonality is free."
            ),
            "ask": "What is the first-order condition of minimising the error over s?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "A least-squares residual is orthogonal to the fitted direction: that is the "
                "whole of the orthogonality step."
            ),
            "ask": "Which other quantisers are least-squares fits, and which are not?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    r"Ternary is **closer** to \(W\) but its error is more radial: better or worse"
                    " after the norm?"
                ),
                ("One scale per matrix, as in BitNet: what changes when rows differ in norm?"),
            ),
            "say": (
                "Keep these for the ledger discussion; the first question is a good one for a "
                "group."
            ),
            "ask": (
                "Ternary is closer to W yet its error is more radial: better or worse for a pre-"
                "norm block?"
            ),
            "min": 0,
        },
        "claims": {
            "say": "Three constants, three claims: [[tally]].",
            "ask": "Which constant would a real model move first?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: many layers.",),
            "say": "Next: does the asymmetry compound over many layers?",
            "ask": "If one layer gives 2.75, what would six layers give if it compounded?",
            "min": 0,
        },
    },
}
