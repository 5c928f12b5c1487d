"""Dong (2026), arXiv 2605.18933: the public face of the sign-magnitude theory.

Each result lives in a module named after its mathematical object; this module
re-exports them under the names the book and the claims ledger use.
"""

from companion.theory.bussgang import (  # noqa: F401
    DISTRIBUTIONS,
    bussgang_cos2,
    row_cos2,
    simulate_bussgang_cos2,
)
from companion.theory.energy_equality import (  # noqa: F401
    SingleLayerResult,
    energy_equality,
    simulate_energy_equality,
    simulate_single_layer,
    single_layer_radial_fraction,
    single_layer_transverse_ratio,
)
from companion.theory.leverage import *  # noqa: F401,F403  (Part I: outlier leverage)
from companion.theory.norms import rms, rmsnorm, rmsnorm_jacobian  # noqa: F401
from companion.theory.perturbations import (  # noqa: F401
    gaussian_weights,
    independent_noise_delta,
    magnitude_delta,
    matched_pair,
    radial_fraction,
    radial_transverse_split,
    sign_flip_delta,
    sign_flip_mask,
    sphere_inputs,
    transverse_energy,
)
from companion.theory.quantization import (  # noqa: F401
    QUANTIZERS,
    QuantizationGeometry,
    absmean_sign_quantize,
    quantization_cos2_limit,
    quantization_error_geometry,
    quantization_radial_post,
    quantization_radial_pre,
    ternary_quantize,
)
from companion.theory.relu_kernel import relu_kernel, relu_kernel_derivative  # noqa: F401
from companion.theory.rmsnorm_filter import (  # noqa: F401
    first_order_output_energy,
    jacobian_fd_error,
    rmsnorm_change,
)
from companion.theory.transverse_ratio import (  # noqa: F401
    PAPER_TABLE2,
    BranchMoments,
    TransverseRatioResult,
    branch_moments,
    post_norm_inflation,
    simulate_transverse_ratio,
    simulate_transverse_ratio_grid,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_paper,
)
