"""T5, the K-FAC lift, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-kfac-lift",),
    "punchline": "shirodkar.kfac_lift",
    "exercise": "ex-kfac-tied",
    "slides": {
        "title": {
            "say": (
                "A talk for a group that knows the Fisher information. The seminar sets this "
                "chapter as reading; this is its talk on its own (the times below add up)."
            ),
            "ask": "Who has used K-FAC, or a Kronecker-factored preconditioner?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (
                    r"The kernel lives in **activations**: \(\langle v^*, y\rangle\) is a "
                    "constant."
                ),
                "The abstract: it induces a dead direction in **parameter** space.",
                ("The bridge: K-FAC, whose spectrum is a product of two factors' spectra."),
                "Does the bridge hold for the true Fisher?",
            ),
            "say": (
                "The LayerNorm kernel is about activations. The abstract says it induces a dead "
                "direction in parameter space. K-FAC is the bridge; the question is whether the "
                "bridge holds for the true Fisher."
            ),
            "ask": (
                "If the next layer's input never moves along v*, which weight changes can the "
                "loss not see?"
            ),
            "min": 1,
        },
        "statement": {
            "bullets": (
                (
                    r"(a) \(A \otimes G\) has eigenpairs \(a_i \otimes g_j\): a kernel of \(A\) is"
                    " dead for K-FAC."
                ),
                (
                    r"(b) True Fisher along \(u\,v^{*\top}\): \(c^2\,\mathbb E_x "
                    r"\mathrm{Var}_k(u_k)\)."
                ),
                (
                    r"Dead iff \(c = 0\) or \(u \propto \mathbf 1\); otherwise only with a bias "
                    "change."
                ),
                "Tied embeddings: none of this holds.",
            ),
            "say": (
                "Part (a) is the Lean corollary: eigenpairs of a Kronecker product multiply. Part"
                " (b) is ours: the true Fisher along u v*ᵀ is c² times an expected softmax "
                "variance, so the direction is dead only when c is zero, u is the shift gauge, or"
                " together with a compensating bias change."
            ),
            "ask": "What is c at initialisation, when β = 0?",
            "min": 2,
        },
        "figure": {
            "bullets": (r"Move the scale of \(\beta\) and the choice of \(u\).",),
            "say": (
                "At β = 0 every choice of u is dead. Raise the scale of β: the true Fisher rises "
                "like c² for every u except the shift gauge, while both K-FAC readings with a "
                "centred factor stay at zero."
            ),
            "ask": "Which reading would you trust to place a LoRA adapter?",
            "min": 2,
        },
        "number": {
            "bullets": (
                (
                    "Worst gap between the lifted and the dense spectrum, and the dead cases' "
                    "Fisher."
                ),
            ),
            "say": (
                "The Kronecker spectrum, checked now: [[ours]]. The paper: [[paper]]. Status: "
                "[[status]]."
            ),
            "ask": "Is an exact algebraic identity worth checking numerically, and why?",
            "min": 1,
        },
        "exercise": {
            "say": (
                "Pairs: the tied head in a special case. The LayerNorm Jacobian does the work."
            ),
            "ask": "What does LayerNorm do to a constant shift of its input?",
            "min": 1.5,
        },
        "solution": {
            "say": (
                "With γ ≡ 1 and no mixing body, the tied change is a constant shift that "
                "LayerNorm removes. Any real body mixes coordinates, so real tied heads are not "
                "dead."
            ),
            "ask": "Which of GPT-2, OPT, BLOOM and Pythia can show the direction at all?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    r"K-FAC: dead for every \(u\). True Fisher: only for \(c = 0\). Which to "
                    "trust?"
                ),
                r"\(\beta\) moves in training: what happens to the dead direction?",
                "Tied embeddings in GPT-2, OPT, BLOOM: can they show it at all?",
            ),
            "say": (
                "Take the first question: it decides whether the chapter matters for fine-tuning."
            ),
            "ask": (
                "K-FAC says dead for every u, the true Fisher only for c = 0: which do you trust?"
            ),
            "min": 1,
        },
        "claims": {
            "say": "One claim, an exact identity checked numerically: [[tally]].",
            "ask": "Which part of (b) would you most like to see tested on a trained model?",
            "min": 0.5,
        },
        "next": {
            "bullets": ("Next: walking the flat curve on a trained model.",),
            "say": ("The next chapter walks the exact flat curve on a trained Whisper decoder."),
            "ask": "What would a flat curve in the loss look like on a real model?",
            "min": 0,
        },
    },
}
