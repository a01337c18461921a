//! All conversions between Python objects and core types live here: matrices, kernel
//! specifications, linear models' states and errors. The rest of the binding crate never touches raw Python data.
//! This module also holds the parsing of every option string the Python side passes (kernel,
//! solver, selection, method, schedule, clock, loss, criterion... names; see "Option strings"),
//! each into its core type with the error Python sees for an unknown name.

use std::sync::Arc;

use largemargin::data::{CsrView, DenseView, Matrix};
use largemargin::kernel::{Composite, Term};
use largemargin::mixture::GaterTask;
use largemargin::mlp::{Criterion, Optimizer};
use largemargin::model::SvmType;
use largemargin::sequence::Inference;
use largemargin::solver::isda::Bias;
use largemargin::solver::larank::sequence::SeqMethod;
use largemargin::solver::larank::{Clock, Method, Schedule};
use largemargin::solver::online::lasvm::{
    ActiveSelection, AutoActiveSelection, GradientSelection, RandomSelection, SelectionStrategy,
};
use largemargin::solver::online::perceptron::PerceptronRule;
use largemargin::solver::sgd::asgd::Averaged;
use largemargin::solver::sgd::loss::MarginLoss;
use largemargin::solver::sgd::{Algorithm, LinearModel};
use largemargin::solver::smo::Selection;
use largemargin::train::lasvm::Baseline;
use largemargin::train::svm::DualSolver;
use largemargin::{Error, KernelSpec};
use pyo3::types::{PyDict, PyList, PyString};

use crate::adapters::PyKernel;
use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;

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

/// The kernel argument of the fitting functions: a built-in kernel's name (with gamma, coef0 and
/// degree), a composed kernel as a list of terms `(weight, [(name, gamma, coef0, degree), ...])`,
/// or an object computing rows itself (`largemargin.plugins.TrainingKernel`), returned as well so
/// its failures can be collected.
pub fn kernel_from_py(
    kernel: &Bound<'_, PyAny>, gamma: f64, coef0: f64, degree: i64,
) -> PyResult<(KernelSpec, Option<Arc<PyKernel>>)> {
    if let Ok(name) = kernel.cast::<PyString>() {
        return Ok((kernel_spec(&name.to_cow()?, gamma, coef0, degree)?, None));
    }
    if let Ok(terms) = kernel.cast::<PyList>() {
        let mut out = Vec::with_capacity(terms.len());
        for term in terms.iter() {
            let (weight, factors): (f64, Vec<(String, f64, f64, i64)>) = term.extract().map_err(|_| {
                PyValueError::new_err("a composed kernel is a list of (weight, [(name, gamma, coef0, degree), ...])")
            })?;
            let factors =
                factors.iter().map(|(n, g, c, d)| kernel_spec(n, *g, *c, *d)).collect::<PyResult<Vec<_>>>()?;
            out.push(Term { weight, factors });
        }
        return Ok((KernelSpec::Composite(Arc::new(Composite::new(out).map_err(to_py)?)), None));
    }
    let k = PyKernel::new(kernel)?;
    Ok((KernelSpec::External(k.clone()), Some(k)))
}

/// Core errors as Python exceptions: data and parameter problems are ValueError.
pub fn to_py(e: Error) -> PyErr {
    match e.cause() {
        Error::Interrupted => PyKeyboardInterrupt::new_err("fit interrupted"),
        Error::Io(_) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The optimiser states of linear models, as Python keeps them between fits: a dict of arrays with
/// one row per binary problem (`w` and `scale` float32, `scale` of width 0 until SGD-QN runs).
pub fn linear_models_from_py(state: &Bound<'_, PyDict>) -> PyResult<Vec<LinearModel>> {
    fn item<'py>(state: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        state.get_item(key)?.ok_or_else(|| PyValueError::new_err(format!("the linear state lacks '{key}'")))
    }
    let w: PyReadonlyArray2<f32> = item(state, "w")?.extract()?;
    let scale: PyReadonlyArray2<f32> = item(state, "scale")?.extract()?;
    let bias: Vec<f64> = item(state, "bias")?.extract()?;
    let t: Vec<f64> = item(state, "t")?.extract()?;
    let count: Vec<u64> = item(state, "count")?.extract()?;
    let r: Vec<f64> = item(state, "r")?.extract()?;
    let update: Vec<bool> = item(state, "update_scale")?.extract()?;
    // (SGD-QN's previous weights and ASGD's state: absent from a state saved before they existed)
    let optional = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> { state.get_item(key) };
    let previous: Option<PyReadonlyArray2<f32>> = optional("previous")?.map(|v| v.extract()).transpose()?;
    let iterate: Option<PyReadonlyArray2<f64>> = optional("asgd_u")?.map(|v| v.extract()).transpose()?;
    let average: Option<PyReadonlyArray2<f64>> = optional("asgd_a")?.map(|v| v.extract()).transpose()?;
    let scalars: Option<PyReadonlyArray2<f64>> = optional("asgd")?.map(|v| v.extract()).transpose()?;
    let (w, scale) = (w.as_array(), scale.as_array());
    let k = w.nrows();
    let rows_of = |a: Option<usize>| a.is_some_and(|v| v != k);
    if [scale.nrows(), bias.len(), t.len(), count.len(), r.len(), update.len()].iter().any(|&v| v != k)
        || rows_of(previous.as_ref().map(|a| a.as_array().nrows()))
        || rows_of(iterate.as_ref().map(|a| a.as_array().nrows()))
        || rows_of(average.as_ref().map(|a| a.as_array().nrows()))
        || rows_of(scalars.as_ref().map(|a| a.as_array().nrows()))
        || scalars.as_ref().is_some_and(|a| a.as_array().ncols() != 5)
    {
        return Err(PyValueError::new_err("the linear state's arrays differ in their number of problems"));
    }
    Ok((0..k)
        .map(|p| LinearModel {
            w: w.row(p).to_vec(),
            bias: bias[p],
            t: t[p],
            count: count[p],
            scale: scale.row(p).to_vec(),
            r: r[p],
            update_scale: update[p],
            previous: previous.as_ref().map_or_else(Vec::new, |a| a.as_array().row(p).to_vec()),
            averaged: match (&iterate, &average, &scalars) {
                (Some(u), Some(a), Some(s)) => {
                    let s = s.as_array();
                    Averaged {
                        ua: u.as_array().row(p).iter().zip(a.as_array().row(p)).map(|(&u, &a)| [u, a]).collect(),
                        divisor: s[[p, 0]],
                        coef: s[[p, 1]],
                        norm: s[[p, 2]],
                        bias: s[[p, 3]],
                        count: s[[p, 4]],
                    }
                }
                _ => Averaged::default(),
            },
        })
        .collect())
}

pub fn linear_models_to_py<'py>(py: Python<'py>, models: &[LinearModel]) -> PyResult<Bound<'py, PyDict>> {
    let k = models.len();
    let d = models.first().map_or(0, |m| m.w.len());
    let width = models.first().map_or(0, |m| m.scale.len());
    let rows = |f: &dyn Fn(&LinearModel) -> &[f32], cols: usize| -> PyResult<Bound<'py, PyAny>> {
        let flat: Vec<f32> = models.iter().flat_map(|m| f(m).iter().copied()).collect();
        Ok(flat.into_pyarray(py).reshape([k, cols])?.into_any())
    };
    let state = PyDict::new(py);
    state.set_item("w", rows(&|m| &m.w, d)?)?;
    state.set_item("scale", rows(&|m| &m.scale, width)?)?;
    state.set_item("bias", models.iter().map(|m| m.bias).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("t", models.iter().map(|m| m.t).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("count", models.iter().map(|m| m.count).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("r", models.iter().map(|m| m.r).collect::<Vec<_>>().into_pyarray(py))?;
    state.set_item("update_scale", models.iter().map(|m| m.update_scale).collect::<Vec<_>>())?;
    let width = models.first().map_or(0, |m| m.previous.len());
    state.set_item("previous", rows(&|m| &m.previous, width)?)?;
    let width = models.first().map_or(0, |m| m.averaged.ua.len());
    let rows64 = |side: usize| -> PyResult<Bound<'py, PyAny>> {
        let flat: Vec<f64> = models.iter().flat_map(|m| m.averaged.ua.iter().map(move |p| p[side])).collect();
        Ok(flat.into_pyarray(py).reshape([k, width])?.into_any())
    };
    state.set_item("asgd_u", rows64(0)?)?;
    state.set_item("asgd_a", rows64(1)?)?;
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

// Option strings: every name the Python side passes for an option is parsed here, into the core's
// type, with the error Python sees for a name it does not know.

/// Kernel from its scikit-learn name and parameters.
pub fn kernel_spec(name: &str, gamma: f64, coef0: f64, degree: i64) -> PyResult<KernelSpec> {
    let spec = match name {
        "linear" => KernelSpec::Linear,
        "poly" | "polynomial" => {
            if degree < 0 {
                return Err(PyValueError::new_err(format!("degree must be non-negative, got {degree}")));
            }
            KernelSpec::Poly { degree: degree as u32, gamma, coef0 }
        }
        "rbf" => KernelSpec::Rbf { gamma },
        "sigmoid" => KernelSpec::Sigmoid { gamma, coef0 },
        "precomputed" => KernelSpec::Precomputed,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown kernel '{other}'; built-in kernels are linear, poly, rbf, sigmoid and precomputed"
            )))
        }
    };
    spec.validate().map_err(to_py)?;
    Ok(spec)
}

/// The dual solver from its Python spelling: solver "smo" or "isda", the latter's bias method
/// ("none", "penalty" with `k`, "secant"; read only for "isda") and over-relaxation factor.
pub fn dual_solver(solver: &str, bias: &str, k: f64, over_relaxation: f64) -> PyResult<DualSolver> {
    match solver {
        "smo" => Ok(DualSolver::Smo),
        "isda" => Ok(DualSolver::Isda { bias: isda_bias(bias, k)?, over_relaxation }),
        s => Err(PyValueError::new_err(format!("solver must be 'smo' or 'isda', got '{s}'"))),
    }
}

/// ISDA's bias method: "none", "penalty" (with `k`) or "secant".
pub fn isda_bias(name: &str, k: f64) -> PyResult<Bias> {
    Ok(match name {
        "none" => Bias::None,
        "penalty" => Bias::Penalty(k),
        "secant" => Bias::Secant,
        b => return Err(PyValueError::new_err(format!("isda_bias must be 'secant', 'penalty' or 'none', got '{b}'"))),
    })
}

/// SMO's working-set selection: "second_order" or "first_order".
pub fn smo_selection(name: &str) -> PyResult<Selection> {
    Ok(match name {
        "second_order" => Selection::SecondOrder,
        "first_order" => Selection::FirstOrder,
        s => {
            return Err(PyValueError::new_err(format!("selection must be 'second_order' or 'first_order', got '{s}'")))
        }
    })
}

/// A strategy maker owned by the binding (the core takes it by reference).
pub type StrategyMaker = Box<largemargin::train::lasvm::StrategyMaker<'static>>;

/// A built-in LaSVM selection strategy by name ("random", "gradient", "active", "autoactive"),
/// drawing `candidates` examples.
pub fn selection_strategy(name: &str, candidates: usize) -> PyResult<StrategyMaker> {
    Ok(match name {
        "random" => Box::new(|_| Box::new(RandomSelection) as Box<dyn SelectionStrategy>),
        "gradient" => Box::new(move |_| Box::new(GradientSelection { candidates }) as Box<dyn SelectionStrategy>),
        "active" => Box::new(move |_| Box::new(ActiveSelection { candidates }) as Box<dyn SelectionStrategy>),
        "autoactive" => Box::new(move |_| {
            Box::new(AutoActiveSelection { candidates: 2 * candidates, wanted: 5 }) as Box<dyn SelectionStrategy>
        }),
        other => return Err(PyValueError::new_err(format!("unknown built-in selection strategy '{other}'"))),
    })
}

/// An online baseline: "huller", "perceptron", "averaged", "pa" (with `c`) or "budget" (with
/// `beta` and `budget`).
pub fn online_baseline(name: &str, c: f64, beta: f64, budget: usize) -> PyResult<Baseline> {
    Ok(match name {
        "huller" => Baseline::Huller,
        "perceptron" => Baseline::Perceptron(PerceptronRule::Perceptron),
        "averaged" => Baseline::Perceptron(PerceptronRule::Averaged),
        "pa" => Baseline::Perceptron(PerceptronRule::PassiveAggressive { c }),
        "budget" => Baseline::Perceptron(PerceptronRule::Budget { beta, size: budget }),
        other => return Err(PyValueError::new_err(format!("unknown online algorithm '{other}'"))),
    })
}

/// The svm_type of a model file to write: "c_svc" or "epsilon_svr".
pub fn svm_type(name: &str) -> PyResult<SvmType> {
    Ok(match name {
        "c_svc" => SvmType::CSvc,
        "epsilon_svr" => SvmType::EpsilonSvr,
        t => return Err(PyValueError::new_err(format!("cannot write svm_type {t}"))),
    })
}

/// LaRank's reprocessing schedule: "adaptive", or "fixed" with `reprocess` steps.
pub fn larank_schedule(name: &str, reprocess: usize) -> PyResult<Schedule> {
    Ok(match name {
        "adaptive" => Schedule::Adaptive,
        "fixed" => Schedule::Fixed { reprocess },
        other => return Err(PyValueError::new_err(format!("schedule must be 'adaptive' or 'fixed', got '{other}'"))),
    })
}

/// A multiclass LaRank method: "larank" (under `schedule`, see `larank_schedule`, which is
/// checked whatever the method), "mira", "perceptron", "averaged_perceptron" or "ambigsvm".
pub fn larank_method(name: &str, schedule: &str, reprocess: usize) -> PyResult<Method> {
    let schedule = larank_schedule(schedule, reprocess)?;
    Ok(match name {
        "larank" => Method::LaRank(schedule),
        "mira" => Method::LaRank(Schedule::Fixed { reprocess: 0 }),
        "perceptron" => Method::Perceptron { averaged: false },
        "averaged_perceptron" => Method::Perceptron { averaged: true },
        "ambigsvm" => Method::PairwisePA,
        other => return Err(PyValueError::new_err(format!("unknown LaRank method '{other}'"))),
    })
}

/// LaRank's clock: "cost" or "wall".
pub fn clock(name: &str) -> PyResult<Clock> {
    Ok(match name {
        "cost" => Clock::Cost,
        "wall" => Clock::Wall,
        other => return Err(PyValueError::new_err(format!("clock must be 'cost' or 'wall', got '{other}'"))),
    })
}

/// A linear SGD algorithm: "sgd", "svmsgd2", "sgdqn", "sgdqn2009", "asgd" or "margin_perceptron".
pub fn sgd_algorithm(name: &str) -> PyResult<Algorithm> {
    Ok(match name {
        "sgd" => Algorithm::Sgd,
        "svmsgd2" => Algorithm::SvmSgd2,
        "sgdqn" => Algorithm::SgdQn,
        "sgdqn2009" => Algorithm::SgdQn2009,
        "asgd" => Algorithm::Asgd,
        "margin_perceptron" => Algorithm::MarginPerceptron,
        other => return Err(PyValueError::new_err(format!("unknown SGD algorithm '{other}'"))),
    })
}

/// A built-in margin loss by name (the names `MarginLoss::from_name` knows).
pub fn margin_loss(name: &str) -> PyResult<MarginLoss> {
    MarginLoss::from_name(name).ok_or_else(|| PyValueError::new_err(format!("unknown built-in loss '{name}'")))
}

/// The mixture gater's task: "classification" or "regression".
pub fn gater_task(name: &str) -> PyResult<GaterTask> {
    Ok(match name {
        "classification" => GaterTask::Classification,
        "regression" => GaterTask::Regression,
        other => return Err(PyValueError::new_err(format!("unknown gater task '{other}'"))),
    })
}

/// The tanh network's criterion: "mse", "cross_entropy" or "tanh_mse".
pub fn criterion(name: &str) -> PyResult<Criterion> {
    Ok(match name {
        "mse" => Criterion::Mse,
        "cross_entropy" => Criterion::CrossEntropy,
        "tanh_mse" => Criterion::TanhMse,
        c => {
            return Err(PyValueError::new_err(format!(
                "criterion must be 'cross_entropy', 'mse' or 'tanh_mse', got '{c}'"
            )))
        }
    })
}

/// The tanh network's optimizer: "sgd", or "block_newton" with `damping` and `sample`.
pub fn optimizer(name: &str, damping: f64, sample: usize) -> PyResult<Optimizer> {
    Ok(match name {
        "sgd" => Optimizer::Sgd,
        "block_newton" => Optimizer::BlockNewton { damping, sample },
        o => return Err(PyValueError::new_err(format!("optimizer must be 'sgd' or 'block_newton', got '{o}'"))),
    })
}

/// Sequence inference: "greedy" or "exact".
pub fn inference(name: &str) -> PyResult<Inference> {
    match name {
        "greedy" => Ok(Inference::Greedy),
        "exact" => Ok(Inference::Exact),
        other => Err(PyValueError::new_err(format!("inference must be 'greedy' or 'exact', got '{other}'"))),
    }
}

/// A sequence method: "larank" (with `reprocess` steps), "larank_adaptive", "pa", "perceptron" or
/// "averaged_perceptron".
pub fn sequence_method(name: &str, reprocess: usize) -> PyResult<SeqMethod> {
    Ok(match name {
        "larank" => SeqMethod::LaRank(Schedule::Fixed { reprocess }),
        "larank_adaptive" => SeqMethod::LaRank(Schedule::Adaptive),
        "pa" => SeqMethod::LaRank(Schedule::Fixed { reprocess: 0 }),
        "perceptron" => SeqMethod::Perceptron { averaged: false },
        "averaged_perceptron" => SeqMethod::Perceptron { averaged: true },
        other => return Err(PyValueError::new_err(format!("unknown sequence method '{other}'"))),
    })
}
