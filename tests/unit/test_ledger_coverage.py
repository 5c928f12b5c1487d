"""The ledger page says that every claim of both papers is one entry: this list of the specs'
claims (``shared/papers``: every numbered result, every experiment, every number of the
abstracts) pins it, and every id named here must be registered."""

from companion import ledger

COVERAGE = {
    # Dong (2026)
    "Fact 1 (Bussgang constant)": ["dong.fact1"],
    "Prop 1(a) energy equality": ["dong.prop1.energy"],
    "Prop 1(b, c) single layer": ["dong.prop1.single_layer"],
    "Prop 1(d) hidden radial fractions": ["dong.prop1.hidden_radial"],
    "RMSNorm Fréchet derivative": ["dong.rmsnorm_jacobian"],
    "Thm 3 limit": ["dong.thm3.limit", "dong.thm3.small_p"],
    "Thm 3 finite p": ["dong.thm3.finite_p"],
    "Table 2": ["dong.thm3.table2", "dong.thm3.author_code"],
    "Thm 3 hidden = output": ["dong.thm3.hidden_equals_output"],
    "Thm 3 post-norm trap (V0/V2 3.6)": ["dong.thm3.post_norm_trap"],
    "Thm 4": ["dong.thm4.cos2", "dong.thm4.radial_pre", "dong.thm4.radial_post"],
    "multi-layer conjecture (V2, V3)": ["dong.multilayer.no_compounding"],
    "Exp B (trained chains)": ["dong.expB.trained_chains"],
    "leverage R ≈ nα²": ["dong.leverage.pre_relu", "dong.leverage.post_relu"],
    "leverage formula 123.2": ["dong.leverage.formula"],
    "Table 1 (our model)": ["dong.real.cos2_table1"],
    "Table 1 (the paper's models)": ["dong.real.table1_models"],
    "Exp D 5.0×": ["dong.real.outlier_nll_ratio_rescaled", "dong.real.outlier_nll_ratio_flips"],
    "Exp D outlier columns carry the sensitivity": ["dong.real.outlier_vs_random_columns"],
    "Exp D PPL ratio, metric nonlinearity": ["dong.real.expD_ppl_ratio"],
    "Exp E plateau ≈ 10×": ["dong.real.count_matched_leverage"],
    "Exp E nonlinear at 5%": ["dong.real.leverage_nonlinear"],
    "Exp F Spearman": ["dong.real.alpha_energy_spearman"],
    "abstract α median 0.024, max 0.26": ["dong.abstract.alpha_stats"],
    "Exp G column flips": ["dong.real.column_flip_spearman"],
    "sign flips vs magnitude on a real model": [
        "dong.real.sign_vs_magnitude",
        "dong.real.magnitude_decomposition",
    ],
    "R_col ≤ 19": ["dong.abstract.rcol_19"],
    "67× PPL gap": ["dong.abstract.ppl_gap_67"],
    # Shirodkar & Narayanan (2026)
    "T1 LayerNorm kernel (synthetic)": ["shirodkar.ln_kernel"],
    "T1 at random init (9/9 LN models)": ["shirodkar.init_alignment_ln"],
    "T1 on a trained LayerNorm": ["shirodkar.trained_kernel_ln"],
    "T2 RMSNorm has no kernel (witness)": ["shirodkar.rms_no_kernel"],
    "T2 at random init (5/5 RMS models)": ["shirodkar.init_absent_rms"],
    "RMSNorm mean |cos| ≈ 0.015": ["shirodkar.rms_mean_cos"],
    "null |cos| ≤ 0.10": ["shirodkar.null_cos"],
    "bf16 rounding": ["shirodkar.bf16_floor"],
    "FP64 accumulation": ["shirodkar.fp64_accumulation"],
    "T5 K-FAC lift": ["shirodkar.kfac_lift"],
    "T3 post-LN σ_min = 0": ["shirodkar.post_ln_sigma_min_zero"],
    "T4 toy": ["shirodkar.sigma_min_residual"],
    "T4 data-matrix condition": ["shirodkar.sigma_min_condition"],
    "T4 on models, block to block": ["shirodkar.sigma_min_models"],
    "T4 13/14 and Gemma 4-31B": ["shirodkar.sigma_min_paper", "shirodkar.sigma_min_split"],
    "Schur ratio baseline": ["shirodkar.schur_baseline"],
    "Schur ratio at init (0–0.3)": ["shirodkar.schur_init"],
    "Schur ratio trained (→ 1)": ["shirodkar.schur_trained"],
    "deepening ~10³": ["shirodkar.trained_deepening"],
    "further dead directions": ["shirodkar.further_dead_directions"],
    "T6 classifier (ours)": ["shirodkar.classifier"],
    "T6 classifier (the paper's 14)": ["shirodkar.classifier_paper"],
    "Pythia trajectory ≥ 0.998": ["shirodkar.pythia_trajectory"],
    "trained vision models": ["shirodkar.trained_vision"],
}


def test_every_claim_of_the_specs_is_an_entry():
    ids = {c.id for c in ledger.all_claims()}
    missing = {k: [i for i in v if i not in ids] for k, v in COVERAGE.items()}
    missing = {k: v for k, v in missing.items() if v}
    assert not missing, missing


def test_the_ledger_holds_at_least_ten_more_entries_than_before_issue_10():
    assert len(ledger.all_claims()) >= 30 + 10
