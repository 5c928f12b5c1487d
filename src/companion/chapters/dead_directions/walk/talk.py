"""Walking the flat curve, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-walk-flat",),
    "punchline": "shirodkar.walk_flat",
    "exercise": "ex-walk-beta",
    "slides": {
        "title": {
            "say": (
                "The seminar sets this chapter as reading; this is its talk on its own, for a "
                "group that has seen the K-FAC lift."
            ),
            "ask": (
                "What would it take to show that a direction in parameter space is truly flat?"
            ),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                ("The K-FAC lift gave a curve in parameter space with **no** change in any logit."),
                "Walk it on a trained model: Whisper-base's decoder, held-out speech.",
                "Control: SmolLM2 (RMSNorm), where the same direction should be live.",
            ),
            "say": (
                "The K-FAC lift gave a curve along which a softmax head's predictions do not "
                "change. Here we walk it on a trained Whisper decoder, and we compare with an "
                "RMSNorm model, where there should be no such curve."
            ),
            "ask": (
                "Over how many orders of magnitude of a step would you need flatness to believe it?"
            ),
            "min": 1,
        },
        "statement": {
            "bullets": (
                (
                    r"(a) \(W_t = W + t\,(Ww)\,v^{*\top}\) with \(\beta\) compensated: every logit"
                    " unchanged."
                ),
                r"Without the compensation every logit moves by \(t\,c\,Ww\).",
                (r"(b) The Fisher's log–log slope along a curve gives its KL order \(k\)."),
                ("(c, d) A LayerNorm resets a decay; near a dead direction: slopes 0, 2, 4."),
            ),
            "say": (
                "Part (a), the flat curve, is our derivation: move the head along (Ww)v*ᵀ and "
                "compensate β, and every logit is unchanged. Parts (b) to (d) are the framework "
                "paper's Lean results: Fisher decay gives the KL order, a LayerNorm resets a "
                "decay, and near a dead direction the Fisher has three regimes."
            ),
            "ask": "Why does the curve need β to move with W?",
            "min": 2,
        },
        "figure": {
            "bullets": (r"Move the step \(t\) and the direction.",),
            "say": (
                "Move t across six orders of magnitude: the compensated curve stays on the "
                "float64 floor while a random direction and the uncompensated curve move the "
                "loss. Switch to SmolLM2's γ⁻¹ direction: it is live."
            ),
            "ask": (
                "Why does the uncompensated curve move the loss by a shift that is the same for "
                "every input?"
            ),
            "min": 2,
        },
        "number": {
            "bullets": (
                (
                    r"Largest \(|\Delta\mathrm{NLL}|\) along the flat curve, every step \(t\), "
                    "Whisper-base."
                ),
            ),
            "say": (
                "The held-out NLL change along the flat curve, measured now on Whisper-base: "
                "[[ours]]. Status: [[status]]. The RMSNorm control: "
                "[[status:shirodkar.walk_rms_live]]."
            ),
            "ask": "What is the smallest change in NLL that float64 can show here?",
            "min": 1,
        },
        "exercise": {
            "say": (
                "Pairs, on paper: fix β and walk W alone. The answer explains the live directions"
                " of the figure."
            ),
            "ask": "What is the inner product of v* with every LayerNorm output?",
            "min": 1.5,
        },
        "solution": {
            "say": (
                "The reading along v* is the constant c, so every logit moves by t c Ww, the same"
                " for every input; its Fisher is c² times the expected softmax variance of Ww."
            ),
            "ask": "Why is that Fisher zero when c is zero?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (r"LoRA freezes the norms: is \(u\,v^{*\top}\) still flat, and how far from it?"),
                (
                    "K-FAC uncentred is exact here, centred says dead: which do importance scores"
                    " use?"
                ),
                ("Flat means unidentifiable, not singular: how does that differ from order 2?"),
            ),
            "say": "Take the first question: it is the practical one.",
            "ask": "With the norms frozen, as LoRA often does, is the direction still flat?",
            "min": 1,
        },
        "claims": {
            "say": (
                "The flat curve, the RMSNorm control, the K-FAC gap, the KL order and the three "
                "framework results: [[tally]]."
            ),
            "ask": "Which of these would you want to see on a larger model?",
            "min": 0.5,
        },
        "next": {
            "bullets": (r"Next: \(\sigma_{\min}\) of the residual stream.",),
            "say": ("Back on the seminar's path: the residual stream's smallest singular value."),
            "ask": "Can a residual block make the stream lose a direction?",
            "min": 0,
        },
    },
}
