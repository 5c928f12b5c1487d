"""Multi-layer compounding, Table 3, as a talk.

The data of its deck, read by :mod:`companion.site.talk_spec`.
"""

TALK = {
    "statement": ("thm-multilayer",),
    "steps": ("V2, first order",),
    "punchline": "dong.multilayer.no_compounding",
    "exercise": "ex-ml-additive",
    "slides": {
        "title": {
            "say": (
                "A negative result, and a short slot: one figure and one number. The point is "
                "that depth cannot close the gap between 2.75 and what real models show."
            ),
            "ask": "If every layer multiplied the asymmetry, how fast would it grow?",
            "min": 0.5,
        },
        "question": {
            "bullets": (
                (r"One block: flips cost \(\pi/(\pi-2)\) times more. Real models: far more."),
                "Does depth multiply the factor, layer after layer?",
                ("Two toy chains, V2 (normalised) and V3 (residual), test the conjecture."),
            ),
            "say": (
                "The tempting story: each layer multiplies by 2.75, so two layers already give "
                "about 7.6. Dong states it as a conjecture and tests it on two toy chains."
            ),
            "ask": ("Does a layer know whether a perturbation it receives came from a sign flip?"),
            "min": 0.5,
        },
        "statement": {
            "bullets": (
                (
                    r"Every layer perturbed; \(C_L\) = summed transverse energies, sign over "
                    "magnitude."
                ),
                (r"Conjecture: \(C_L \sim (\pi/(\pi-2))^{\beta L}\) with \(\beta \in (0, 1]\)."),
                r"Found: \(\beta\) near zero; V2 drifts down, V3 up slowly.",
            ),
            "say": (
                "The verdict is the abstract's; the chains and stored numbers are the author's; "
                "the closed forms and the energy accounting are ours. Over six layers the ratio "
                "moves by a factor of about 1.6 at most, where compounding needs over a hundred."
            ),
            "ask": "What slope would the conjecture need on a log plot against depth?",
            "min": 0.5,
        },
        "V2, first order": {
            "bullets": (
                "One layer of V2, read before the norm, is Theorem 3's block.",
                r"So \(C_1\) is the exact-kernel ratio, not the limit.",
                "The author reads after the norm: the trap inflates it to about 3.6.",
            ),
            "say": (
                "Skip in the short slot. If asked: one layer of V2, read before the norm, is "
                "Theorem 3 without the second matrix, so it starts at the exact-kernel value; the"
                " author's 3.6 is the finite-difference trap again."
            ),
            "ask": "Why does the author's chain start at 3.6 rather than 2.75?",
            "min": 0,
        },
        "figure": {
            "bullets": ("Move the depth, the flip rate and the activation.",),
            "say": (
                "Slide depth from 1 to 6 with ReLU: the measured curve stays flat against the "
                "conjecture's straight line. Switch to SiLU: same story. The right panel puts the"
                " fitted slopes against the conjecture's range."
            ),
            "ask": "Which chain, V2 or V3, is closer to a real pre-norm transformer?",
            "min": 1,
        },
        "number": {
            "bullets": (r"The free-intercept slope \(\beta\), fitted now.",),
            "say": (
                "The fitted slope from our chains: [[ours]], against the author's [[paper]]. "
                "Status: [[status]]. Energies add over layers; ratios of sums do not multiply."
            ),
            "ask": "What would a layer have to do for the ratio to multiply?",
            "min": 0.5,
        },
        "exercise": {
            "say": "Set as homework: it is the cleanest way to see why compounding fails.",
            "ask": ("If every later layer multiplies all perturbations by one gain, what is C_L?"),
            "min": 0,
        },
        "solution": {
            "say": (
                "The gain cancels: C_L equals C_1 for every depth. Compounding needs a layer that"
                " treats perturbations differently by their origin, which it cannot see."
            ),
            "ask": "Can a perturbation's direction carry its origin from layer to layer?",
            "min": 0,
        },
        "discuss": {
            "bullets": (
                (r"First order or finite difference: which is the right \(C\) for a chain?"),
                ("V3 rises slowly: is extrapolating to 22 layers a route to the real gap?"),
                "If not depth, then what? The paper's answer: outlier features.",
            ),
            "say": ("Skip in the seminar; the leverage chapter, next, answers the third question."),
            "ask": "If depth does not explain the real-model gap, what does?",
            "min": 0,
        },
        "claims": {
            "say": ("Two claims: the toy chains and chains built from trained weights. [[tally]]."),
            "ask": "Would you trust a slope fitted over six layers to say anything about 22?",
            "min": 0,
        },
        "next": {
            "bullets": (r"Next: outlier leverage, \(R \approx n\alpha^2\).",),
            "say": "Next: the explanation that does fit real models, outlier features.",
            "ask": (
                "What happens to a sign flip on an input coordinate that is ten times the typical"
                " size?"
            ),
            "min": 0,
        },
    },
}
