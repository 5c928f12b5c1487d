"""Training the book's own model, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-training-kernel",),
    "steps": ("Why (a) cannot fail for a LayerNorm",),
    "punchline": "shirodkar.trained_here_kernel",
    "exercise": "ex-training-band",
    "slides": {
        "title": {
            "say": (
                "The seminar sets this chapter as reading; this is its talk on its own. The "
                "papers' training claims, tested on a model we trained ourselves."
            ),
            "ask": ("What would you like to watch happen to a network's geometry during training?"),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                "Both papers make claims about what **training** does to geometry.",
                "Pythia's and TinyLlama's runs are out of reach; training is not.",
                ("A tiny GPT and its RMSNorm twin, read at ten checkpoints beside the loss."),
            ),
            "say": (
                "Both papers claim things about training: the kernel stays exact and deepens; "
                "trained weights sit in a band below 2/π; flips cost more than magnitude changes."
                " The public checkpoints are out of reach, so we train a four-block GPT and an "
                "RMSNorm twin that differs only in its norms."
            ),
            "ask": "What does a twin that differs only in its norms let us conclude?",
            "min": 1,
        },
        "statement": {
            "bullets": (
                ("(a) The LayerNorm kernel stays exact along training; RMSNorm never has one."),
                r"(b) The covariance along \(v^*\) deepens by about \(10^3\).",
                (r"(c) Trained rows: \(\cos^2(w, \mathrm{sign}\,w)\) in a band below \(2/\pi\)."),
                "(d) Sign flips cost more loss than equal-norm magnitude changes.",
            ),
            "say": (
                "Four statements as the papers make them: (a) and (b) from Shirodkar and "
                "Narayanan's abstract, (c) from Dong's README band, (d) from Dong's abstract. The"
                " model, the data and every number are ours, never Pythia or TinyLlama."
            ),
            "ask": "Which of the four do you expect to depend on the model's size?",
            "min": 1.5,
        },
        "Why (a) cannot fail for a LayerNorm": {
            "bullets": (
                (
                    r"The reading along \(\gamma^{-1}\) is constant for every input and every "
                    r"\(\gamma\)."
                ),
                "Training only moves **where** the kernel points.",
                ("Few distinct inputs (the first block sees ~100 bytes): a larger null space."),
            ),
            "say": (
                "The kernel is algebraic, so 'exact at every checkpoint' checks the measurement, "
                "not training. The one subtlety: a norm that sees fewer distinct inputs than its "
                "width has a larger null space, so v* is one direction among many."
            ),
            "ask": "Then what is the check of (a) along training actually testing?",
            "min": 1,
        },
        "figure": {
            "bullets": ("Move the checkpoint.",),
            "say": (
                "Move the checkpoint from initialisation to the end: the LayerNorm twin's ρ stays"
                " at the floor, the RMSNorm twin's does not; on the right the Linear layers leave"
                " 2/π and drift into Dong's band."
            ),
            "ask": "At which checkpoint do the weights enter the band?",
            "min": 1.5,
        },
        "number": {
            "bullets": (
                (
                    r"Smallest \(|\cos(v^*, \text{bottom direction})|\) of the final norm, every "
                    "checkpoint."
                ),
            ),
            "say": (
                "The kernel of the final LayerNorm at every checkpoint, from our training "
                "records: [[ours]]. The Pythia statement: [[paper]]. Status: [[status]]."
            ),
            "ask": "Why is this claim almost guaranteed, and what would make it fail anyway?",
            "min": 1,
        },
        "exercise": {
            "say": "Homework with the records: when does the LayerNorm twin enter the band?",
            "ask": "Which Linear layer would you guess moves furthest from 2/π?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "The solution reads the records on the chapter page; look at which layer ends "
                "lowest and compare with Dong's band."
            ),
            "ask": "Does the furthest layer tell you anything about what training needed?",
            "min": 0,
        },
        "discuss": {
            "bullets": (
                ("Exact at every checkpoint checks the measurement: what would make it drift?"),
                '"Deeper" for a quantity that is zero up to rounding at both ends?',
                ("1000× smaller than Pythia-1B: which readings would change with scale?"),
            ),
            "say": "Take the third question: it is the honest limit of the chapter.",
            "ask": ("Which of these readings would change with a model a thousand times larger?"),
            "min": 1,
        },
        "claims": {
            "say": "Both papers' claims on our twins: [[tally]].",
            "ask": "Which claim would you re-run on a larger model first?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the claims ledger of both papers.",),
            "say": (
                "The end of the chapters: the claims ledger collects every claim of both papers."
            ),
            "ask": "What fraction of the claims do you expect reproduced?",
            "min": 0,
        },
    },
}
