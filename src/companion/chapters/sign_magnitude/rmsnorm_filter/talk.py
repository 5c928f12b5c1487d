"""The RMSNorm filter as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-rmsnorm-filter",),
    "punchline": "dong.rmsnorm_jacobian",
    "exercise": "ex-rmsnorm-second-order",
    "slides": {
        "title": {
            "say": (
                "A short, geometric chapter: the lens every later result of Part I looks through."
                " Draw a circle on the board before you start."
            ),
            "ask": "What does a normalisation layer forget about its input?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    r"RMSNorm forgets length: \(\mathrm{RMSNorm}(cu) = \mathrm{RMSNorm}(u)\) for "
                    r"\(c > 0\)."
                ),
                r"A perturbation that only stretches \(u\) does nothing downstream.",
                "What gets through is the **transverse** part: the lens of Part I.",
            ),
            "say": (
                "RMSNorm divides by the length of its input, so stretching the input changes "
                "nothing. To first order only the sideways part of a perturbation gets through."
            ),
            "ask": "If you double every activation before RMSNorm, what changes after it?",
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"The derivative is a projector: it kills \(\hat u\), keeps everything "
                    "orthogonal to it."
                ),
                (
                    r"Output energy = \(d/\|u\|^2\) × the transverse energy \(T = (1 - "
                    r"R)\|\Delta\|^2\)."
                ),
                (
                    r"\(R\): the radial fraction, \(\cos^2\) of the angle between \(\Delta\) and "
                    r"\(u\)."
                ),
                (r"Two perturbations of the same \(u\): the factor cancels in their ratio."),
            ),
            "say": (
                "Differentiate u over its rms: the quotient rule gives a projector that removes "
                "the radial direction, times the square root of d over the length. This is our "
                "reconstruction, standard calculus, after the abstract's phrase."
            ),
            "ask": ("What is the radial fraction of a perturbation that is exactly parallel to u?"),
            "min": 1,
        },
        "figure": {
            "bullets": (r"Turn the perturbation around \(u\), then change its size.",),
            "say": (
                "Turn the angle to zero: the perturbation is radial and the output does not move."
                " Turn it to ninety degrees: everything gets through. Then make the perturbation "
                "large and watch exact and first order part ways."
            ),
            "ask": "Why do exact and first order disagree once the perturbation is large?",
            "min": 1.5,
        },
        "number": {
            "bullets": (
                ("Largest gap between the formula and central finite differences, random gain."),
            ),
            "say": (
                "We check the Jacobian formula against finite differences at d = 64 with a random"
                " gain: [[ours]]. Status: [[status]]."
            ),
            "ask": "What would a wrong sign in the projector do to this check?",
            "min": 0.5,
        },
        "exercise": {
            "say": (
                "One minute, everyone alone: a purely radial perturbation, exactly. There is a "
                "trap for t below −1."
            ),
            "ask": "What happens when the perturbation reverses the vector?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "Above −1 the change is exactly zero at every order; below −1 the output flips "
                "sign, a change of −2 times the output."
            ),
            "ask": "Is the first-order picture wrong there, or just silent?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    r"The factor \(\sqrt d/\|u\|\) cancels when two perturbations share \(u\): "
                    "when would it not?"
                ),
                ("A learned, non-uniform gain: does it change which direction is killed?"),
            ),
            "say": "Leave these for the ledger discussion at the end of the session.",
            "ask": "When would the factor d over the squared length not cancel?",
            "min": 0,
        },
        "claims": {
            "say": "One claim, re-derived here and checked with a random gain: [[tally]].",
            "ask": "Why is a supporting result worth a claim of its own?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: equal energy, different directions (Proposition 1).",),
            "say": (
                "Next: two kinds of perturbation with equal energy, and the radial fraction that "
                "tells them apart."
            ),
            "ask": (
                "Which would you guess points more sideways, a sign flip or a magnitude change?"
            ),
            "min": 0,
        },
    },
}
