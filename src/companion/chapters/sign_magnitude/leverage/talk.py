"""Outlier leverage, R ≈ nα², as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-leverage",),
    "punchline": "dong.leverage.post_relu",
    "exercise": "ex-lev-expand",
    "slides": {
        "title": {
            "say": (
                "Depth did not explain the real-model gap. This is the explanation the paper "
                "offers instead, and the one that fits."
            ),
            "ask": "What is special about the inputs of a trained language model?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    r"Theorem 3 assumed **delocalised** inputs: every coordinate about \(1/\sqrt "
                    r"n\)."
                ),
                ("Real activations have a few **outlier** dimensions with most of the energy."),
                "A sign flip on a weight that multiplies one of them is a lever.",
            ),
            "say": (
                "Theorem 3 assumed every input coordinate is about one over root n. Language "
                "models have a few feature dimensions that carry much of the energy; a weight on "
                "such a coordinate is a lever."
            ),
            "ask": (
                "If one coordinate carries a quarter of the input's length, how much more does a "
                "flip on its weight cost?"
            ),
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"One flip on an entry of amplitude \(\alpha\): energy × \(n\alpha^2\) before "
                    "ReLU, exactly."
                ),
                r"After ReLU, the author: \(n\alpha^2(1 - 4\alpha/(3\pi))\).",
                (r"Exactly, the arc-cosine kernel again, with \(p\) replaced by \(\alpha^2\)."),
            ),
            "say": (
                "Before the ReLU it is exact: the flip injects n α² times the energy of a "
                "delocalised flip. After the ReLU the author's formula loses a little; our exact "
                "kernel form sits a touch above it. R ≈ nα² is the abstract's; the exact form is "
                "ours."
            ),
            "ask": "At α = 1/√n, what should R be, and does the formula give it?",
            "min": 1,
        },
        "figure": {
            "bullets": (r"Move the amplitude \(\alpha\) and the width \(n\).",),
            "say": (
                "Move α from the median outlier, where R is about one, to the largest, where it "
                "is above a hundred. The right panel divides by nα² and shows what the ReLU takes"
                " away; the simulation sits on the exact kernel."
            ),
            "ask": "Which α on this axis would you protect in a quantiser?",
            "min": 1.5,
        },
        "number": {
            "bullets": ("Single-flip leverage after ReLU at the abstract's largest amplitude.",),
            "say": (
                "Simulated now at α = 0.26, n = 2048: [[ours]]. The exact kernel is the "
                "reference; the author's formula is [[paper:dong.leverage.formula]]. Status: "
                "[[status]]."
            ),
            "ask": "Why does the exact value sit slightly above the author's formula?",
            "min": 0.5,
        },
        "exercise": {
            "say": (
                "The same expansion as Theorem 3's exercise: if they did that one, this takes "
                "thirty seconds. Otherwise set it as homework."
            ),
            "ask": "What replaces p in the expansion?",
            "min": 0.5,
        },
        "solution": {
            "say": "Expand to third order, put θ = 2α, divide by the delocalised 2/n.",
            "ask": "Where does the delocalised flip's own ReLU loss hide in this formula?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    "The law is linear response: about 10× at small flip rates, 41× at 5%. Which "
                    "assumption fails?"
                ),
                (
                    r"A median outlier gives \(R \approx 1\), the pool about 10: which statistic "
                    r"of \(\alpha\) matters?"
                ),
            ),
            "say": (
                "For the ledger discussion: the first question is the honest limit of the law."
            ),
            "ask": "Which assumption of the derivation fails first when flips are many?",
            "min": 0,
        },
        "claims": {
            "say": (
                "Three claims: exact before ReLU, after ReLU, and the author's formula. [[tally]]."
            ),
            "ask": "Which of the three is a theorem and which a measurement?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the experiments at scale.",),
            "say": (
                "Next: the same questions on a real model, SmolLM2 here and TinyLlama on a GPU."
            ),
            "ask": "What would you measure on a real model to test the leverage law?",
            "min": 0,
        },
    },
}
