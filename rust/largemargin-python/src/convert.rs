//! All conversions between Python objects and core types live here: matrices, kernel
//! specifications, index and result arrays, linear models' states, errors, and the options
//! Python passes by name (`Wrap`). The rest of the binding crate never touches raw Python data.

use std::str::FromStr;
use std::sync::Arc;

use largemargin::data::{CsrView, DenseView, Matrix};
use largemargin::error::UnknownName;
use largemargin::kernel::{Composite, KernelKind, Term};
use largemargin::mixture::GaterTask;
use largemargin::mlp::{Criterion, OptimizerKind};
use largemargin::model::SvmType;
use largemargin::sequence::Inference;
use largemargin::solver::dcd::{SvcLoss, SvrLoss};
use largemargin::solver::isda::BiasKind;
use largemargin::solver::larank::sequence::SeqMethodKind;
use largemargin::solver::larank::{Clock, MethodKind, ScheduleKind};
use largemargin::solver::online::lasvm::SelectionKind;
use largemargin::solver::ospas::Strategy;
use largemargin::solver::sgd::asgd::Averaged;
use largemargin::solver::sgd::loss::MarginLoss;
use largemargin::solver::sgd::{Algorithm, LinearModel, Store};
use largemargin::solver::smo::Selection;
use largemargin::train::lasvm::BaselineKind;
use largemargin::train::linear_svm::{LinearSolver, MultiClass};
use largemargin::train::search::WarmStart;
use largemargin::train::svm::DualSolverKind;
use largemargin::{Error, KernelSpec};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::adapters::PyKernel;

/// An option Python passes by name, as the core type it names: a pyfunction argument
/// `clock: Wrap<Clock>` takes "cost" or "wall". Another string is a ValueError naming the values
/// taken (PyO3 adds a note naming the argument), anything else a TypeError.
pub struct Wrap<T>(pub T);

impl<'a, 'py, T: FromStr<Err = UnknownName>> FromPyObject<'a, 'py> for Wrap<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let name = obj.cast::<PyString>()?;
        parse(&name.to_cow()?).map(Wrap)
    }
}

/// An option's value from its name, an unknown name being a ValueError.
pub fn parse<T: FromStr<Err = UnknownName>>(name: &str) -> PyResult<T> {
    name.parse().map_err(|e: UnknownName| PyValueError::new_err(e.to_string()))
}

/// A feature matrix handed over by Python: a C-contiguous 2-D float32/float64 array, or a CSR
/// triple (indptr int64, indices int32, data float32/float64) with its column count.
pub enum PyMatrix<'py> {
    D32(PyReadonlyArray2<'py, f32>),
    D64(PyReadonlyArray2<'py, f64>),
    S32(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f32>, usize),
    S64(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f64>, usize),
}

/// The elements of a 2-D array in row-major order, without a copy. Only a C-contiguous array has
/// them so: a Fortran-ordered one is contiguous too (numpy's `as_slice` accepts it) but its memory
/// is column-major, and read as rows it would silently be another matrix.
pub fn row_major<'a, T: numpy::Element>(a: &'a PyReadonlyArray2<'_, T>, what: &str) -> PyResult<&'a [T]> {
    let not_c = || {
        PyValueError::new_err(format!(
            "{what} must be a C-contiguous (row-major) array; copy it with numpy.ascontiguousarray"
        ))
    };
    if !a.is_c_contiguous() {
        return Err(not_c());
    }
    a.as_slice().map_err(|_| not_c())
}

fn contiguous<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{what} must be C-contiguous")))
}

impl<'py> PyMatrix<'py> {
    pub fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f64>>() {
            return Ok(PyMatrix::D64(a));
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f32>>() {
            return Ok(PyMatrix::D32(a));
        }
        if let Ok((indptr, indices, data, cols)) =
            obj.extract::<(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f64>, usize)>()
        {
            return Ok(PyMatrix::S64(indptr, indices, data, cols));
        }
        if let Ok((indptr, indices, data, cols)) =
            obj.extract::<(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f32>, usize)>()
        {
            return Ok(PyMatrix::S32(indptr, indices, data, cols));
        }
        Err(PyValueError::new_err(
            "expected a C-contiguous 2-D float32/float64 array or a CSR triple (indptr int64, indices int32, data float)",
        ))
    }

    pub fn view(&self) -> PyResult<Matrix<'_>> {
        fn dense<'a, T: numpy::Element + largemargin::data::Real>(
            a: &'a PyReadonlyArray2<'_, T>,
        ) -> PyResult<DenseView<'a, T>> {
            let shape = a.shape();
            let data = row_major(a, "a feature matrix")?;
            DenseView::new(data, shape[0], shape[1]).map_err(to_py)
        }
        Ok(match self {
            PyMatrix::D32(a) => Matrix::Dense32(dense(a)?),
            PyMatrix::D64(a) => Matrix::Dense64(dense(a)?),
            PyMatrix::S32(p, i, d, c) => Matrix::Csr32(
                CsrView::new(contiguous(p, "indptr")?, contiguous(i, "indices")?, contiguous(d, "data")?, *c)
                    .map_err(to_py)?,
            ),
            PyMatrix::S64(p, i, d, c) => Matrix::Csr64(
                CsrView::new(contiguous(p, "indptr")?, contiguous(i, "indices")?, contiguous(d, "data")?, *c)
                    .map_err(to_py)?,
            ),
        })
    }
}

/// The names every option takes, as the core defines them (`NAMES` of each enum; the aliases a
/// few also read are left out): exported as `largemargin._native.OPTIONS`, so that Python checks
/// its parameters against the names the core reads rather than a copy of them.
pub fn option_names(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (key, names) in [
        ("kernel", KernelKind::NAMES),
        ("solver", DualSolverKind::NAMES),
        ("isda_bias", BiasKind::NAMES),
        ("smo_selection", Selection::NAMES),
        ("warm_start", WarmStart::NAMES),
        ("lasvm_selection", SelectionKind::NAMES),
        ("online_algorithm", BaselineKind::NAMES),
        ("larank_method", MethodKind::NAMES),
        ("larank_schedule", ScheduleKind::NAMES),
        ("larank_clock", Clock::NAMES),
        ("sequence_method", SeqMethodKind::NAMES),
        ("sequence_inference", Inference::NAMES),
        ("sgd_algorithm", Algorithm::NAMES),
        ("loss", MarginLoss::NAMES),
        ("gater_task", GaterTask::NAMES),
        ("mlp_criterion", Criterion::NAMES),
        ("mlp_optimizer", OptimizerKind::NAMES),
        ("svm_type", SvmType::NAMES),
        ("linear_svc_loss", SvcLoss::NAMES),
        ("linear_svr_loss", SvrLoss::NAMES),
        ("multi_class", MultiClass::NAMES),
        ("linear_solver", LinearSolver::NAMES),
        ("ospas_strategy", Strategy::NAMES),
    ] {
        d.set_item(key, PyTuple::new(py, names)?)?;
    }
    Ok(d)
}

/// The kernel argument of the fitting functions: a built-in kernel's name (with gamma, coef0 and
/// degree), a composed kernel as a list of terms `(weight, [(name, gamma, coef0, degree), ...])`,
/// or an object computing rows itself (`largemargin.plugins.TrainingKernel`), returned as well so
/// its failures can be collected.
pub fn kernel_from_py(
    kernel: &Bound<'_, PyAny>, gamma: f64, coef0: f64, degree: i64,
) -> PyResult<(KernelSpec, Option<Arc<PyKernel>>)> {
    if let Ok(name) = kernel.cast::<PyString>() {
        return Ok((kernel_spec(parse(&name.to_cow()?)?, gamma, coef0, degree)?, None));
    }
    if let Ok(terms) = kernel.cast::<PyList>() {
        let mut out = Vec::with_capacity(terms.len());
        for term in terms.iter() {
            let (weight, factors): (f64, Vec<(String, f64, f64, i64)>) = term.extract().map_err(|_| {
                PyValueError::new_err("a composed kernel is a list of (weight, [(name, gamma, coef0, degree), ...])")
            })?;
            let factors =
                factors.iter().map(|(n, g, c, d)| kernel_spec(parse(n)?, *g, *c, *d)).collect::<PyResult<Vec<_>>>()?;
            out.push(Term { weight, factors });
        }
        return Ok((KernelSpec::Composite(Arc::new(Composite::new(out).map_err(to_py)?)), None));
    }
    let k = PyKernel::new(kernel)?;
    Ok((KernelSpec::External(k.clone()), Some(k)))
}

/// A built-in kernel with its parameters, checked (degree is read by the polynomial kernel only).
pub fn kernel_spec(kind: KernelKind, gamma: f64, coef0: f64, degree: i64) -> PyResult<KernelSpec> {
    if kind == KernelKind::Poly && degree < 0 {
        return Err(PyValueError::new_err(format!("degree must be non-negative, got {degree}")));
    }
    let spec = kind.with(gamma, coef0, degree as u32);
    spec.validate().map_err(to_py)?;
    Ok(spec)
}

/// The cache budget in bytes from `cache_size` in MB.
pub fn cache_bytes(cache_size: f64) -> PyResult<usize> {
    if !(cache_size > 0.0 && cache_size.is_finite()) {
        return Err(PyValueError::new_err(format!("cache_size must be positive (MB), got {cache_size}")));
    }
    Ok((cache_size * 1048576.0) as usize)
}

/// Class (or other) indices from Python, each non-negative.
pub fn index_vec(y: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    y.as_array()
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| PyValueError::new_err("class indices must be non-negative")))
        .collect()
}

/// Indices as an int64 array.
pub fn usize_array<'py>(py: Python<'py>, v: &[usize]) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, v.iter().map(|&x| x as i64).collect())
}

/// A row-major `rows` x `cols` float64 array.
pub fn matrix_array<'py>(py: Python<'py>, v: Vec<f64>, rows: usize, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(v.into_pyarray(py).reshape([rows, cols])?.into_any())
}

/// Core errors as Python exceptions: data and parameter problems are ValueError.
pub fn to_py(e: Error) -> PyErr {
    match e.cause() {
        Error::Interrupted => PyKeyboardInterrupt::new_err("fit interrupted"),
        Error::Io(_) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The linear models of a fit, from what Python keeps between fits: `coef` (n_problems x d
/// float64, the models' weights; None: zero models over `d` features) and the optimiser's `state`,
/// a dict with one entry per problem (`bias`, `t`, `count`, `r`, `update_scale`) and, where a
/// fit kept them, per-feature rows (`scale` and `previous` float32 for SGD-QN, `asgd_u` and
/// `asgd_a` float64 for ASGD, with `asgd`'s five scalars; width 0 when not kept). Each model's float64 weights
/// live in its row of `out` (n_problems x d, zeros), the fit's output: `coef` is copied there.
pub fn linear_models_from_py<'w>(
    state: &Bound<'_, PyDict>, coef: Option<PyReadonlyArray2<'_, f64>>, d: usize, algorithm: Algorithm,
    out: &'w mut [f64],
) -> PyResult<Vec<LinearModel<'w>>> {
    fn item<'py>(state: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        state.get_item(key)?.ok_or_else(|| PyValueError::new_err(format!("the linear state lacks '{key}'")))
    }
    let bias: Vec<f64> = item(state, "bias")?.extract()?;
    let t: Vec<f64> = item(state, "t")?.extract()?;
    let count: Vec<u64> = item(state, "count")?.extract()?;
    let r: Vec<f64> = item(state, "r")?.extract()?;
    let update: Vec<bool> = item(state, "update_scale")?.extract()?;
    let optional = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> { state.get_item(key) };
    let scale: Option<PyReadonlyArray2<f32>> = optional("scale")?.map(|v| v.extract()).transpose()?;
    let previous: Option<PyReadonlyArray2<f32>> = optional("previous")?.map(|v| v.extract()).transpose()?;
    let iterate: Option<PyReadonlyArray2<f64>> = optional("asgd_u")?.map(|v| v.extract()).transpose()?;
    let average: Option<PyReadonlyArray2<f64>> = optional("asgd_a")?.map(|v| v.extract()).transpose()?;
    let scalars: Option<PyReadonlyArray2<f64>> = optional("asgd")?.map(|v| v.extract()).transpose()?;
    let k = bias.len();
    if [t.len(), count.len(), r.len(), update.len()].iter().any(|&v| v != k) {
        return Err(PyValueError::new_err("the linear state's arrays differ in their number of problems"));
    }
    // per-feature rows: one per problem, each of width d, or none kept (width 0)
    let kept = |a: Option<(usize, usize)>, what: &str| -> PyResult<bool> {
        match a {
            None | Some((_, 0)) => Ok(false),
            Some((rows, cols)) if rows == k && cols == d => Ok(true),
            Some((rows, cols)) => Err(PyValueError::new_err(format!(
                "the linear state's '{what}' is {rows} x {cols}, not {k} problems x {d} features"
            ))),
        }
    };
    let shape = |a: &PyReadonlyArray2<'_, f32>| (a.shape()[0], a.shape()[1]);
    let has_scale = kept(scale.as_ref().map(shape), "scale")?;
    let has_previous = kept(previous.as_ref().map(shape), "previous")?;
    let has_iterate = kept(iterate.as_ref().map(|a| (a.shape()[0], a.shape()[1])), "asgd_u")?
        & kept(average.as_ref().map(|a| (a.shape()[0], a.shape()[1])), "asgd_a")?;
    if scalars.as_ref().is_some_and(|a| a.shape() != [k, 5]) {
        return Err(PyValueError::new_err("the linear state's 'asgd' needs 5 values per problem"));
    }
    if let Some(c) = &coef {
        if c.shape() != [k, d] {
            return Err(PyValueError::new_err(format!(
                "the coefficients are {} x {}, not {k} problems x {d} features",
                c.shape()[0],
                c.shape()[1]
            )));
        }
    }
    if out.len() != k * d {
        return Err(PyValueError::new_err("the output has the wrong size"));
    }
    let coef = coef.as_ref().map(|c| c.as_array());
    let mut models = Vec::with_capacity(k);
    for (p, row) in out.chunks_mut(d.max(1)).take(k).enumerate() {
        let row = if d == 0 { &mut row[..0] } else { row };
        if let Some(c) = &coef {
            row.iter_mut().zip(c.row(p)).for_each(|(o, &v)| *o = v);
        }
        let mut m = LinearModel::zero(if algorithm == Algorithm::Asgd { 0 } else { d }, Store::Row(row));
        if algorithm != Algorithm::Asgd {
            if let Some(c) = &coef {
                // float64 -> float32 is exact for weights that came from float32
                m.w.iter_mut().zip(c.row(p)).for_each(|(w, &v)| *w = v as f32);
            }
        } else if has_iterate {
            let s = scalars.as_ref().map(|a| a.as_array());
            let at = |j: usize, default: f64| s.as_ref().map_or(default, |s| s[[p, j]]);
            let (u, a) = (iterate.as_ref().map(|a| a.as_array()), average.as_ref().map(|a| a.as_array()));
            let ua = match (u, a) {
                (Some(u), Some(a)) => u.row(p).iter().zip(a.row(p)).map(|(&u, &a)| [u, a]).collect(),
                _ => Vec::new(),
            };
            m.averaged = Averaged {
                ua,
                divisor: at(0, 1.0),
                coef: at(1, 0.0),
                norm: at(2, 1.0),
                bias: at(3, bias[p]),
                count: at(4, 0.0),
            };
        }
        (m.bias, m.t, m.count, m.r, m.update_scale) = (bias[p], t[p], count[p], r[p], update[p]);
        if has_scale {
            m.scale = scale.as_ref().map(|a| a.as_array().row(p).to_vec()).unwrap_or_default();
        }
        if has_previous {
            m.previous = previous.as_ref().map(|a| a.as_array().row(p).to_vec()).unwrap_or_default();
        }
        models.push(m);
    }
    Ok(models)
}

/// The optimiser's state of released models (see `linear_models_from_py`; their weights are the
/// fit's output, not here): per-feature rows of width 0 where none was kept.
pub fn linear_models_to_py<'py>(py: Python<'py>, models: &[LinearModel<'_>]) -> PyResult<Bound<'py, PyDict>> {
    let k = models.len();
    let rows32 = |f: &dyn for<'m> Fn(&'m LinearModel<'_>) -> &'m [f32]| -> PyResult<Bound<'py, PyAny>> {
        let width = models.iter().map(|m| f(m).len()).max().unwrap_or(0);
        if models.iter().any(|m| f(m).len() != width) {
            return Err(PyValueError::new_err("the models' state rows differ in width"));
        }
        let flat: Vec<f32> = models.iter().flat_map(|m| f(m).iter().copied()).collect();
        Ok(flat.into_pyarray(py).reshape([k, width])?.into_any())
    };
    let state = PyDict::new(py);
    state.set_item("scale", rows32(&|m| &m.scale)?)?;
    state.set_item("previous", rows32(&|m| &m.previous)?)?;
    state.set_item("bias", models.iter().map(|m| m.bias).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("t", models.iter().map(|m| m.t).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("count", models.iter().map(|m| m.count).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("r", models.iter().map(|m| m.r).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("update_scale", models.iter().map(|m| m.update_scale).collect::<Vec<_>>())?;
    let width = models.iter().map(|m| m.averaged.ua.len()).max().unwrap_or(0);
    if models.iter().any(|m| m.averaged.ua.len() != width) {
        return Err(PyValueError::new_err("the models' state rows differ in width"));
    }
    for (key, side) in [("asgd_u", 0), ("asgd_a", 1)] {
        let flat: Vec<f64> = models.iter().flat_map(|m| m.averaged.ua.iter().map(move |p| p[side])).collect();
        state.set_item(key, flat.into_pyarray(py).reshape([k, width])?)?;
    }
    let scalars: Vec<f64> = models
        .iter()
        .flat_map(|m| {
            let a = &m.averaged;
            [a.divisor, a.coef, a.norm, a.bias, a.count]
        })
        .collect();
    state.set_item("asgd", scalars.into_pyarray(py).reshape([k, 5])?)?;
    Ok(state)
}
