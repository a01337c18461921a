//! largemargin-cli: train, predict and evaluate kernel SVMs on LIBSVM-format files, natively.
//!
//!   largemargin-cli train \[options\] TRAIN_FILE MODEL_FILE
//!   largemargin-cli predict \[-b 0|1\] \[-q\] TEST_FILE MODEL_FILE OUTPUT_FILE
//!   largemargin-cli eval TEST_FILE MODEL_FILE
//!   largemargin-cli --version
//!
//! Options follow LIBSVM's svm-train where they overlap. Files may be plain, .gz or .bz2.
//! A model file means what it means to LIBSVM: `train` writes feature indices as the training
//! file numbers them, and `predict`/`eval` match the indices of the model and the test file
//! literally, as svm-predict does. Every output file is written whole or not at all.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use largemargin::data::{CsrMatrix, Matrix};
use largemargin::io::atomic_file::write_atomically;
use largemargin::io::data_file::{self, IndexBase, LibsvmData, LibsvmParser};
use largemargin::kernel::KernelKind;
use largemargin::model::probability::one_class_density_marks;
use largemargin::model::{LibsvmModel, SvmType};
use largemargin::train::svm::{
    train_nu_svc, train_nu_svr, train_one_class, train_svc, train_svr, SvcFit, SvmParams, SvrFit,
};
use largemargin::Control;

const USAGE: &str = "usage:
  largemargin-cli train [options] TRAIN_FILE MODEL_FILE
  largemargin-cli predict [-b 0|1] [-q] TEST_FILE MODEL_FILE OUTPUT_FILE
  largemargin-cli eval TEST_FILE MODEL_FILE
  largemargin-cli --version | --help
predict writes the predictions and prints the accuracy (MSE and squared correlation
for regression) on the test file's labels, as svm-predict does; -q prints nothing.
-b 1 writes probability estimates as svm-predict does (a 'labels' or 'label normal
outlier' line, then each label and its probabilities, at full precision); it needs a
model trained with -b 1. Models of all five LIBSVM types are predicted.
eval prints the same without writing predictions.
train options:
  -s type     LIBSVM's number or name: 0 c_svc = C-SVC (default), 1 nu_svc = nu-SVC,
              2 one_class = one-class SVM, 3 epsilon_svr = epsilon-SVR, 4 nu_svr = nu-SVR
  -t kernel   0 linear, 1 poly(nomial), 2 rbf (default), 3 sigmoid: the number or the name
  -d degree   polynomial degree, an integer >= 0 (3)
  -g gamma    kernel gamma, > 0 (default 1/num_features)
  -r coef0    kernel coef0 (0)
  -c C        cost, > 0 (1)
  -p epsilon  SVR tube half-width, >= 0 (0.1)
  -n nu       nu of nu-SVC, one-class SVM and nu-SVR, in (0, 1] (0.5)
  -m MB       kernel cache size, > 0 (200)
  -e tol      stopping tolerance, > 0 (0.001)
  -h 0|1      shrinking (1)
  -b 0|1      probability estimates (0)
  -j threads  worker threads, 1 to 1024 (all cores)
  -z          feature indices are 0-based (default: 1-based unless an index 0 occurs)
  -q          quiet
The model file numbers features as the training file does. predict and eval match the
feature indices of the model and the test file as written, as LIBSVM's svm-predict does.";

fn open(path: &str) -> Result<Box<dyn BufRead>, String> {
    let f = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(if path.ends_with(".gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(f)))
    } else if path.ends_with(".bz2") {
        Box::new(BufReader::new(bzip2::read::MultiBzDecoder::new(f)))
    } else {
        Box::new(BufReader::new(f))
    })
}

/// A data file's rows with raw indices, base not yet applied.
fn parse_data(path: &str) -> Result<LibsvmParser, String> {
    let mut parser = LibsvmParser::new();
    let mut reader = open(path)?;
    if let Err(e) = data_file::feed_all(&mut parser, &mut reader) {
        // A compressed stream is checked at its end: garbage decoded before that point shows as a
        // bad line. Decoding the rest tells which it was.
        if path.ends_with(".gz") || path.ends_with(".bz2") {
            if let Err(corrupt) = std::io::copy(&mut reader, &mut std::io::sink()) {
                return Err(format!("{path}: the compressed data is corrupt ({corrupt}); decoding it gave: {e}"));
            }
        }
        return Err(format!("{path}: {e}"));
    }
    Ok(parser)
}

fn finish(parser: LibsvmParser, path: &str, base: IndexBase) -> Result<LibsvmData, String> {
    parser.finish(base).map_err(|e| format!("{path}: {e}"))
}

struct TrainArgs {
    svm_type: SvmType,
    kernel: KernelKind,
    degree: u32,
    gamma: Option<f64>,
    coef0: f64,
    c: f64,
    epsilon: f64,
    nu: f64,
    cache_mb: f64,
    tol: f64,
    shrinking: bool,
    probability: bool,
    threads: Option<usize>,
    base: IndexBase,
    quiet: bool,
}

/// An integer option within [lo, hi]: "2.7", "nan", "1e10" and out-of-range values are refused.
fn integer(opt: &str, v: &str, lo: i64, hi: i64) -> Result<i64, String> {
    match v.parse::<i64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("option {opt}: '{v}' is not an integer from {lo} to {hi}")),
    }
}

/// A real option: finite, and positive (or at least zero) where `positive` says so.
fn real(opt: &str, v: &str, positive: Option<bool>) -> Result<f64, String> {
    let x: f64 = v.parse().map_err(|_| format!("option {opt}: '{v}' is not a number"))?;
    let ok = x.is_finite()
        && match positive {
            Some(true) => x > 0.0,
            Some(false) => x >= 0.0,
            None => true,
        };
    if !ok {
        let what = match positive {
            Some(true) => "a positive number",
            Some(false) => "a number >= 0",
            None => "a finite number",
        };
        return Err(format!("option {opt}: '{v}' is not {what}"));
    }
    Ok(x)
}

fn flag(opt: &str, v: &str) -> Result<bool, String> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("option {opt}: '{v}' is not 0 or 1")),
    }
}

/// -s: LIBSVM's svm_type number (0 c_svc, 1 nu_svc, 2 one_class, 3 epsilon_svr, 4 nu_svr) or
/// its name.
fn svm_type_option(v: &str) -> Result<SvmType, String> {
    if let Ok(t) = v.parse::<SvmType>() {
        return Ok(t);
    }
    let last = SvmType::ALL.len() as i64 - 1;
    let n = integer("-s", v, 0, last).map_err(|e| format!("{e}, nor one of {}", SvmType::NAMES.join(", ")))?;
    Ok(SvmType::from_libsvm_number(n as usize).expect("within LIBSVM's numbers"))
}

/// -n: nu, a fraction in (0, 1] as svm-train checks it.
fn nu_option(v: &str) -> Result<f64, String> {
    match real("-n", v, Some(true))? {
        nu if nu <= 1.0 => Ok(nu),
        _ => Err(format!("option -n: '{v}' is not in (0, 1]")),
    }
}

/// -t: LIBSVM's kernel_type number (its position in `KernelKind::ALL`, LIBSVM's order) or the
/// kernel's name; precomputed kernels are refused.
fn kernel_option(v: &str) -> Result<KernelKind, String> {
    let kind = match v.parse::<KernelKind>() {
        Ok(k) => k,
        Err(_) => {
            let n = integer("-t", v, 0, KernelKind::ALL.len() as i64 - 1)
                .map_err(|e| format!("{e}, nor one of {}", KernelKind::NAMES.join(", ")))?;
            KernelKind::ALL[n as usize]
        }
    };
    if kind == KernelKind::Precomputed {
        return Err(format!("-t {v}: precomputed kernels are trained from Python (largemargin.SVC)"));
    }
    Ok(kind)
}

fn parse_train(args: &[String]) -> Result<(TrainArgs, String, String), String> {
    let mut a = TrainArgs {
        svm_type: SvmType::CSvc,
        kernel: KernelKind::Rbf,
        degree: 3,
        gamma: None,
        coef0: 0.0,
        c: 1.0,
        epsilon: 0.1,
        nu: 0.5,
        cache_mb: 200.0,
        tol: 1e-3,
        shrinking: true,
        probability: false,
        threads: None,
        base: IndexBase::Auto,
        quiet: false,
    };
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-z" => {
                a.base = IndexBase::Zero;
                continue;
            }
            "-q" => {
                a.quiet = true;
                continue;
            }
            _ => {}
        }
        if !arg.starts_with('-') || arg.len() == 1 {
            files.push(arg.clone());
            continue;
        }
        if arg.len() != 2 {
            let hint = if arg.starts_with("-w") { " (per-class weights -wi are not supported)" } else { "" };
            return Err(format!("unknown option {arg}{hint}"));
        }
        let v = it.next().ok_or(format!("option {arg} needs a value"))?;
        let opt = arg.as_str();
        match opt {
            "-s" => a.svm_type = svm_type_option(v)?,
            "-t" => a.kernel = kernel_option(v)?,
            "-d" => a.degree = integer(opt, v, 0, i32::MAX as i64)? as u32,
            "-g" => a.gamma = Some(real(opt, v, Some(true))?),
            "-r" => a.coef0 = real(opt, v, None)?,
            "-c" => a.c = real(opt, v, Some(true))?,
            "-p" => a.epsilon = real(opt, v, Some(false))?,
            "-n" => a.nu = nu_option(v)?,
            "-m" => {
                a.cache_mb = real(opt, v, Some(true))?;
                if a.cache_mb * 1048576.0 >= usize::MAX as f64 / 2.0 {
                    return Err(format!("option -m: '{v}' MB is more memory than this machine can address"));
                }
            }
            "-e" => a.tol = real(opt, v, Some(true))?,
            "-h" => a.shrinking = flag(opt, v)?,
            "-b" => a.probability = flag(opt, v)?,
            "-j" => a.threads = Some(integer(opt, v, 1, 1024)? as usize),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    if files.len() != 2 {
        return Err("train needs TRAIN_FILE and MODEL_FILE".into());
    }
    Ok((a, files[0].clone(), files[1].clone()))
}

/// A model trained by `train`, with what its summary line reports.
struct Trained {
    model: LibsvmModel,
    iterations: u64,
    objective: f64,
    kernel_evals: u64,
}

/// The integer class labels of a classification file, sorted, and each row's class index.
fn class_indices(data_path: &str, targets: &[f64]) -> Result<(Vec<i64>, Vec<usize>), String> {
    let mut labels: Vec<i64> = Vec::with_capacity(targets.len());
    for &l in targets {
        if l.fract() != 0.0 {
            return Err(format!("{data_path}: class label {l} is not an integer (LIBSVM's labels are)"));
        }
        if l.abs() > i32::MAX as f64 {
            return Err(format!("{data_path}: class label {l} is outside LIBSVM's 32-bit label range"));
        }
        labels.push(l as i64);
    }
    let mut classes = labels.clone();
    classes.sort_unstable();
    classes.dedup();
    let y = labels.iter().map(|l| classes.binary_search(l).unwrap_or(0)).collect();
    Ok((classes, y))
}

impl Trained {
    fn classifier(fit: &SvcFit, model: LibsvmModel) -> Self {
        let (iterations, objective) = (fit.n_iter.iter().sum(), fit.objective.iter().sum());
        Trained { model, iterations, objective, kernel_evals: fit.kernel_evals }
    }
    fn one_output(fit: &SvrFit, model: LibsvmModel) -> Self {
        Trained { model, iterations: fit.n_iter, objective: fit.objective, kernel_evals: fit.kernel_evals }
    }
}

/// Trains `a.svm_type` (svm-train's -s 0..4) with every example at C (or weight 1 for the nu
/// classifier and one-class); the nu formulations' models read as those of C-SVC and
/// epsilon-SVR are, under their own type. A one-class model trained with -b 1 keeps LIBSVM's
/// density marks of its training decision values (none, as LIBSVM, when either side of the
/// boundary has fewer than 5 examples).
fn train_model(
    a: &TrainArgs, data_path: &str, x: &Matrix, targets: &[f64], params: &SvmParams, control: &Control,
) -> Result<Trained, String> {
    let kernel = params.kernel.clone();
    let (sample_c, weights) = (vec![a.c; targets.len()], vec![1.0; targets.len()]);
    let error = |e: largemargin::Error| e.to_string();
    let as_type = |svm_type, model: LibsvmModel| LibsvmModel { svm_type, ..model };
    Ok(match a.svm_type {
        SvmType::CSvc | SvmType::NuSvc => {
            let (classes, y) = class_indices(data_path, targets)?;
            let fit = if a.svm_type == SvmType::CSvc {
                train_svc(x, &y, classes.len(), &sample_c, params, control)
            } else {
                train_nu_svc(x, &y, classes.len(), &weights, a.nu, params, control)
            }
            .map_err(error)?;
            Trained::classifier(&fit, as_type(a.svm_type, LibsvmModel::from_svc(&fit, x, kernel, classes)))
        }
        SvmType::EpsilonSvr | SvmType::NuSvr => {
            let fit = if a.svm_type == SvmType::EpsilonSvr {
                train_svr(x, targets, &sample_c, a.epsilon, params, control)
            } else {
                train_nu_svr(x, targets, &sample_c, a.nu, params, control)
            }
            .map_err(error)?;
            Trained::one_output(&fit, as_type(a.svm_type, LibsvmModel::from_svr(&fit, x, kernel)))
        }
        SvmType::OneClass => {
            let fit = train_one_class(x, &weights, a.nu, params, control).map_err(error)?;
            let mut model = as_type(SvmType::OneClass, LibsvmModel::from_svr(&fit, x, kernel));
            if a.probability {
                let decisions = model.decision(x).map_err(error)?;
                match one_class_density_marks(&decisions) {
                    Some(marks) => model.prob_a = marks,
                    None => eprintln!(
                        "warning: fewer than 5 training examples on one side of the boundary: the model keeps no \
                         density marks (as LIBSVM)"
                    ),
                }
            }
            Trained::one_output(&fit, model)
        }
    })
}

fn train(args: &[String]) -> Result<(), String> {
    let (a, data_path, model_path) = parse_train(args)?;
    if a.svm_type.is_regression() && a.probability {
        return Err(format!(
            "-b 1 with -s {}: probability estimates are for classifiers and one-class models here",
            a.svm_type.libsvm_number()
        ));
    }
    let parser = parse_data(&data_path)?;
    let base = a.base.for_files([parser.uses_index_zero()]);
    let data = finish(parser, &data_path, base)?;
    if data.labels.is_empty() {
        return Err(format!("{data_path}: no examples"));
    }
    let x = data.x.view();
    // svm-train's default: 1 / the largest feature index of the training file, as written
    let largest_index = (x.cols() + base.offset().unwrap_or(1)).saturating_sub(1);
    let gamma = a.gamma.unwrap_or(1.0 / largest_index.max(1) as f64);
    let kernel = a.kernel.with(gamma, a.coef0, a.degree);
    let params = SvmParams {
        kernel: kernel.clone(),
        tol: a.tol,
        shrinking: a.shrinking,
        cache_bytes: (a.cache_mb * 1048576.0) as usize,
        probability: a.probability,
        ..Default::default()
    };
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(a.threads.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let control = Control::new();
    let started = Instant::now();
    let trained = pool.install(|| train_model(&a, &data_path, &x, &data.labels, &params, &control))?;
    let elapsed = started.elapsed().as_secs_f64();
    if !a.quiet {
        println!(
            "trained on {} examples in {elapsed:.2} s: {} support vectors, {} iterations, dual objective {:.6}, {} kernel evaluations ({} feature indices)",
            data.labels.len(),
            trained.model.n_sv(),
            trained.iterations,
            trained.objective,
            trained.kernel_evals,
            if base == IndexBase::Zero { "0-based" } else { "1-based" }
        );
    }
    trained.model.save(Path::new(&model_path), base).map_err(|e| e.to_string())
}

fn load_model(path: &str) -> Result<LibsvmModel, String> {
    // read literally (index i is column i), as the test file is read: both then mean what they
    // mean to svm-predict, whatever base the files were written with
    LibsvmModel::load(Path::new(path), IndexBase::Zero).map_err(|e| e.to_string())
}

/// A precomputed kernel's test rows as LIBSVM writes them: `0:serial 1:K(x, x_1) ...`. The
/// model's support vectors are training indices counted from 0, so the serial goes and the
/// kernel values move down a column.
fn drop_serial_column(x: &CsrMatrix) -> Result<CsrMatrix, String> {
    let view = x.view();
    let mut out = CsrMatrix::new();
    for i in 0..view.rows() {
        out.push_row(view.row_entries(i).into_iter().filter(|&(j, _)| j > 0).map(|(j, v)| (j - 1, v)))
            .map_err(|e| e.to_string())?;
    }
    out.set_cols(x.cols().saturating_sub(1)).map_err(|e| e.to_string())?;
    Ok(out)
}

/// A model and a test file read for prediction, the test rows in the model's terms.
fn read_for_prediction(data_path: &str, model_path: &str) -> Result<(LibsvmModel, LibsvmData), String> {
    let model = load_model(model_path)?;
    let mut data = finish(parse_data(data_path)?, data_path, IndexBase::Zero)?;
    if model.kernel.is_precomputed() {
        data.x = drop_serial_column(&data.x)?;
    }
    Ok((model, data))
}

fn predict_file(data_path: &str, model_path: &str) -> Result<(Vec<f64>, Vec<f64>, LibsvmModel), String> {
    let (model, data) = read_for_prediction(data_path, model_path)?;
    let pred = model.predict(&data.x.view()).map_err(|e| format!("{data_path}: {e}"))?;
    Ok((pred, data.labels, model))
}

/// svm-predict -b 1: the output file's text, and what goes to the terminal before the score.
fn predict_probability_text(
    model: &LibsvmModel, data: &LibsvmData, data_path: &str,
) -> Result<(Vec<f64>, String, Option<String>), String> {
    let x = data.x.view();
    if model.svm_type.is_regression() && !model.prob_a.is_empty() {
        // a regressor's probability model is one noise scale: printed, the values written as usual
        let pred = model.predict(&x).map_err(|e| format!("{data_path}: {e}"))?;
        let note = format!(
            "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution \
             e^(-|z|/sigma)/(2sigma),sigma={}",
            short(model.prob_a[0])
        );
        let text = prediction_lines(&pred);
        return Ok((pred, text, Some(note)));
    }
    if !model.has_probability() {
        return Err(format!(
            "-b 1: the model has no probability estimates (svm_type {}, trained without -b 1)",
            model.svm_type
        ));
    }
    let (labels, probs, cols) = model.predict_probability(&x).map_err(|e| format!("{data_path}: {e}"))?;
    let mut text = if model.svm_type == SvmType::OneClass {
        "label normal outlier\n".to_string()
    } else {
        format!("labels {}\n", model.labels.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(" "))
    };
    for (label, row) in labels.iter().zip(probs.chunks(cols)) {
        text.push_str(&label.to_string());
        for p in row {
            text.push_str(&format!(" {p}"));
        }
        text.push('\n');
    }
    Ok((labels, text, None))
}

fn prediction_lines(pred: &[f64]) -> String {
    let mut text = String::with_capacity(pred.len() * 4);
    for p in pred {
        text.push_str(&format!("{p}\n"));
    }
    text
}

fn predict(args: &[String]) -> Result<(), String> {
    let (mut quiet, mut probability) = (false, false);
    let mut rest = args;
    // svm-predict's options, before the files
    loop {
        match rest {
            [q, tail @ ..] if q == "-q" => {
                quiet = true;
                rest = tail;
            }
            [b, v, tail @ ..] if b == "-b" => {
                probability = flag("-b", v)?;
                rest = tail;
            }
            _ => break,
        }
    }
    let files = rest;
    if files.len() != 3 || files.iter().any(|f| f.starts_with('-') && f.len() > 1) {
        return Err(USAGE.to_string());
    }
    let (model, data) = read_for_prediction(&files[0], &files[1])?;
    let (pred, text, note) = if probability {
        predict_probability_text(&model, &data, &files[0])?
    } else {
        let pred = model.predict(&data.x.view()).map_err(|e| format!("{}: {e}", files[0]))?;
        let text = prediction_lines(&pred);
        (pred, text, None)
    };
    write_atomically(Path::new(&files[2]), |w| Ok(w.write_all(text.as_bytes())?)).map_err(|e| e.to_string())?;
    if !quiet {
        if let Some(note) = note {
            println!("{note}");
        }
        if !data.labels.is_empty() {
            println!("{}", score_lines(&model, &pred, &data.labels).join("\n"));
        }
    }
    Ok(())
}

/// What svm-predict prints after predicting a labelled file.
fn score_lines(model: &LibsvmModel, pred: &[f64], truth: &[f64]) -> Vec<String> {
    let n = truth.len() as f64;
    if model.svm_type.is_regression() {
        let mse = pred.iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum::<f64>() / n;
        let (sp, st) = (pred.iter().sum::<f64>(), truth.iter().sum::<f64>());
        let (spp, stt) = (pred.iter().map(|p| p * p).sum::<f64>(), truth.iter().map(|t| t * t).sum::<f64>());
        let spt = pred.iter().zip(truth).map(|(p, t)| p * t).sum::<f64>();
        let r2 = (n * spt - sp * st).powi(2) / ((n * spp - sp * sp) * (n * stt - st * st));
        vec![
            format!("Mean squared error = {} (regression)", short(mse)),
            format!("Squared correlation coefficient = {} (regression)", short(r2)),
        ]
    } else {
        let right = pred.iter().zip(truth).filter(|(p, t)| p == t).count();
        vec![format!("Accuracy = {}% ({right}/{}) (classification)", short(100.0 * right as f64 / n), truth.len())]
    }
}

/// A number as C's and Python's `%g` write it: 6 significant digits, no trailing zeros.
fn short(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return if x.is_nan() { "nan".into() } else { format!("{x}") };
    }
    // the exponent after rounding to 6 digits decides between the two forms
    let sci = format!("{x:.5e}");
    let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let trim =
        |s: &str| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.into() };
    if (-4..6).contains(&e) {
        trim(&format!("{x:.*}", (5 - e) as usize))
    } else {
        format!("{}e{}{:02}", trim(mantissa), if e < 0 { '-' } else { '+' }, e.abs())
    }
}

fn eval(args: &[String]) -> Result<(), String> {
    let (pred, truth, model) = predict_file(&args[0], &args[1])?;
    if truth.is_empty() {
        return Err(format!("{}: no examples", args[0]));
    }
    println!("{}", score_lines(&model, &pred, &truth).join("\n"));
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some("-V" | "--version") => {
            println!("largemargin-cli {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        // `train --help` and friends: the same usage, on stdout, exit code 0
        Some("train" | "predict" | "eval") if args[1..].iter().any(|a| a == "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some("train") => train(&args[1..]),
        Some("predict") => predict(&args[1..]),
        Some("eval") if args.len() == 3 => eval(&args[1..]),
        _ => Err(USAGE.to_string()),
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" at start-up, before any thread exists.
    unsafe {
        // past a file-size limit a write then fails with EFBIG, which is reported, instead of
        // the process being killed
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // one line for a bug too, never a backtrace
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("largemargin-cli: internal error{place}: {}", what.replace('\n', " "));
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            if e == USAGE {
                eprintln!("{USAGE}");
            } else {
                eprintln!("largemargin-cli: {}", e.replace('\n', " "));
            }
            ExitCode::from(2)
        }
        Err(_) => ExitCode::from(2),
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn short_is_printf_g() {
        // the values Python's f"{x:g}" (C's %g) gives
        for (x, g) in [
            (100.0, "100"),
            (85.123456789, "85.1235"),
            (0.576345123, "0.576345"),
            (4.58377, "4.58377"),
            (1e-7, "1e-07"),
            (123456789.0, "1.23457e+08"),
            (0.0001, "0.0001"),
            (999999.5, "1e+06"),
            (-2.5, "-2.5"),
            (0.0, "0"),
        ] {
            assert_eq!(short(x), g, "{x}");
        }
    }
}
