"""Dong's experiments at scale, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("def-sign-flip-leverage",),
    "steps": ("Three traps",),
    "punchline": "dong.real.cos2_table1",
    "exercise": "ex-at-scale-count-matched",
    "slides": {
        "title": {
            "say": (
                "A short slot in the seminar: the theory met a real model. Every number here "
                "comes from the results files shipped with the book; nothing runs in the room."
            ),
            "ask": "Which of Part I's constants do you expect to survive training?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                ("Part I's theory lives in one Gaussian ReLU block. Does a trained model agree?"),
                (
                    "Five experiments: Table 1, outlier flips, count-matched leverage, "
                    "amplitudes, whole columns."
                ),
                ("Here: SmolLM2-135M on CPU. On a GPU: TinyLlama-1.1B, the paper's protocol."),
            ),
            "say": (
                "The paper tests its toy block on TinyLlama in five experiments. We re-ran all "
                "five with the same code: on a small model on two CPU cores here, and with the "
                "paper's protocol on a GPU."
            ),
            "ask": ("What would you want to see before believing a toy model about a real one?"),
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                ("A sign flip of a set of entries, and the magnitude change of the same norm."),
                r"Outlier columns: the top 5% of input dimensions by mean \(|x_j|\).",
                (r"Amplitude \(\alpha_j^2\): column \(j\)'s share of the input energy."),
                "Leverage: ΔNLL of outlier flips over ΔNLL of the others, same count.",
            ),
            "say": (
                "A definition, not a theorem: what a flip, a pool, an amplitude and a leverage "
                "mean in the experiments. The definitions are read from the author's code; the "
                "disjoint calibration and per-matrix seeding are ours."
            ),
            "ask": (
                "Why count-match the flips instead of flipping the same fraction in each pool?"
            ),
            "min": 0,
        },
        "Three traps": {
            "bullets": (
                ('Exp D rescales the outlier "flips": the entries become far from a flip.'),
                "Outlier columns calibrated on the evaluation text itself.",
                "One seed per layer: layers of the same shape share a mask.",
            ),
            "say": (
                "Skip in the seminar. If asked: the author's Exp D rescales flips so they are not"
                " flips, calibrates on the evaluation text, and reuses one mask for layers of the"
                " same shape. We run both variants where it matters."
            ),
            "ask": "Which of the three would change a headline number the most?",
            "min": 0,
        },
        "figure": {
            "bullets": (r"Move the flip fraction \(p\); switch between NLL and perplexity.",),
            "say": (
                "Move the flip fraction: at small p the leverage sits near its linear-response "
                "prediction; at 5% it runs away. Switch to perplexity to see the metric's "
                "nonlinearity. Drawn from the results files: no model runs."
            ),
            "ask": "Why does perplexity exaggerate the leverage at large p?",
            "min": 1,
        },
        "number": {
            "bullets": (
                (
                    r"Table 1: \(\cos^2(w, \mathrm{sign}\,w)\) on trained weights, read from the "
                    "shipped results."
                ),
            ),
            "say": (
                "Table 1 on the model we can run here: [[ours]], against the paper's [[paper]]. "
                "Status: [[status]]. Compare both with the Gaussian 2/π: heavier tails pull "
                "trained rows below it."
            ),
            "ask": ("Is a few percent below 2/π a confirmation of Fact 1 or a deviation from it?"),
            "min": 1,
        },
        "exercise": {
            "say": "Homework: it connects the leverage law to the abstract's bound of 19.",
            "ask": (
                "What share of the input energy must the outlier columns hold for the ratio to "
                "reach 19?"
            ),
            "min": 0,
        },
        "solution": {
            "say": (
                "Pool averages of α² give the ratio F/(1−F) times (1−f)/f; at f = 5% it is at "
                "most 19 exactly when the outliers hold at most half of the energy."
            ),
            "ask": "Is 'at most half the energy' plausible for a trained model's outliers?",
            "min": 0,
        },
        "discuss": {
            "bullets": (
                (
                    "On SmolLM2 the magnitude change costs far more than Theorem 3's toy says: "
                    "what in a transformer does that?"
                ),
                (
                    "Calibrating on the evaluation text or on disjoint text: how much does it "
                    "move Exp D?"
                ),
            ),
            "say": (
                "For the ledger discussion: the first question is the open one of this chapter."
            ),
            "ask": "What in a real transformer makes a sign-preserving change so costly?",
            "min": 0,
        },
        "claims": {
            "say": (
                "Many claims, each with its model and scale: [[tally]]. Not run means it needs "
                "the paper's model on a GPU."
            ),
            "ask": "Which of these would you re-run first on a GPU, and why?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: Part II, the LayerNorm kernel.",),
            "say": "That closes Part I. Next: Part II, the dead direction of LayerNorm.",
            "ask": "What does a LayerNorm throw away that an RMSNorm keeps?",
            "min": 0,
        },
    },
}
