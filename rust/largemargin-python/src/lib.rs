//! largemargin._native: the thin PyO3 layer over the core crate. This module only declares the
//! exported functions and classes; their bodies live in one module per family (`svm`, `search`,
//! `online`, `larank`, `sequence`, `semantic`, `linear`, `linear_svm`, `mixture`, `mlp`, `io`), conversions of Python
//! objects and option names in `convert`, Python objects the core calls back in `adapters`, and
//! running detached from the GIL in `run`.

mod adapters;
mod convert;
mod io;
mod larank;
mod linear;
mod linear_svm;
mod mixture;
mod mlp;
mod online;
mod run;
mod search;
mod semantic;
mod sequence;
mod svm;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // kernel SVMs
    m.add_function(wrap_pyfunction!(svm::fit_svc, m)?)?;
    m.add_function(wrap_pyfunction!(svm::fit_svr, m)?)?;
    m.add_function(wrap_pyfunction!(svm::fit_one_class, m)?)?;
    m.add_function(wrap_pyfunction!(search::cross_validate_svm, m)?)?;
    m.add_function(wrap_pyfunction!(svm::decision_function, m)?)?;
    m.add_function(wrap_pyfunction!(svm::kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(svm::auto_cache_size, m)?)?;
    m.add_function(wrap_pyfunction!(svm::pairwise_probability, m)?)?;
    // online solvers
    m.add_function(wrap_pyfunction!(online::fit_lasvm, m)?)?;
    m.add_function(wrap_pyfunction!(online::fit_online_baseline, m)?)?;
    // LaRank: multiclass, candidate label sets, sequences
    m.add_function(wrap_pyfunction!(larank::fit_larank, m)?)?;
    m.add_function(wrap_pyfunction!(larank::fit_ambiguous, m)?)?;
    m.add_function(wrap_pyfunction!(sequence::fit_sequence, m)?)?;
    m.add_function(wrap_pyfunction!(sequence::predict_sequence, m)?)?;
    // the semantic parser (OSPAS)
    m.add_function(wrap_pyfunction!(semantic::semantic_feature_counts, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::fit_semantic_parser, m)?)?;
    m.add_function(wrap_pyfunction!(semantic::parse_sentences, m)?)?;
    // linear SGD
    m.add_function(wrap_pyfunction!(linear::fit_linear, m)?)?;
    // exact linear SVMs
    m.add_function(wrap_pyfunction!(linear_svm::fit_linear_svc, m)?)?;
    m.add_function(wrap_pyfunction!(linear_svm::fit_linear_svr, m)?)?;
    // mixture of experts
    m.add_function(wrap_pyfunction!(mixture::assign_experts, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_gater, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::gater_gates, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_gmm, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::gmm_log_density, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_platt, m)?)?;
    m.add_class::<mixture::StopSignal>()?;
    // margin MLPs
    m.add_function(wrap_pyfunction!(mlp::fit_simple_mlp, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::simple_mlp_decision, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::fit_nilsson, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::nilsson_decision, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::fit_network, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::network_decision, m)?)?;
    // files
    m.add_function(wrap_pyfunction!(io::write_libsvm_model, m)?)?;
    m.add_function(wrap_pyfunction!(io::read_libsvm_model, m)?)?;
    m.add_function(wrap_pyfunction!(io::write_file_atomically, m)?)?;
    m.add_class::<io::LibsvmReader>()?;
    // the names of every option, from the core
    m.add("OPTIONS", convert::option_names(m.py())?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
