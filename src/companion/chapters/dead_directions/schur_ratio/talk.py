"""The Schur ratio (our reconstruction), as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("def-schur-ratio",),
    "steps": ("The caveat",),
    "punchline": "shirodkar.schur_baseline",
    "exercise": "ex-schur-coord",
    "slides": {
        "title": {
            "say": (
                "Say it first: the paper's formula is not available to us. This talk is about our"
                " own reading of the Schur ratio, better discussed than presented; the seminar "
                "sets it as reading, so this is a talk on its own."
            ),
            "ask": "How should a talk present a number whose definition it had to guess?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    r"The paper: a **Schur ratio** \(\Delta\gamma\) says how much deeper a dead "
                    "direction gets."
                ),
                "Its formula is **not available** to us.",
                ("So: our reading, its exact random-matrix baseline, and where it fails."),
            ),
            "say": (
                "The paper measures how much deeper a dead direction gets with training by a "
                "Schur ratio and random-matrix theory. Secondary summaries give 0–0.3 at "
                "initialisation and near 1 trained. We define one natural reading and derive its "
                "exact baseline."
            ),
            "ask": "What does 'deeper' mean for a direction that is already exactly dead?",
            "min": 1,
        },
        "statement": {
            "bullets": (
                (
                    r"\(R(h) = 1/(\Sigma_{hh}\,(\Sigma^{-1})_{hh})\): the part of \(h\) the rest "
                    "cannot predict."
                ),
                (r"\(\Delta\gamma = 1 - R(h)\); near 1 means \(h\) is linearly dead."),
                (r"Isotropic Gaussian samples: an exact Beta law, mean \(\approx 1 - d/N\)."),
            ),
            "say": (
                "R(h) is the fraction of the variance along h that the other directions cannot "
                "predict linearly; one minus it is the gain. For isotropic Gaussian samples its "
                "law is exact, a Beta, with mean about one minus d over N. The definition is "
                "ours, built on the Schur-complement bound of the Lean proofs."
            ),
            "ask": "Why would random data already give a gain of about d/N?",
            "min": 1.5,
        },
        "The caveat": {
            "bullets": (
                (r"Post-LayerNorm: \(\Sigma_{hh} = 0\) along \(v^*\), so \(R(v^*)\) is 0/0."),
                r"Read it before the final norm, or after removing \(v^*\).",
                "Only the paper's text can settle which.",
            ),
            "say": (
                "On a post-LayerNorm covariance the kernel direction has zero variance, so the "
                "ratio is zero over zero; the library refuses it. The ratio must be read on a "
                "tensor without the exact kernel, and only the paper can say which."
            ),
            "ask": (
                "On which tensor would you compute it: before the norm, or after deflating v*?"
            ),
            "min": 1.5,
        },
        "figure": {
            "bullets": (r"Move the sample ratio \(N/d\) and the width \(d\).",),
            "say": (
                "Move N/d from small to large: the histogram follows the exact Beta law and the "
                "mean follows one minus d/N. At small N/d even random data looks 'deep'."
            ),
            "ask": "What N/d would you need before a gain of 0.3 means anything?",
            "min": 1.5,
        },
        "number": {
            "bullets": ("Our ratio's random-matrix baseline, simulated now.",),
            "say": (
                "Our baseline, simulated now: [[ours]], against the exact mean. The paper's "
                "summary: [[paper]]. Status: [[status]]."
            ),
            "ask": "Is agreement with our own baseline evidence about the paper's ratio?",
            "min": 1,
        },
        "exercise": {
            "say": (
                "A statistics question the whole room can answer: correlated ratios within a trial."
            ),
            "ask": "Why not treat all d × trials ratios as independent?",
            "min": 1,
        },
        "solution": {
            "say": (
                "The d ratios of one sample share one covariance and move together; trial means "
                "are independent, so their standard error is honest."
            ),
            "ask": "By how much would the naive standard error be too small?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    'Linear predictability: the right notion of "deeper" for an exactly dead '
                    "direction?"
                ),
                (
                    '"Deepens by ~10³" cannot hold for the exact post-LN covariance: which tensor'
                    " then?"
                ),
                "How would you test our reading once the paper is available?",
            ),
            "say": "This is the heart of the talk: it is a discussion, not a result.",
            "ask": "Once the paper is available, how would you test our reading against it?",
            "min": 1,
        },
        "claims": {
            "say": "One claim, about our reconstruction only: [[tally]].",
            "ask": "Should a ledger list a claim about a reconstruction at all?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the null distribution and the classifier.",),
            "say": (
                "Next: how large |cos| gets by chance, and the classifier built on the kernel."
            ),
            "ask": "How would you tell a kernel from a coincidence?",
            "min": 0,
        },
    },
}
