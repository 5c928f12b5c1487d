"""The 90-minute seminar through both papers, as data: read by :mod:`companion.site.seminar`.

One entry per page, in book order; every chapter of both parts is placed. ``minutes`` > 0: the
page is taught in the session (``plan``: what happens in the room; ``projector``: what to move
in the chapter's kernel-free Explore figure). ``minutes`` = 0: set as reading before or after
the session, and ``plan`` says why it is not in the room. The minutes are our suggestion;
a chapter's talk (its ``talk`` module) spends exactly its minutes here.
"""

#: The session's length in minutes: the plan's minutes add up to it.
SESSION_MINUTES = 90

#: The plan, in book order.
PLAN = (
    {
        "doc": "book/intro",
        "minutes": 4,
        "plan": (
            "The question of both papers: what does a normalisation layer throw away? How "
            "to read a chapter and its claims box."
        ),
    },
    {
        "doc": "book/sign_magnitude/bussgang",
        "minutes": 7,
        "plan": "Fact 1: derive 2/π on the board (one line from Bussgang's theorem).",
        "projector": "width n: the cosine settles on 2/π; then the weights' distribution",
    },
    {
        "doc": "book/sign_magnitude/rmsnorm_filter",
        "minutes": 5,
        "plan": "RMSNorm keeps only the transverse part of a perturbation: draw the sphere.",
        "projector": "angle (°): at 0° the perturbation is radial and the output does not move",
    },
    {
        "doc": "book/sign_magnitude/energy_equality",
        "minutes": 5,
        "plan": (
            "Proposition 1: equal energy for both kinds of perturbation; the direction decides."
        ),
        "projector": "flip rate p and width m: the two energies stay equal",
    },
    {
        "doc": "book/sign_magnitude/theorem3",
        "minutes": 12,
        "plan": (
            "The main result: statement, the factor π/(π−2) against the simulation ± SE, "
            "the trap of measuring after the norm; do the expansion exercise together."
        ),
        "projector": (
            "flip rate p and width n: limit, author's formula, exact kernel and simulation"
        ),
    },
    {
        "doc": "book/sign_magnitude/theorem4",
        "minutes": 5,
        "plan": (
            "Quantisation error is itself sign-preserving, so it is the mild kind (cos² → 2/π)."
        ),
        "projector": "quantiser and width n",
    },
    {
        "doc": "book/sign_magnitude/multilayer",
        "minutes": 3,
        "plan": (
            "One figure: the asymmetry does not compound with depth, so depth cannot "
            "explain the 6–24× of real models."
        ),
        "projector": "depth L and activation: no growth with depth",
    },
    {
        "doc": "book/sign_magnitude/leverage",
        "minutes": 5,
        "plan": "Outlier features: R ≈ nα², the explanation that does fit real models.",
        "projector": "amplitude α: R grows like nα²",
    },
    {
        "doc": "book/sign_magnitude/at_scale",
        "minutes": 3,
        "plan": (
            "What a real model shows, from the results files shipped with the book (no run "
            "in the room): the Bussgang constant on trained weights, flips in outlier "
            "columns, and their claims' status."
        ),
        "projector": "flip fraction p and which weights the flips hit",
    },
    {
        "doc": "book/dead_directions/ln_kernel",
        "minutes": 10,
        "plan": (
            "The dead direction γ⁻¹/‖γ⁻¹‖: prove it in two lines on the board; read it off "
            "the parameters with no forward pass."
        ),
        "projector": (
            "precision, then width d: in float64 the bottom eigenvalue stays at zero; in "
            "bfloat16 |cos| falls as d grows"
        ),
    },
    {
        "doc": "book/dead_directions/rms_no_kernel",
        "minutes": 5,
        "plan": (
            "RMSNorm has no such kernel: the authors' Lean witness, and the trap of |cos| alone."
        ),
        "projector": "γ spread σ: no eigenvalue reaches zero",
    },
    {
        "doc": "book/dead_directions/kfac_lift",
        "minutes": 0,
        "plan": (
            "Reading: it lifts the activation kernel of the previous chapters into "
            "parameter space through the K-FAC approximation, which needs Fisher-"
            "information background that a 90-minute session cannot build; it adds no new "
            "measurement to the session's story."
        ),
    },
    {
        "doc": "book/dead_directions/walk",
        "minutes": 0,
        "plan": (
            "Reading: it walks the K-FAC chapter's flat curve on a trained Whisper decoder "
            "and derives the framework underneath (Fisher decay, the LayerNorm bracket); it"
            " builds on the K-FAC lift, which is itself set as reading."
        ),
    },
    {
        "doc": "book/dead_directions/sigma_min",
        "minutes": 6,
        "plan": "The residual stream's σₘᵢₙ does not shrink unless a block cancels the stream.",
        "projector": "depth and cancellation c: σₘᵢₙ falls only when c is large",
    },
    {
        "doc": "book/dead_directions/schur_ratio",
        "minutes": 0,
        "plan": (
            "Reading: the paper's formula for the Schur ratio is not available to us; the "
            "chapter is our own operationalisation, so its numbers are ours "
            "and not the paper's, and they are better discussed than presented."
        ),
    },
    {
        "doc": "book/dead_directions/classifier",
        "minutes": 7,
        "plan": (
            "How large |cos| gets by chance (the exact null), and the kernel as a "
            "classifier of the norm."
        ),
        "projector": "width d and activations: the null against the kernel",
    },
    {
        "doc": "book/dead_directions/at_scale",
        "minutes": 4,
        "plan": (
            "The diagnostic on real checkpoints: one forward pass per model, from the "
            "shipped results (random-init registry and three trained models)."
        ),
        "projector": "model: measured against read-off direction",
    },
    {
        "doc": "book/dead_directions/training",
        "minutes": 0,
        "plan": (
            "Reading: the book's own tiny GPT and its RMSNorm twin, trained here; both "
            "papers' geometry at every checkpoint beside the validation loss."
        ),
    },
    {
        "doc": "book/ledger",
        "minutes": 9,
        "plan": (
            "The claims ledger, then discussion: what reproduced, what deviates and why, "
            "what was not run; each group takes one chapter's discussion box."
        ),
    },
    {
        "doc": "book/results_full_scale",
        "minutes": 0,
        "plan": (
            "Reading: what was measured where, and the commands for the full-scale runs; "
            "nothing there runs in the room (the model experiments need a GPU)."
        ),
    },
)
