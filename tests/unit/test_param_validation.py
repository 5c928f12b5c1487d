"""Every public function, class and method refuses bad parameters in the one error style.

Modelled on scikit-learn's ``_check_function_param_validation``. The public API is
discovered, not listed: every callable in a module's ``__all__`` (defined in that module,
so re-exports count once), each class's constructor and its public methods. Each target
is called with the valid arguments of the reviewed table :data:`VALID`, then with one
parameter at a time replaced by a value it must refuse; the call must raise
``TypeError`` or ``ValueError`` whose message names that parameter in backticks
(``companion._validate``'s style). A new public function fails
``test_every_target_has_a_row`` until it gets a row in :data:`VALID` or a reason in
:data:`EXEMPT`.

* ``test_wrong_type_is_refused``: an unrelated object, a string (where the valid value is
  not a string) and a fraction (where an integer is expected), in every parameter.
* ``test_bad_value_is_refused``: the values no wrong type reaches, generated from the
  valid value: NaN and infinities, an array for a scalar, a negative or zero size or
  tolerance (by parameter name: :data:`NON_NEGATIVE`, :data:`POSITIVE`), an empty array
  (zero rows, or an empty last axis).
* ``test_edge_case_is_refused`` / ``test_documented_edge_results``: function-specific
  out-of-range, wrong-shape and degenerate inputs, and the degenerate inputs that have a
  well-defined, documented answer.

``companion.results`` is collected too (its rows, on files in a temporary folder, are in
``results_param_rows.py``), and ``test_environment_variable_is_refused_where_it_is_read``
covers the environment variables the library reads (``COMPANION_SCALE``,
``COMPANION_MEMORY``, ``COMPANION_RESULTS``): one error where each is read.

``companion.llm`` imports torch lazily; it is collected only when torch imports, and its
rows (``llm_param_rows.py``) build their models, windows and tokenizers lazily, once. A
target returning a context manager is entered, a generator advanced once: that is where
its arguments are used. Cases that fail only because of another owner's code are listed in
``llm_param_rows.PENDING`` with the owner's name (strict expected failures).
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import inspect
import math
import pkgutil
import re
import warnings

import llm_param_rows as llm_rows
import numpy as np
import pytest
import results_param_rows as results_rows
import train_param_rows as train_rows
import walk_param_rows as walk_rows

from companion import stats
from companion.stats import MCEstimate
from companion.theory import bussgang as bg
from companion.theory import energy_equality as ee
from companion.theory import kfac_lift as kl
from companion.theory import ln_kernel as lk
from companion.theory import multilayer as ml
from companion.theory import norms
from companion.theory import perturbations as pt
from companion.theory import quantization as qz
from companion.theory import rmsnorm_filter as rf
from companion.theory import schur_ratio as sr
from companion.theory import sigma_min as sm
from companion.theory import transverse_ratio as tr
from companion.theory.null_classifier import NullDistribution, random_direction_null

#: (package, module that must import for it to be collected, or None).
PACKAGES = (
    ("companion.theory", None),
    ("companion.stats", None),
    ("companion.results", None),
    ("companion.llm", "torch"),
)


def _importable(name: str | None) -> bool:
    if name is None:
        return True
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


#: The packages collected in this environment (``theory``, ``stats``, ``llm`` with torch).
COLLECTED = tuple(name.removeprefix("companion.") for name, needs in PACKAGES if _importable(needs))


def _modules():
    for name in COLLECTED:
        pkg = importlib.import_module(f"companion.{name}")
        yield pkg
        for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), pkg.__name__ + "."):
            yield importlib.import_module(info.name)


def discover() -> dict:
    """``{key: callable}`` for every public function, class and public method.

    Keys drop the ``companion.`` prefix: ``theory.bussgang.row_cos2``,
    ``theory.sigma_min.GramAccumulator`` (the constructor),
    ``theory.sigma_min.GramAccumulator.update``.
    """
    found = {}
    for mod in _modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not callable(obj) or getattr(obj, "__module__", None) != mod.__name__:
                continue  # constants, and names re-exported from another module
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue  # raised, not called
            key = f"{mod.__name__.removeprefix('companion.')}.{name}"
            found[key] = obj
            if inspect.isclass(obj):
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        found[f"{key}.{meth}"] = fn
    return found


TARGETS = discover()


def _collected(key: str) -> bool:
    return key.split(".")[0] in COLLECTED


def _parameters(key: str) -> list[inspect.Parameter]:
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        p
        for p in inspect.signature(TARGETS[key]).parameters.values()
        if p.name != "self" and p.kind not in skip
    ]


# --------------------------------------------------------------------------- the table

_g = np.random.default_rng(0)
_X = _g.standard_normal((20, 4))  # (N, d) pre-norm inputs
_GAMMA = np.array([1.0, -2.0, 0.5, 3.0])
_Y = norms.layernorm(_X, _GAMMA, np.ones(4))  # (N, d) post-LN activations
_W = _g.standard_normal((8, 8)) / np.sqrt(8)
_CHAIN = ml.simulate_chain("V2", "relu", 0.05, 8, 3, samples=10, seeds=2, rng=0)
_ACC = sm.GramAccumulator().update(_X)

#: Instances whose public methods are checked, one per class with such methods.
INSTANCES = {
    "stats.MCEstimate": MCEstimate(0.5, 0.1, 10),
    "theory.kfac_lift.KronSpectrum": kl.kfac_lift(np.diag([0.0, 2.0]), [[2.0, 1.0], [1.0, 2.0]]),
    "theory.kfac_lift.LNSoftmaxHead": kl.ln_softmax_head(5, 4, n=20, rng=0),
    "theory.compounding.ChainResult": _CHAIN,
    "theory.multilayer.CompoundingFit": ml.fit_compounding(_CHAIN),
    "theory.null_classifier.NullDistribution": random_direction_null(8),
    "theory.gram.GramAccumulator": _ACC,
}

#: Valid arguments of every target: a dict, or a list of dicts for call forms that use
#: different parameters. Parameters left out take their defaults (and are checked too).
VALID = {
    # stats
    "stats.MCEstimate": dict(value=0.5, stderr=0.1, n=10),
    "stats.MCEstimate.agrees_with": dict(exact=0.5, k=4.0),
    "stats.MCEstimate.z": dict(exact=0.5),
    "stats.MCEstimate.ci": dict(level=0.95),
    "stats.mean_estimate": dict(samples=[1.0, 2.0, 3.0]),
    "stats.ratio_estimate": dict(num=[2.0, 4.0, 6.0], den=[1.0, 2.0, 3.0]),
    "stats.ratio_difference_estimate": dict(
        num_a=[2.0, 4.0, 6.0], den_a=[1.0, 2.0, 3.0], num_b=[2.0, 4.1, 6.0], den_b=[1.0, 2.0, 3.0]
    ),
    # budget
    "theory.budget.check_sizes": dict(sizes={"n": 8}, elements=64.0, ops=512.0, what="8 x 8"),
    # bussgang
    "theory.bussgang.absolute_moments": dict(dist="student_t", nu=5.0),
    "theory.bussgang.bussgang_cos2": dict(dist="gaussian", n=10, nu=5.0),
    "theory.bussgang.row_cos2": dict(W=[[1.0, -1.0], [3.0, 4.0]]),
    "theory.bussgang.sample_weights": dict(shape=(2, 3), dist="student_t", nu=5.0, rng=0),
    "theory.bussgang.simulate_bussgang_cos2": dict(n=8, dist="gaussian", samples=10, nu=5.0, rng=0),
    # energy_equality
    "theory.energy_equality.energy_equality": dict(delta_W=np.eye(3)),
    "theory.energy_equality.simulate_energy_equality": dict(
        delta_W=np.diag([1.0, 2.0, 3.0]), samples=10, rng=0
    ),
    "theory.energy_equality.simulate_single_layer": dict(
        p=0.1, n=8, m=8, samples=10, seeds=2, rng=0
    ),
    "theory.energy_equality.single_layer_radial_fraction": dict(p=0.05, m=100, kind="sign"),
    "theory.energy_equality.single_layer_transverse_ratio": dict(p=0.1),
    # kfac_lift
    "theory.kfac_lift.KronSpectrum.vector": dict(k=1),
    "theory.kfac_lift.KronSpectrum.increment": dict(k=1),
    "theory.kfac_lift.LNSoftmaxHead.logits": dict(
        W=np.ones((5, 4)), b=np.zeros(5), beta=np.zeros(4)
    ),
    "theory.kfac_lift.LNSoftmaxHead.dlogits": dict(
        dW=np.ones((5, 4)), db=np.zeros(5), dbeta=np.zeros(4)
    ),
    "theory.kfac_lift.LNSoftmaxHead.fisher": dict(
        dW=np.ones((5, 4)), db=np.zeros(5), dbeta=np.zeros(4)
    ),
    "theory.kfac_lift.LNSoftmaxHead.kfac_factors": dict(centred=True),
    "theory.kfac_lift.LNSoftmaxHead.flat_curve_logit_change": dict(w=np.ones(4), ts=[0.0, 0.5]),
    "theory.kfac_lift.categorical_fisher": dict(logits=[[0.0, 0.0]], dlogits=[[1.0, -1.0]]),
    "theory.kfac_lift.kfac_lift": dict(A=np.diag([0.0, 2.0]), G=[[2.0, 1.0], [1.0, 2.0]]),
    "theory.kfac_lift.kfac_quadratic_form": dict(
        A=np.diag([0.0, 1.0]), G=np.eye(3), dW=np.ones((3, 2))
    ),
    "theory.kfac_lift.ln_softmax_head": dict(
        V=5, d=4, n=20, beta_scale=1.0, gamma_sigma=0.5, eps=1e-5, tied=False, bias=True, rng=0
    ),
    "theory.kfac_lift.softmax": dict(z=[[1.0, 2.0, 3.0]]),
    # leverage
    "theory.leverage.aggregate_leverage": dict(
        alpha2=np.r_[np.full(5, 10.0), np.ones(95)], outlier_fraction=0.05
    ),
    "theory.leverage.column_leverage_bound": dict(outlier_fraction=0.05),
    "theory.leverage.leverage": dict(alpha=0.26, n=2048, kind="exact"),
    "theory.leverage.simulate_leverage": dict(
        alpha=0.1, n=16, samples=10, stage="post_relu", full_rows=True, rng=0
    ),
    # ln_kernel
    "theory.covariance.bottom_direction": dict(C=np.diag([3.0, 0.5, 2.0]), n_samples=10),
    "theory.covariance.centred_covariance": dict(Y=[[1.0, 0.0], [3.0, 2.0], [0.0, 1.0]], ddof=1),
    "theory.gamma.effective_scale": dict(weight=[0.0, 0.5], convention="one_plus"),
    "theory.gamma.inverse_scale_direction": dict(gamma=[1.0, -2.0]),
    "theory.ln_kernel.kernel_report": [
        dict(Y=_Y, gamma=_GAMMA),
        dict(gamma=_GAMMA, cov=np.cov(_Y.T), n_samples=20, mean=_Y.mean(0)),
    ],
    "theory.ln_kernel.normalised_activations": dict(
        x=[[1.0, 2.0, 4.0]],
        gamma=[1.0, 2.0, 4.0],
        beta=[0.0, 0.0, 0.0],
        eps=1e-5,
        norm="layernorm",
        precision="bfloat16",
    ),
    "theory.rms_witness.rms_witness_inputs": dict(d=3),
    "theory.rms_witness.rms_witness_variance": dict(
        v=[1.0, 0.0, 0.0], gamma=[2.0, 5.0, 5.0], eps=0.1
    ),
    "theory.ln_kernel.round_to_bfloat16": dict(x=[1.0, 3.14159265]),
    "theory.ln_kernel.round_to_precision": dict(x=[1 / 3, 2.0], precision="bfloat16"),
    "theory.ln_kernel.rounding_noise": dict(Y=_Y, gamma=_GAMMA, precision="bfloat16"),
    "theory.gamma.sample_gamma": dict(d=3, sigma=1.0, signs=True, rng=0),
    "theory.ln_kernel.sample_inputs": dict(n_samples=5, d=3, dist="student_t", rng=0),
    "theory.rms_witness.simulate_rms_witness_variance": dict(
        v=[1.0, 1.0], gamma=[1.0, 3.0], samples=10, eps=0.1, rng=0
    ),
    "theory.rms_witness.witness_variance_exact": dict(
        v=[0.5, 0.5, 0.0], gamma=[1.0, 2.0, 4.0], eps=0.1, norm="layernorm", beta=[0.0, 1.0, 0.0]
    ),
    # multilayer
    "theory.compounding.ChainResult.ratios": dict(readout="prenorm"),
    "theory.compounding.ChainResult.upto": dict(depth=2),
    "theory.compounding.ChainResult.energies": dict(readout="prenorm"),
    "theory.multilayer.CompoundingFit.predict": dict(depth=[1.0, 2.0], kind="origin"),
    "theory.multilayer.CompoundingFit.estimate": dict(kind="origin"),
    "theory.compounding.author_readout": dict(variant="V2"),
    "theory.compounding.author_table3": dict(variant="V2", activation="relu", m=2048, p=0.01),
    "theory.compounding.compounding_prediction": dict(depth=2.0, beta=1.0),
    "theory.compounding.first_layer_ratio": dict(
        variant="V3", activation="relu", p=0.01, readout="prenorm"
    ),
    "theory.multilayer.fit_compounding": [
        dict(data=ml.AUTHOR_TABLE3[("V2", "relu", 512, 0.01)], depths=[1, 2, 3, 4, 5, 6]),
        dict(data=_CHAIN, readout="prenorm"),
    ],
    "theory.multilayer.inject_compounding": dict(result=_CHAIN, beta=0.1),
    "theory.multilayer.simulate_chain": dict(
        variant="V2",
        activation="relu",
        p=0.05,
        m=8,
        depth=2,
        samples=10,
        seeds=2,
        perturb="first",
        readout="prenorm",
        rng=0,
    ),
    # norms
    "theory.norms.layernorm": dict(
        x=[[1.0, 2.0, 6.0]], gamma=[1.0, 2.0, 4.0], beta=[0.0, 0.0, 1.0], eps=1e-5
    ),
    "theory.norms.layernorm_jacobian": dict(x=[1.0, 2.0, 4.0], gamma=[1.0, 2.0, 1.0], eps=0.1),
    "theory.norms.rms": dict(u=[[3.0, 4.0]], eps=0.1),
    "theory.norms.rmsnorm": dict(u=[[3.0, 4.0]], gain=[1.0, 2.0], eps=0.1),
    "theory.norms.rmsnorm_jacobian": dict(u=[1.0, 2.0, 2.0], gain=[1.0, 2.0, 1.0]),
    # null_classifier
    "theory.null_classifier.NullDistribution.quantile": dict(q=0.5),
    "theory.null_classifier.NullDistribution.sf": dict(c=0.1),
    "theory.null_classifier.NullDistribution.pdf": dict(c=[0.1, 0.2]),
    "theory.null_classifier.classify_norm": [
        dict(gamma=_GAMMA, Y=_Y, dtype="float64", margin=100.0, gap=10.0),
        dict(
            gamma=_GAMMA,
            cov=np.cov(_Y.T),
            n_samples=20,
            mean=_Y.mean(0),
            dtype="float32",
            accumulate="float32",
        ),
    ],
    "theory.null_classifier.precision_floor": dict(
        dtype="float32", d=8, offset_ratio=0.5, accumulate="float32"
    ),
    "theory.null_classifier.random_direction_null": dict(d=8),
    "theory.null_classifier.simulate_null_cos": dict(d=8, samples=10, rng=0),
    # perturbations
    "theory.perturbations.gaussian_weights": dict(rows=2, cols=3, rng=0, dtype=np.float32),
    "theory.perturbations.independent_noise_delta": dict(
        W=np.ones((3, 4)), frobenius_norm=2.0, rng=0
    ),
    "theory.perturbations.magnitude_delta": dict(W=[[0.5, -2.0], [3.0, -1.0]], frobenius_norm=4.0),
    "theory.perturbations.matched_pair": dict(W=_W, p=0.1, rng=1),
    "theory.perturbations.radial_fraction": dict(delta=[1.0, 1.0], v=[3.0, 0.0]),
    "theory.perturbations.radial_transverse_split": dict(delta=[1.0, 1.0], v=[3.0, 0.0]),
    "theory.perturbations.sign_flip_delta": [
        dict(W=_W, p=0.5, rng=0),
        dict(W=[[1.0, -2.0], [3.0, 4.0]], mask=np.array([[True, False], [False, True]])),
    ],
    "theory.perturbations.sign_flip_mask": dict(shape=(2, 3), p=0.1, rng=0),
    "theory.perturbations.sphere_inputs": dict(samples=3, n=5, rng=0, dtype=np.float32),
    "theory.perturbations.transverse_energy": dict(delta=[1.0, 2.0], v=[5.0, 0.0]),
    # quantization
    "theory.quantization.absmean_sign_quantize": dict(W=[[1.0, -3.0], [0.5, 0.5]]),
    "theory.quantization.quantization_error_geometry": dict(
        W=_W, quantizer="ternary", samples=10, rng=1
    ),
    "theory.quantization.quantization_radial_post": dict(m=8),
    "theory.quantization.quantization_radial_pre": dict(m=8),
    "theory.quantization.ternary_quantize": dict(W=[[0.1, -2.0], [1.0, 0.9]], eps=1e-8),
    # relu_kernel
    "theory.relu_kernel.relu_kernel": dict(rho=0.5),
    "theory.relu_kernel.relu_kernel_derivative": dict(rho=0.5),
    # rmsnorm_filter
    "theory.rmsnorm_filter.first_order_output_energy": dict(u=[1.0, 0.0], delta=[5.0, 1.0]),
    "theory.rmsnorm_filter.jacobian_fd_error": dict(
        u=np.arange(1.0, 9.0), gain=np.ones(8), directions=2, h=1e-5, rng=0
    ),
    "theory.rmsnorm_filter.rmsnorm_change": dict(u=[3.0, 4.0], delta=[0.3, 0.4], gain=[1.0, 2.0]),
    # schur_ratio
    "theory.schur_ratio.deflate": dict(cov=np.diag([1.0, 2.0, 3.0]), v=[1.0, 1.0, 0.0]),
    "theory.schur_ratio.delta_gamma": dict(
        cov=[[2.0, 1.0], [1.0, 2.0]], h=[1.0, 0.0], method="complement", rtol=1e-12
    ),
    "theory.schur_ratio.mp_baseline": dict(d=4, n_samples=16, centred=True, exact=True),
    "theory.schur_ratio.schur_ratio": dict(
        cov=[[2.0, 1.0], [1.0, 2.0]], h=[1.0, 0.0], method="complement", rtol=1e-12
    ),
    "theory.schur_ratio.schur_ratios_coordinates": dict(cov=[[2.0, 1.0], [1.0, 2.0]], rtol=1e-12),
    "theory.schur_ratio.simulate_schur_ratio": dict(
        d=3, n_samples=8, trials=2, centred=True, rng=0
    ),
    # sigma_min
    "theory.gram.GramAccumulator": dict(d=4),
    "theory.gram.GramAccumulator.update": dict(X_batch=np.ones((2, 4))),
    "theory.gram.GramAccumulator.merge": dict(other=sm.GramAccumulator().update(_X[:5])),
    "theory.gram.GramAccumulator.merge_moments": dict(
        n=4, mean=[0.0, 0.0, 0.0, 1.0], comoment=np.eye(4)
    ),
    "theory.gram.GramAccumulator.matrix": dict(centred=True),
    "theory.gram.GramAccumulator.covariance": dict(centred=True),
    "theory.gram.GramAccumulator.eigh": dict(centred=True),
    "theory.gram.GramAccumulator.singular_values": dict(centred=True),
    "theory.gram.GramAccumulator.sigma_min": dict(centred=True),
    "theory.gram.GramAccumulator.quadratic_form": dict(v=[1.0, 0.0, 0.0, 0.0], centred=True),
    "theory.sigma_min.cancellation_bound": dict(
        toy=sm.residual_toy(4, 2, n=8, cancel=0.5, rng=0), cancel=0.5
    ),
    "theory.sigma_min.residual_toy": dict(d=4, depth=2, n=8, cancel=0.5, scale=0.3, rng=0),
    "theory.sigma_min.sigma_min_profile": [
        dict(states=[_X, 1.3 * _X], centred=True, method="svd"),
        dict(states=[_ACC, copy.deepcopy(_ACC)], centred=False, method="gram"),
    ],
    # transverse_ratio
    "theory.transverse_closed_forms.branch_moments": dict(p=0.01),
    "theory.transverse_closed_forms.post_norm_inflation": dict(p=0.01),
    "theory.transverse_ratio.simulate_transverse_ratio": dict(
        p=0.05, n=8, m=8, d=8, samples=10, seeds=2, post_norm=True, rng=0
    ),
    "theory.transverse_ratio.simulate_transverse_ratio_grid": dict(
        ps=[0.05, 0.1], n=8, m=8, d=8, samples=10, seeds=2, batch=5, post_norm=False, rng=0
    ),
    "theory.transverse_closed_forms.transverse_ratio_exact": dict(p=0.01),
    "theory.transverse_closed_forms.transverse_ratio_noise": dict(p=0.01),
    "theory.transverse_closed_forms.transverse_ratio_paper": dict(p=0.01, variant="figure"),
}


class _Lazy:
    """A row or instance built on first use (the llm rows need torch and small models)."""

    def __init__(self, make):
        self.make, self.value, self.built = make, None, False

    def get(self):
        if not self.built:
            self.value, self.built = self.make(), True
        return self.value


VALID.update(results_rows.ROWS)
VALID.update(walk_rows.ROWS)
INSTANCES.update(walk_rows.INSTANCES)
INSTANCES.update(results_rows.INSTANCES)
VALID.update({k: _Lazy(f) for k, f in llm_rows.ROWS.items()})
INSTANCES.update({k: _Lazy(f) for k, f in llm_rows.INSTANCES.items()})
VALID.update({k: _Lazy(f) for k, f in train_rows.ROWS.items()})


def _instance(owner: str):
    obj = INSTANCES[owner]
    return obj.get() if isinstance(obj, _Lazy) else obj


_RECORD = "a result record the library builds; its fields are not user input"
#: Targets that are not checked, with the reason. Parameterless targets need no row.
EXEMPT = {
    "theory.energy_equality.SingleLayerResult": _RECORD,
    "theory.kfac_lift.KronSpectrum": _RECORD + " (from kfac_lift)",
    "theory.kfac_lift.LNSoftmaxHead": _RECORD + " (from ln_softmax_head)",
    "theory.leverage.AggregateLeverage": _RECORD,
    "theory.ln_kernel.KernelReport": _RECORD,
    "theory.ln_kernel.RoundingNoise": _RECORD,
    "theory.compounding.ChainResult": _RECORD + " (from simulate_chain)",
    "theory.multilayer.CompoundingFit": _RECORD + " (from fit_compounding)",
    "theory.null_classifier.NormVerdict": _RECORD,
    "theory.null_classifier.NullDistribution": _RECORD + " (from random_direction_null)",
    "theory.quantization.QuantizationGeometry": _RECORD,
    "theory.sigma_min.ResidualToy": _RECORD + " (from residual_toy)",
    "theory.sigma_min.SigmaMinProfile": _RECORD,
    "theory.transverse_closed_forms.BranchMoments": _RECORD,
    "theory.transverse_ratio.TransverseRatioResult": _RECORD,
    **llm_rows.EXEMPT,
    **results_rows.EXEMPT,
    **walk_rows.EXEMPT,
    **train_rows.EXEMPT,
}

#: Scalar parameters that also take arrays (elementwise functions).
ACCEPTS_ARRAYS = {
    ("theory.leverage.leverage", "alpha"),
    ("theory.compounding.compounding_prediction", "depth"),
    ("theory.relu_kernel.relu_kernel", "rho"),
    ("theory.relu_kernel.relu_kernel_derivative", "rho"),
    ("theory.transverse_closed_forms.post_norm_inflation", "p"),
    ("theory.transverse_closed_forms.transverse_ratio_exact", "p"),
    ("theory.transverse_closed_forms.transverse_ratio_noise", "p"),
    ("theory.transverse_closed_forms.transverse_ratio_paper", "p"),
}

#: Array parameters for which an empty array (zero rows, or zero entries of a 1-D array)
#: is valid and gives an empty result: elementwise and row-wise functions, and a no-op.
EMPTY_OK = {
    ("theory.kfac_lift.LNSoftmaxHead.flat_curve_logit_change", "ts"): "one number per t",
    ("theory.bussgang.row_cos2", "W"): "row-wise",
    ("theory.kfac_lift.softmax", "z"): "row-wise",
    ("theory.ln_kernel.normalised_activations", "x"): "row-wise",
    ("theory.ln_kernel.round_to_bfloat16", "x"): "elementwise",
    ("theory.ln_kernel.round_to_precision", "x"): "elementwise",
    ("theory.multilayer.CompoundingFit.predict", "depth"): "elementwise",
    ("theory.norms.layernorm", "x"): "row-wise",
    ("theory.norms.rms", "u"): "row-wise",
    ("theory.norms.rmsnorm", "u"): "row-wise",
    ("theory.null_classifier.NullDistribution.pdf", "c"): "elementwise",
    ("theory.gram.GramAccumulator.update", "X_batch"): "an empty batch is a no-op",
    **{(k, p): why for k, (p, why) in llm_rows.EMPTY_OK.items()},
}

#: Parameter names that mean a count, size, index, tolerance or scale wherever they
#: appear: a negative value is refused. :data:`POSITIVE`: zero is refused too.
NON_NEGATIVE = {
    "V", "batch", "beta_scale", "cancel", "cols", "d", "ddof", "depth", "directions", "eps",
    "frobenius_norm", "gamma_sigma", "gap", "h", "k", "m", "margin", "n", "n_samples",
    "offset_ratio", "rows", "rtol", "samples", "scale", "seeds", "sigma", "trials",
} | llm_rows.NON_NEGATIVE | walk_rows.NON_NEGATIVE | train_rows.NON_NEGATIVE  # fmt: skip
POSITIVE = {
    "V", "batch", "cols", "d", "directions", "gap", "h", "m", "margin", "n_samples", "rows",
    "samples", "seeds", "trials",
} | llm_rows.POSITIVE | walk_rows.POSITIVE | train_rows.POSITIVE  # fmt: skip


class Unrelated:
    """An object of a type that no parameter accepts."""

    def __repr__(self) -> str:
        return "Unrelated()"


def _variants(key: str) -> list[dict]:
    row = VALID[key]
    row = row.get() if isinstance(row, _Lazy) else row
    return row if isinstance(row, list) else [row]


def _copy(obj):
    """A deep copy that passes models, tensors and tokenizers (llm_rows.SHARED) as they are."""
    return copy.deepcopy(obj, {id(o): o for o in llm_rows.SHARED})


def _use(result):
    """Enter a returned context manager, advance a returned generator: where arguments act."""
    if isinstance(result, contextlib._GeneratorContextManager):
        with result:
            pass
    elif inspect.isgenerator(result):
        next(result, None)
    return result


def _call(key: str, form: int, overrides: dict | None = None):
    """Call ``key`` with its ``form``-th row of valid arguments, some replaced."""
    kwargs = _copy(_variants(key)[form])
    kwargs.update(overrides or {})
    owner, _, meth = key.rpartition(".")
    if owner in INSTANCES:
        return _use(getattr(_copy(_instance(owner)), meth)(**kwargs))
    return _use(TARGETS[key](**kwargs))


def _is_int(value, annotation) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, np.integer)) or annotation in ("int", "int | None")


def _real_array(value) -> np.ndarray | None:
    """``value`` as a float array when the table gives an array of numbers (list or ndarray)."""
    if not isinstance(value, (list, np.ndarray)):
        return None
    try:
        arr = np.asarray(value)
    except ValueError:
        return None
    return arr.astype(np.float64) if arr.dtype.kind in "fiu" and arr.size else None


def _cases(make):
    """pytest params over every (target, call form, parameter, value) that ``make`` yields."""
    out = []
    for key in sorted(filter(_collected, VALID)):
        for i, valid in enumerate(_variants(key)):
            tag = key if len(_variants(key)) == 1 else f"{key}[{i}]"
            for p in _parameters(key):
                for label, value in make(key, p, valid.get(p.name, p.default)):
                    out.append(_param(f"{tag}-{p.name}-{label}", key, i, p.name, value))
    return out


def _param(case_id: str, *values):
    """A pytest param; a case another owner must fix (llm_rows.PENDING) is a strict xfail."""
    why = llm_rows.PENDING.get(case_id)
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(*values, id=case_id, marks=marks)


def _wrong_types(key, p, valid):
    yield "object", Unrelated()
    if not isinstance(valid, str):
        yield "str", "abc"
    if _is_int(valid, p.annotation):
        yield "fraction", 2.5


def _bad_values(key, p, valid):
    if isinstance(valid, (float, int, np.floating, np.integer)) and not isinstance(valid, bool):
        if isinstance(valid, (float, np.floating)):
            yield "nan", math.nan
            yield "inf", math.inf
            yield "-inf", -math.inf
        if (key, p.name) not in ACCEPTS_ARRAYS:
            yield "array", np.array([valid, valid])
        if p.name in NON_NEGATIVE:
            yield "negative", type(valid)(-1)
        if p.name in POSITIVE:
            yield "zero", type(valid)(0)
        return
    arr = _real_array(valid)
    if arr is None:
        return
    for label, bad in (("nan", math.nan), ("inf", math.inf)):
        a = arr.copy()
        a.flat[0] = bad
        yield f"{label}-entry", a
    if (key, p.name) not in EMPTY_OK:
        yield "no-rows", np.empty((0,) + arr.shape[1:])
    if arr.ndim >= 2:
        yield "empty-last-axis", np.empty(arr.shape[:-1] + (0,))


def _names(message: str, name: str) -> bool:
    """True when ``message`` names ``name`` in backticks (``states[0]`` names ``states``)."""
    return re.search(rf"`{re.escape(name)}(\[[^`\]]*\])?`", message) is not None


def _assert_refused(key, variant, param, value):
    with pytest.raises((TypeError, ValueError)) as info:
        _call(key, variant, {param: value})
    msg = str(info.value)
    assert _names(msg, param), f"{type(info.value).__name__} does not name `{param}`: {msg}"


# --------------------------------------------------------------------------- tests


def test_every_target_has_a_row():
    """New public API needs valid arguments (or an exemption); stale rows are refused."""
    checked = {k for k in TARGETS if k not in EXEMPT and _parameters(k)}
    assert sorted(checked - set(VALID)) == [], "add rows to VALID (or reasons to EXEMPT)"
    assert sorted(k for k in set(VALID) - checked if _collected(k)) == [], "stale rows"
    assert sorted(k for k in set(EXEMPT) - set(TARGETS) if _collected(k)) == []
    owners = {k.rpartition(".")[0] for k in VALID} & set(TARGETS)
    assert sorted(o for o in owners if inspect.isclass(TARGETS[o]) and o not in INSTANCES) == []
    for key in VALID:
        if not _collected(key):
            continue
        for row in _variants(key):
            names = {p.name for p in _parameters(key)}
            assert set(row) <= names, f"{key}: {set(row) - names} are not parameters"
            required = {p.name for p in _parameters(key) if p.default is inspect.Parameter.empty}
            assert required <= set(row), f"{key}: {required - set(row)} need values"


@pytest.mark.parametrize(
    "key, variant",
    [
        _param(f"{k}-{i}", k, i)
        for k in sorted(filter(_collected, VALID))
        for i in range(len(_variants(k)))
    ],
)
def test_valid_arguments_work(key, variant):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _call(key, variant)


@pytest.mark.parametrize("key, variant, param, value", _cases(_wrong_types))
def test_wrong_type_is_refused(key, variant, param, value):
    _assert_refused(key, variant, param, value)


@pytest.mark.parametrize("key, variant, param, value", _cases(_bad_values))
def test_bad_value_is_refused(key, variant, param, value):
    _assert_refused(key, variant, param, value)


@pytest.mark.parametrize(
    "key, param",
    sorted(EMPTY_OK),
    ids=[f"{k}-{p}" for k, p in sorted(EMPTY_OK)],
)
def test_empty_input_gives_empty_result(key, param):
    valid = _variants(key)[0][param]
    arr = _real_array(valid)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _call(key, 0, {param: np.empty((0,) + arr.shape[1:])})


def _huge_sizes():
    """(key, variant, param, value) for every integer parameter of theory and stats."""
    for key in sorted(k for k in VALID if _collected(k) and k.split(".")[0] in HUGE_PACKAGES):
        for variant, row in enumerate(_variants(key)):
            for p in _parameters(key):
                value = row.get(p.name, p.default)
                if p.name != "rng" and _is_int(value, p.annotation) and value is not None:
                    for huge in (10**15, 10**18):
                        yield _param(f"{key}-{variant}-{p.name}={huge:.0e}", key, variant,
                                     p.name, huge)  # fmt: skip


#: Packages whose integer parameters ``test_a_huge_size_is_refused_or_answered`` sweeps.
HUGE_PACKAGES = ("theory", "stats")


@pytest.mark.parametrize("key, variant, param, value", list(_huge_sizes()))
def test_a_huge_size_is_refused_or_answered(key, variant, param, value):
    """A size of 10**15 or 10**18 (a typo) is refused in one line naming a parameter, before
    any work, or answered (closed forms): 30 theory functions met numpy's "array is too big",
    a MemoryError, a loop of hours or an overflow instead (issue 22's bounds, beyond its
    examples)."""
    import signal

    def _late(*_):
        raise TimeoutError(f"{key}({param}={value:.0e}) ran for more than 20 s")

    old = signal.signal(signal.SIGALRM, _late)
    signal.alarm(20)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # an overflow is no answer
            _call(key, variant, {param: value})
    except (TypeError, ValueError) as err:
        msg = str(err)
        assert re.match(r"`\w+(\[[^`\]]*\])?` ", msg) and "\n" not in msg, msg
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- edge cases

_ASYM = np.array([[2.0, 1.0], [0.0, 2.0]])  # asymmetric by 1: not a covariance
_SIM = dict(samples=10, seeds=2, rng=0)

#: (call, exception, message): the issue's examples first (each reproduced before the
#: fix: numpy internals, a bare Python error or a silent NaN), then the other
#: out-of-range, wrong-shape and degenerate inputs. Messages are pinned.
_FIT = "must fit in this machine's memory ("
EDGE_CASES = [
    # sizes are bounded by the memory they need, refused before any work (issue 22)
    (lambda: ml.simulate_chain("V2", "relu", 0.05, 8, 10**9), ValueError, f"`depth` {_FIT}"),
    (lambda: bg.simulate_bussgang_cos2(8, samples=10**12), ValueError, f"`samples` {_FIT}"),
    (lambda: bg.sample_weights((10**6, 10**6)), ValueError, f"`shape` {_FIT}"),
    (
        lambda: __import__("companion.theory.null_classifier", fromlist=["x"]).simulate_null_cos(
            10**7
        ),  # ran on for hours
        ValueError,
        "`d` must keep the work under 1e+11 operations",
    ),
    (
        lambda: lk.round_to_precision([70000.0], "float16"),  # was a silent inf
        ValueError,
        "`x` must round to a finite float16 value (|x| < 65520, half a unit beyond the "
        "largest, 65504); got 70000",
    ),
    (
        lambda: norms.rmsnorm([10**400, 1.0]),  # was a raw OverflowError
        ValueError,
        "`u` must be within the float64 range (|x| <= 1.8e308); got an integer of 401 digits",
    ),
    (
        lambda: bg.bussgang_cos2("gaussian", n=10**400),  # was a raw OverflowError
        ValueError,
        "`n` must be an integer that fits in 64 bits (|x| < 2**63); got ~1e400",
    ),
    (
        lambda: bg.bussgang_cos2("student_t", nu=10**400),  # was a raw OverflowError
        ValueError,
        "`nu` must be within the float64 range (|x| <= 1.8e308); got an integer of 401 digits",
    ),
    (
        lambda: bg.row_cos2(np.complex128(1 + 2j)),  # was a ComplexWarning and a real part
        TypeError,
        "`W` must be a real number or an array of them; got complex128 (a complex value",
    ),
    (lambda: MCEstimate(0.5, -1.0, 10), ValueError, "`stderr` must be >= 0; got -1"),
    (lambda: MCEstimate(math.nan, 0.1, 10), ValueError, "`value` must be finite; got nan"),
    (lambda: MCEstimate(0.5, 0.1, 0), ValueError, "`n` must be an integer >= 1; got 0"),
    (lambda: tr.branch_moments([0.1, 0.2]), TypeError, "`p` must be a real number; got list"),
    (lambda: ml.author_table3("V2", m="abc"), TypeError, "`m` must be an integer; got str"),
    (
        lambda: bg.row_cos2("abc"),
        TypeError,
        "`W` must be a real number or an array of them; got str",
    ),
    (lambda: kl.softmax([]), ValueError, "`z` must have a non-empty last axis; got shape (0,)"),
    (
        lambda: bg.sample_weights((-1, 3)),
        ValueError,
        "`shape` must hold non-negative integers; got (-1, 3)",
    ),
    (lambda: sm.cancellation_bound("x", 0.5), TypeError, "`toy` must be a ResidualToy; got str"),
    (
        lambda: bg.row_cos2(np.zeros((2, 3))),
        ValueError,
        "`W` must have no all-zero rows (cos^2 is 0/0 there); got 2 at rows [0, 1]",
    ),
    (
        lambda: tr.simulate_transverse_ratio(1e-9, 8, **_SIM),
        ValueError,
        "`p` must flip at least one weight in some seed; got p = 1e-09, which flipped none "
        "of the 8 x 8 weights of W1 in 2 seeds",
    ),
    (
        lambda: qz.quantization_error_geometry(np.zeros((3, 3)), samples=10, rng=0),
        ValueError,
        "`W` must have no all-zero rows (cos^2 is 0/0 there); got 3 at rows [0, 1, 2]",
    ),
    (
        lambda: norms.layernorm(np.ones((2, 3)), eps=0.0),
        ValueError,
        "`x` must have no constant rows when eps = 0 (LayerNorm is 0/0 there); got 2",
    ),
    (
        lambda: norms.rmsnorm(np.zeros((2, 3)), eps=0.0),
        ValueError,
        "`u` must have no all-zero rows when eps = 0 (RMSNorm is 0/0 there); got 2",
    ),
    (
        lambda: sr.schur_ratio(_ASYM, [1.0, 0.0]),
        ValueError,
        "`cov` must be symmetric; got an asymmetry of 1",
    ),
    (
        lambda: rf.jacobian_fd_error(np.arange(1.0, 5.0), directions=0),
        ValueError,
        "`directions` must be an integer >= 1; got 0",
    ),
    (
        lambda: norms.layernorm([[1.0, 2.0]], eps=-1e-5),
        ValueError,
        "`eps` must be >= 0; got -1e-05",
    ),
    (lambda: qz.ternary_quantize(np.eye(2), eps=-1.0), ValueError, "`eps` must be >= 0; got -1"),
    (
        lambda: sr.schur_ratio(np.eye(2), [1.0, 0.0], rtol=-1.0),
        ValueError,
        "`rtol` must be >= 0; got -1",
    ),
    (
        lambda: sr.schur_ratios_coordinates(np.eye(2), rtol=-1.0),
        ValueError,
        "`rtol` must be >= 0; got -1",
    ),
    (
        lambda: tr.transverse_ratio_exact("0.1"),
        TypeError,
        "`p` must be a real number or an array of them; got str",
    ),
    # the same zero-flip 0/0 in the other simulations
    (
        lambda: tr.simulate_transverse_ratio_grid([1e-9, 0.5], 8, **_SIM),
        ValueError,
        "`ps` must flip at least one weight in some seed; got p = 1e-09",
    ),
    (
        lambda: ee.simulate_single_layer(1e-9, 8, **_SIM),
        ValueError,
        "`p` must flip at least one weight in some draw; got p = 1e-09",
    ),
    (
        lambda: ml.simulate_chain("V2", "relu", 1e-9, 8, 2, **_SIM),
        ValueError,
        "`p` must flip at least one weight in some seed; got p = 1e-09",
    ),
    (
        lambda: tr.branch_moments(0.0).ratio,
        ValueError,
        "`p` must be > 0 for the ratio (both branches vanish at p = 0); got 0",
    ),
    (
        lambda: stats.ratio_estimate([0.0, 0.0], [1.0, -1.0]),
        ValueError,
        "`den` must have a non-zero sum (the ratio is undefined); got 0",
    ),
    # degenerate matrices and vectors
    (
        lambda: qz.quantization_error_geometry(np.ones((3, 3)), samples=10, rng=0),
        ValueError,
        "`W` must not be exactly representable by the 'sign_absmean' quantiser",
    ),
    (
        lambda: qz.ternary_quantize(np.zeros((2, 2)), eps=0.0),
        ValueError,
        "`W` must not be all zeros when eps = 0 (W / gamma is 0/0); got zeros",
    ),
    (
        lambda: norms.layernorm([[1.0], [2.0]], eps=0.0),  # d = 1: every row is constant
        ValueError,
        "`x` must have no constant rows when eps = 0",
    ),
    (
        lambda: pt.magnitude_delta(np.zeros((2, 2)), 1.0),
        ValueError,
        "`W` must have a non-zero entry to carry a perturbation of norm 1; got all zeros",
    ),
    (
        lambda: pt.independent_noise_delta(np.zeros((2, 2)), 1.0, rng=0),
        ValueError,
        "`W` must have a non-zero entry to carry a perturbation of norm 1; got all zeros",
    ),
    (
        lambda: rf.first_order_output_energy([0.0, 0.0], [1.0, 0.0]),
        ValueError,
        "`u` must be non-zero; got the zero vector",
    ),
    # asymmetric covariances: one rule in every module that takes one
    (lambda: sr.deflate(_ASYM, [1.0, 0.0]), ValueError, "`cov` must be symmetric"),
    (lambda: sr.schur_ratios_coordinates(_ASYM), ValueError, "`cov` must be symmetric"),
    (lambda: lk.bottom_direction(_ASYM), ValueError, "`C` must be symmetric"),
    (lambda: kl.kfac_lift(_ASYM, np.eye(2)), ValueError, "`A` must be symmetric"),
    # out of range, wrong shape, exclusive arguments
    (
        lambda: NullDistribution(8, 0.1, 0.5, 0.6).pdf([0.5, 1.5]),
        ValueError,
        "`c` must be in [0, 1]; got 1.5",
    ),
    (
        lambda: INSTANCES["theory.kfac_lift.KronSpectrum"].vector(4),
        ValueError,
        "`k` must be an integer in [0, 3]; got 4",
    ),
    (
        lambda: INSTANCES["theory.kfac_lift.LNSoftmaxHead"].logits(b=np.zeros(4)),
        ValueError,
        "`b` must have length 5; got length 4",
    ),
    (
        lambda: INSTANCES["theory.kfac_lift.LNSoftmaxHead"].flat_curve_logit_change(
            np.ones(4), [-1.0 / float(INSTANCES["theory.kfac_lift.LNSoftmaxHead"].vstar.sum())]
        ),
        ValueError,
        "`ts` must avoid the pole 1 + t <v*, w> = 0 of the curve",
    ),
    (
        lambda: ml.fit_compounding(_CHAIN, depths=[1, 2, 3]),
        TypeError,
        "`depths` must be None when `data` is a ChainResult (it has its own); got list",
    ),
    (
        lambda: ml.fit_compounding([3.0, 2.0], readout="prenorm"),
        TypeError,
        "`readout` must be None when `data` holds bare values; got 'prenorm'",
    ),
    (
        lambda: pt.sign_flip_delta(np.eye(2), 0.1, mask=np.eye(2, dtype=bool)),
        TypeError,
        "`p` must be None when `mask` is given; got float",
    ),
    (
        lambda: pt.sign_flip_delta(np.eye(2), mask=np.eye(2)),
        TypeError,
        "`mask` must be a boolean array; got an array of dtype float64",
    ),
    (
        lambda: pt.gaussian_weights(2, 2, dtype=np.int32),
        ValueError,
        "`dtype` must be numpy.float32 or numpy.float64; got int32",
    ),
    (
        lambda: lk.round_to_bfloat16([1e39]),
        ValueError,
        "`x` must round to a finite bfloat16 value (|x| < 3.3961775e+38, half a unit beyond "
        "the largest, 3.3895314e+38); got 1e+39",
    ),
    (
        lambda: lk.round_to_precision([3.4e38], "bfloat16"),  # was a silent inf
        ValueError,
        "`x` must round to a finite bfloat16 value (|x| < 3.3961775e+38",
    ),
    (
        lambda: lk.round_to_precision([3.4028236e38], "float32"),  # was a silent inf
        ValueError,
        "`x` must round to a finite float32 value (|x| < 3.4028236e+38",
    ),
    (
        lambda: sm.sigma_min_profile(np.float64(1.0)),
        TypeError,
        "`states` must be a sequence of arrays or GramAccumulators; got float64",
    ),
    (
        lambda: bg.bussgang_cos2("gaussian", n=10, nu="5"),
        TypeError,
        "`nu` must be a real number; got str",
    ),
]


@pytest.mark.parametrize("call, exc, msg", EDGE_CASES, ids=[c[2][:60] for c in EDGE_CASES])
def test_edge_case_is_refused(call, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        call()


def test_documented_edge_results():
    """Degenerate inputs with a well-defined answer get it, with no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a constant non-zero row has a direction: RMSNorm gives sign(c) * gain
        np.testing.assert_array_equal(norms.rmsnorm(np.full((2, 3), -2.0)), -np.ones((2, 3)))
        # with eps > 0 a constant row maps to beta (LayerNorm) and a zero row to 0 (RMSNorm)
        beta = np.array([1.0, -1.0, 2.0])
        np.testing.assert_array_equal(norms.layernorm(np.ones((2, 3)), beta=beta), [beta] * 2)
        np.testing.assert_array_equal(norms.rmsnorm(np.zeros((1, 3)), eps=1e-6), np.zeros((1, 3)))
        # v* = gamma^-1 / ||gamma^-1|| is finite although 1/gamma overflows (or underflows)
        v = lk.inverse_scale_direction([1e-310, 1.0])
        np.testing.assert_array_equal(v, [1.0, 1e-310])
        for g in ([1e-308, 1e-308], [1e308, 1e308]):
            np.testing.assert_allclose(lk.inverse_scale_direction(g), [0.5**0.5] * 2, rtol=1e-15)
        # below half a unit beyond the largest value a cast rounds to the largest (65519 was
        # refused as "outside the float16 range"; 3.4e38 became a silent bfloat16 inf)
        assert lk.round_to_precision([-65519.0], "float16")[0] == -65504.0
        # the largest n is the infinite-width limit (10**400 was a raw OverflowError; it
        # is refused now, as every integer beyond 64 bits)
        assert bg.bussgang_cos2("gaussian", n=2**63 - 1) == bg.bussgang_cos2("gaussian")
        assert lk.round_to_precision([3.3961e38], "bfloat16")[0] == (2 - 2**-7) * 2.0**127
        # a zero target needs no support: the perturbation of an all-zero W is zero
        np.testing.assert_array_equal(pt.magnitude_delta(np.zeros((2, 2)), 0.0), np.zeros((2, 2)))
        # all moments vanish at p = 0 (only their ratio is undefined)
        assert tr.branch_moments(0.0).T_sign == tr.branch_moments(0.0).T_mag == 0
        # rounding-level asymmetry is averaged away, the same in every module
        S = np.array([[2.0, 1.0], [1.0 + 1e-15, 2.0]])
        assert sr.schur_ratio(S, [1.0, 0.0]) == sr.schur_ratio((S + S.T) / 2, [1.0, 0.0])
        assert lk.bottom_direction(S)[0] == lk.bottom_direction((S + S.T) / 2)[0]
        # at width 8 some inputs have an all-dead hidden layer (u = 0, no direction): their
        # change counts as transverse (as in radial_transverse_split), and C stays finite
        r = tr.simulate_transverse_ratio(0.05, 8, **_SIM)
        assert np.isfinite([r.value, r.stderr, r.R_sign.value, r.C_post_norm_fd.value]).all()


@pytest.mark.skipif("llm" not in COLLECTED, reason="companion.llm needs torch")
@pytest.mark.parametrize(
    "call, exc, msg", llm_rows.EDGE_CASES, ids=[c[2][:60] for c in llm_rows.EDGE_CASES]
)
def test_llm_edge_case_is_refused(call, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        _use(call())


@pytest.mark.skipif("llm" not in COLLECTED, reason="companion.llm needs torch")
def test_llm_documented_edge_results():
    a, b = llm_rows.vector_cos2_of_an_array()
    assert a == b and 0 < a.value <= 1
    # (channels, time) audio is resampled along time, each channel alike (was the channel axis)
    from companion.llm.speech import resample

    t = np.arange(22050) / 22050
    two = np.stack([np.sin(2 * np.pi * 440 * t), np.cos(2 * np.pi * 440 * t)])
    out = resample(two, 22050)
    assert out.shape == (2, 16000)
    np.testing.assert_array_equal(out[0], resample(two[0], 22050))


@pytest.mark.parametrize(
    "var, value, call, exc, msg",
    results_rows.ENV_CASES,
    ids=[f"{c[0]}={c[1][:12]}" for c in results_rows.ENV_CASES],
)
def test_environment_variable_is_refused_where_it_is_read(var, value, call, exc, msg, monkeypatch):
    monkeypatch.setenv(var, value)
    with pytest.raises(exc, match=re.escape(msg)):
        call()
