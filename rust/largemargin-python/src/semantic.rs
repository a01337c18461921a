//! Entry points of the semantic parser (OSPAS): online training from candidate MRs, and parsing.
//! Sentences, MRs and bags arrive as int64 index arrays built by `largemargin.semantic.parser`.

use largemargin::runtime::rng::Rng;
use largemargin::solver::ospas::Strategy;
use largemargin::train::semantic_parser::{
    MrPair, ParserParams, ParserShape, SemanticParser, Sentences, Supervision, REL, UNKNOWN_WORD,
};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{index_vec, matrix_array, to_py, usize_array, Wrap};
use crate::run::run_fit;

/// Ids as u32, -1 standing for `minus_one` (the unknown word, the REL role).
fn ids(a: &PyReadonlyArray1<'_, i64>, minus_one: Option<u32>, what: &str) -> PyResult<Vec<u32>> {
    a.as_array()
        .iter()
        .map(|&v| match (v, minus_one) {
            (-1, Some(m)) => Ok(m),
            (v, _) if (0..u32::MAX as i64).contains(&v) => Ok(v as u32),
            _ => Err(PyValueError::new_err(format!("{what} id {v} is out of range"))),
        })
        .collect()
}

fn parser(
    shape: ParserShape, is_rel: &PyReadonlyArray1<'_, bool>, symbol_w: &PyReadonlyArray2<'_, f64>,
    role_w: &PyReadonlyArray2<'_, f64>,
) -> PyResult<SemanticParser> {
    for (w, labels) in [(symbol_w, shape.symbols), (role_w, shape.roles)] {
        if w.shape()[1] != labels {
            return Err(PyValueError::new_err(format!("weights of {} columns, expected {labels}", w.shape()[1])));
        }
    }
    SemanticParser::from_parts(
        shape,
        is_rel.as_array().to_vec(),
        symbol_w.as_array().iter().copied().collect(),
        role_w.as_array().iter().copied().collect(),
    )
    .map_err(to_py)
}

/// How many features the symbol and the role tagger have for this vocabulary and these windows
/// (the rows of their weights), so that the layout is defined in one place.
#[pyfunction]
#[pyo3(signature = (*, words_n, symbols_n, roles_n, symbol_window, role_window))]
pub fn semantic_feature_counts(
    words_n: usize, symbols_n: usize, roles_n: usize, symbol_window: usize, role_window: usize,
) -> PyResult<(usize, usize)> {
    let shape = ParserShape { words: words_n, symbols: symbols_n, roles: roles_n, symbol_window, role_window };
    shape.check().map_err(to_py)?;
    Ok((shape.symbol_features(), shape.role_features()))
}

/// One online pass per epoch over the sentences, from the weights given; returns the new weights
/// and counts.
#[pyfunction]
#[pyo3(signature = (sent_ptr, words, mr_ptr, pair_ptr, pair_symbol, pair_role, bag_ptr, bag_symbol, bag_count, known_symbols, known_roles, rel_since, *, is_rel, symbol_w, role_w, words_n, symbols_n, roles_n, symbol_window, role_window, c, strategy, epochs, seed, rng_state, verbose))]
pub fn fit_semantic_parser<'py>(
    py: Python<'py>, sent_ptr: PyReadonlyArray1<'py, i64>, words: PyReadonlyArray1<'py, i64>,
    mr_ptr: PyReadonlyArray1<'py, i64>, pair_ptr: PyReadonlyArray1<'py, i64>, pair_symbol: PyReadonlyArray1<'py, i64>,
    pair_role: PyReadonlyArray1<'py, i64>, bag_ptr: PyReadonlyArray1<'py, i64>, bag_symbol: PyReadonlyArray1<'py, i64>,
    bag_count: PyReadonlyArray1<'py, i64>, known_symbols: PyReadonlyArray1<'py, i64>,
    known_roles: PyReadonlyArray1<'py, i64>, rel_since: PyReadonlyArray1<'py, i64>,
    is_rel: PyReadonlyArray1<'py, bool>, symbol_w: PyReadonlyArray2<'py, f64>, role_w: PyReadonlyArray2<'py, f64>,
    words_n: usize, symbols_n: usize, roles_n: usize, symbol_window: usize, role_window: usize, c: f64,
    strategy: Wrap<Strategy>, epochs: usize, seed: u64, rng_state: Option<u64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = ParserShape { words: words_n, symbols: symbols_n, roles: roles_n, symbol_window, role_window };
    let mut model = parser(shape, &is_rel, &symbol_w, &role_w)?;
    let (sp, w) = (index_vec(&sent_ptr)?, ids(&words, None, "word")?);
    let (mp, pp) = (index_vec(&mr_ptr)?, index_vec(&pair_ptr)?);
    let (ps, pr) = (ids(&pair_symbol, None, "symbol")?, ids(&pair_role, Some(REL), "role")?);
    if ps.len() != pr.len() {
        return Err(PyValueError::new_err("one role per MR symbol"));
    }
    let pairs: Vec<MrPair> = ps.iter().zip(&pr).map(|(&symbol, &role)| MrPair { symbol, role }).collect();
    let (bp, bs, bc) = (index_vec(&bag_ptr)?, ids(&bag_symbol, None, "symbol")?, ids(&bag_count, None, "count")?);
    if bs.len() != bc.len() {
        return Err(PyValueError::new_err("one count per bag symbol"));
    }
    let bag: Vec<(u32, u32)> = bs.into_iter().zip(bc).collect();
    let (ks, kr) = (ids(&known_symbols, None, "count")?, ids(&known_roles, None, "count")?);
    if ks.len() != kr.len() {
        return Err(PyValueError::new_err("one count of known symbols and roles per sentence"));
    }
    let known: Vec<(u32, u32)> = ks.into_iter().zip(kr).collect();
    let since = ids(&rel_since, Some(u32::MAX), "sentence")?;
    let params = ParserParams { c, strategy: strategy.0, epochs };
    // a call that continues a stream goes on with the generator where the last one left it
    let mut rng = rng_state.map_or_else(|| Rng::new(seed), Rng::resume);
    let (stats, model) = run_fit(py, Some(1), verbose.then_some("semantic parser fit"), None, |ctl| {
        let sentences = Sentences { ptr: &sp, words: &w };
        let sup = Supervision {
            mr_ptr: &mp,
            pair_ptr: &pp,
            pairs: &pairs,
            bag_ptr: &bp,
            bag: &bag,
            known: &known,
            rel_since: &since,
        };
        let stats = model.train(&sentences, &sup, &params, &mut rng, ctl)?;
        Ok((stats, model))
    })?;
    let d = PyDict::new(py);
    let (sw, rw) = model.into_weights();
    d.set_item("symbol_w", matrix_array(py, sw, shape.symbol_features(), shape.symbols)?)?;
    d.set_item("role_w", matrix_array(py, rw, shape.role_features(), shape.roles)?)?;
    d.set_item("sentences", stats.sentences)?;
    d.set_item("symbol_updates", stats.symbol.updates)?;
    d.set_item("symbol_tries", stats.symbol.tries)?;
    d.set_item("role_updates", stats.role.updates)?;
    d.set_item("role_tries", stats.role.tries)?;
    d.set_item("role_passes", stats.role_passes)?;
    d.set_item("rng_state", rng.state())?;
    Ok(d)
}

/// Parses sentences (word id -1: unknown): each word's symbol, and the MRs as CSR index arrays
/// (role -1: REL).
#[pyfunction]
#[pyo3(signature = (sent_ptr, words, *, is_rel, symbol_w, role_w, words_n, symbols_n, roles_n, symbol_window, role_window, n_jobs))]
pub fn parse_sentences<'py>(
    py: Python<'py>, sent_ptr: PyReadonlyArray1<'py, i64>, words: PyReadonlyArray1<'py, i64>,
    is_rel: PyReadonlyArray1<'py, bool>, symbol_w: PyReadonlyArray2<'py, f64>, role_w: PyReadonlyArray2<'py, f64>,
    words_n: usize, symbols_n: usize, roles_n: usize, symbol_window: usize, role_window: usize, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = ParserShape { words: words_n, symbols: symbols_n, roles: roles_n, symbol_window, role_window };
    let model = parser(shape, &is_rel, &symbol_w, &role_w)?;
    let (sp, w) = (index_vec(&sent_ptr)?, ids(&words, Some(UNKNOWN_WORD), "word")?);
    let parses = run_fit(py, n_jobs, None, None, |ctl| model.parse(&Sentences { ptr: &sp, words: &w }, ctl))?;
    let (mut alignment, mut mr_ptr, mut pair_ptr, mut symbol, mut role) =
        (vec![], vec![0usize], vec![0usize], vec![], vec![]);
    for p in &parses {
        alignment.extend(p.alignment.iter().map(|&s| s as usize));
        for mr in &p.mrs {
            for q in mr {
                symbol.push(q.symbol as i64);
                role.push(if q.role == REL { -1 } else { q.role as i64 });
            }
            pair_ptr.push(symbol.len());
        }
        mr_ptr.push(pair_ptr.len() - 1);
    }
    let d = PyDict::new(py);
    d.set_item("alignment", usize_array(py, &alignment))?;
    d.set_item("mr_ptr", usize_array(py, &mr_ptr))?;
    d.set_item("pair_ptr", usize_array(py, &pair_ptr))?;
    d.set_item("pair_symbol", PyArray1::from_vec(py, symbol))?;
    d.set_item("pair_role", PyArray1::from_vec(py, role))?;
    Ok(d)
}
