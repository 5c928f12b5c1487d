"""Proposition 1, energy equality, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-energy-equality",),
    "punchline": "dong.prop1.energy",
    "exercise": "ex-ee-not-sphere",
    "slides": {
        "title": {
            "say": (
                "Proposition 1 clears the ground for Theorem 3: it rules out the easy answer "
                "before the real one."
            ),
            "ask": (
                "Flip 1% of the signs, or nudge every magnitude with the same Frobenius norm: "
                "which hurts more?"
            ),
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (r"Sign flips at rate \(p\), or a magnitude change of the same Frobenius norm."),
                "On inputs spread over the sphere both inject **the same energy**.",
                "So any asymmetry comes from **direction**: the radial fraction.",
            ),
            "say": (
                "Take the vote from the title slide seriously: most rooms pick the sign flip, for"
                " the wrong reason. Energy cannot be the reason."
            ),
            "ask": "What would you measure to decide between the two perturbations?",
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"Equal energy: \(\mathbb E\|\Delta W\hat x\|^2 = \|\Delta W\|_F^2/n\), for "
                    r"every \(\Delta W\)."
                ),
                (
                    r"One linear layer: flips have radial fraction \(\to p\), independent noise "
                    r"\(1/m\)."
                ),
                r"So with RMSNorm, noise is slightly **more** harmful: \(1/(1-p)\).",
                (r"Add a ReLU: flips stay near \(p\), the magnitude change locks at \(2/\pi\)."),
            ),
            "say": (
                "Four items. The first is a one-line trace identity. The second and third say "
                "that for one linear layer the ordering is even the wrong way round. The fourth "
                "is where the ReLU changes everything. All four are in the author's code; the "
                "finite-width offsets are ours."
            ),
            "ask": "Why is independent noise the least aligned perturbation of all?",
            "min": 1,
        },
        "figure": {
            "bullets": (
                (
                    r"Move the flip rate \(p\) and the width \(m\); left one layer, right two with"
                    " ReLU."
                ),
            ),
            "say": (
                "Left panel first: raise p and the two curves open a gap of 1/(1−p), noise on "
                "top. Then the right panel: with the ReLU, the magnitude perturbation sits at 2/π"
                " whatever p, while flips stay near p."
            ),
            "ask": (
                "Which panel would you show someone who thinks sign flips are obviously worse?"
            ),
            "min": 1.5,
        },
        "number": {
            "bullets": (
                (
                    r"Injected energy over \(\|\Delta W\|_F^2/n\), one 5% sign flip, simulated "
                    "now."
                ),
            ),
            "say": (
                "One 5% sign flip, energy measured against the Frobenius prediction: [[ours]] "
                "against [[paper]]. Status: [[status]]."
            ),
            "ask": "What would this ratio be if the inputs were not spread over the sphere?",
            "min": 0.5,
        },
        "exercise": {
            "say": (
                "Short and pointed: one minute to find the input that breaks the equality. "
                "Someone will say e₁; then ask who gets hurt."
            ),
            "ask": "Which perturbation loses when all the input sits on one coordinate?",
            "min": 0.5,
        },
        "solution": {
            "say": (
                "Only the first column counts. Flips there can be huge; the constant δ is exactly"
                " mδ². This is the seed of the leverage chapter."
            ),
            "ask": "What real-model feature looks like this concentrated input?",
            "min": 0.5,
        },
        "discuss": {
            "bullets": (
                (
                    "Why does the sign-preserving magnitude change behave so differently from "
                    "independent noise of the same norm?"
                ),
                ("Equal energy is an average over the sphere: what in a real model breaks it?"),
            ),
            "say": (
                "Park both questions for the ledger discussion; the second one comes back with "
                "the outlier features."
            ),
            "ask": (
                "Which features of real activations break equal energy, and in which direction?"
            ),
            "min": 0,
        },
        "claims": {
            "say": "Three claims, one per item that can be simulated: [[tally]].",
            "ask": "Which item would you test on a trained model first?",
            "min": 0,
        },
        "next": {
            "bullets": (r"Next: Theorem 3, the constant \(\pi/(\pi-2)\).",),
            "say": (
                "Next: the two-layer model, where the direction argument becomes the 2.75× of "
                "Theorem 3."
            ),
            "ask": "Given 2/π and p for the two radial fractions, can you guess the ratio?",
            "min": 0,
        },
    },
}
