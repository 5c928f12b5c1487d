"""The dead-direction diagnostic at scale, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-dd-at-scale",),
    "punchline": "shirodkar.init_alignment_ln",
    "exercise": "ex-scale-tiny-gamma",
    "slides": {
        "title": {
            "say": (
                "A short slot in the seminar: the diagnostic on real checkpoints. Every number is"
                " read from the results files shipped with the book; no model runs in the room."
            ),
            "ask": "Which real models do you expect to show the kernel?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (r"Read \(v^\star\) from the final norm's \(\gamma\); run **one** forward pass."),
                ("Compare with the measured bottom direction of the outputs' covariance."),
                ("Every architecture at random init, and the trained checkpoints we have offline."),
            ),
            "say": (
                "Read v* from the final norm's parameters, run one forward pass, and compare with"
                " the measured bottom direction. We ran it on every registered architecture at "
                "random initialisation, and on the trained checkpoints available offline, "
                "including two speech models fed synthesised speech."
            ),
            "ask": "Why is 'one forward pass' the selling point of this diagnostic?",
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"LayerNorm: the bottom direction **is** \(v^\star\), at init and after "
                    "training."
                ),
                "RMSNorm: no parameter-determined kernel.",
                (r"So exactness classifies the norm; \(\sigma_{\min}\) is read before the norm."),
            ),
            "say": (
                "Three claims from the abstract: LayerNorm has the kernel, RMSNorm does not, and "
                "so the kernel classifies; plus the σ_min floor on the pre-norm stream. The "
                "threshold and the null-space alignment are ours."
            ),
            "ask": "What would count as 'the kernel is present' on a float32 forward pass?",
            "min": 0.5,
        },
        "figure": {
            "bullets": (
                (
                    r"Pick a model: its spectrum's bottom, and its pre-norm \(\sigma_{\min}\) "
                    "profile."
                ),
            ),
            "say": (
                "Pick a LayerNorm model: the variance along v* sits far below the bulk, trained "
                "and at init. Pick an RMSNorm model: no such gap. Then look at the σ_min profile "
                "on the right. Drawn from the results files: moving the control runs no model."
            ),
            "ask": "Which model's profile would you ask the authors about?",
            "min": 1.5,
        },
        "number": {
            "bullets": (
                (
                    r"LayerNorm architectures whose bottom direction is \(v^\star\) at init, from "
                    "the shipped records."
                ),
            ),
            "say": (
                "Alignment at random init across every LayerNorm architecture, from the shipped "
                "records: [[ours]], against the abstract's [[paper]]. Status: [[status]]."
            ),
            "ask": ("Is a result at random initialisation interesting, or only the trained one?"),
            "min": 1,
        },
        "exercise": {
            "say": (
                "Homework: a tiny γ entry makes the bottom eigenvector a poor read; the null-"
                "space alignment is the fix."
            ),
            "ask": "What does the covariance do along a coordinate whose γ is 1e-9?",
            "min": 0,
        },
        "solution": {
            "say": (
                "Such coordinates are numerically dead too, so the null space has several "
                "dimensions and the single eigenvector is arbitrary within it; ask whether v* "
                "lies in the null space instead."
            ),
            "ask": "How many tiny-γ coordinates does it take to break |cos|?",
            "min": 0,
        },
        "discuss": {
            "bullets": (
                '"Parameters plus one forward pass": what here needed more?',
                (r"A trained \(\gamma_i \approx 0\): a dead direction? Should LoRA avoid it?"),
                "Post-LN encoders: where else to measure non-cancellation in BERT?",
            ),
            "say": (
                "For the ledger discussion: the first question checks the 'one forward pass' claim."
            ),
            "ask": "Which parts of this chapter needed more than one forward pass, and why?",
            "min": 0,
        },
        "claims": {
            "say": (
                "Many claims, each naming its models: [[tally]]. The ones not run need the "
                "paper's checkpoints on a GPU."
            ),
            "ask": "Which deviation here would you investigate first?",
            "min": 0,
        },
        "next": {
            "bullets": ("Next: the book's own training run.",),
            "say": (
                "Next, set as reading: a tiny GPT and its RMSNorm twin trained in the book, both "
                "papers' geometry at every checkpoint."
            ),
            "ask": "What would you measure during training if you had both twins?",
            "min": 0,
        },
    },
}
