//! largemargin-cli: train, predict and evaluate kernel SVMs on LIBSVM-format files, natively.
//!
//!   largemargin-cli train [options] TRAIN_FILE MODEL_FILE
//!   largemargin-cli predict TEST_FILE MODEL_FILE OUTPUT_FILE
//!   largemargin-cli eval TEST_FILE MODEL_FILE
//!
//! Options follow LIBSVM's svm-train where they overlap. Files may be plain, .gz or .bz2.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use largemargin::libsvm_format::{self, IndexBase, LibsvmData};
use largemargin::model::LibsvmModel;
use largemargin::svm::{train_svc, train_svr, SvmParams};
use largemargin::{Control, KernelSpec};

const USAGE: &str = "usage:
  largemargin-cli train [options] TRAIN_FILE MODEL_FILE
  largemargin-cli predict TEST_FILE MODEL_FILE OUTPUT_FILE
  largemargin-cli eval TEST_FILE MODEL_FILE
train options:
  -s type     0 = C-SVC (default), 3 = epsilon-SVR
  -t kernel   0 linear, 1 polynomial, 2 rbf (default), 3 sigmoid
  -d degree   polynomial degree (3)
  -g gamma    kernel gamma (default 1/num_features)
  -r coef0    kernel coef0 (0)
  -c C        cost (1)
  -p epsilon  SVR tube half-width (0.1)
  -m MB       kernel cache size (200)
  -e tol      stopping tolerance (0.001)
  -h 0|1      shrinking (1)
  -b 0|1      probability estimates (0)
  -j threads  worker threads (all cores)
  -z          feature indices are 0-based (default: 1-based unless an index 0 occurs)";

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

fn read_data(path: &str, base: IndexBase) -> Result<LibsvmData, String> {
    libsvm_format::read(open(path)?, base).map_err(|e| format!("{path}: {e}"))
}

struct TrainArgs {
    svr: bool,
    kernel: u32,
    degree: u32,
    gamma: Option<f64>,
    coef0: f64,
    c: f64,
    epsilon: f64,
    cache_mb: f64,
    tol: f64,
    shrinking: bool,
    probability: bool,
    threads: Option<usize>,
    base: IndexBase,
}

fn parse_train(args: &[String]) -> Result<(TrainArgs, String, String), String> {
    let mut a = TrainArgs {
        svr: false, kernel: 2, degree: 3, gamma: None, coef0: 0.0, c: 1.0, epsilon: 0.1, cache_mb: 200.0,
        tol: 1e-3, shrinking: true, probability: false, threads: None, base: IndexBase::Auto,
    };
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-z" {
            a.base = IndexBase::Zero;
            continue;
        }
        if !arg.starts_with('-') || arg.len() != 2 {
            files.push(arg.clone());
            continue;
        }
        let v = it.next().ok_or(format!("option {arg} needs a value"))?;
        let num = |v: &str| v.parse::<f64>().map_err(|_| format!("option {arg}: '{v}' is not a number"));
        match arg.as_str() {
            "-s" => a.svr = match v.as_str() { "0" => false, "3" => true, _ => return Err(format!("-s {v}: only 0 (C-SVC) and 3 (epsilon-SVR)")) },
            "-t" => a.kernel = num(v)? as u32,
            "-d" => a.degree = num(v)? as u32,
            "-g" => a.gamma = Some(num(v)?),
            "-r" => a.coef0 = num(v)?,
            "-c" => a.c = num(v)?,
            "-p" => a.epsilon = num(v)?,
            "-m" => a.cache_mb = num(v)?,
            "-e" => a.tol = num(v)?,
            "-h" => a.shrinking = num(v)? != 0.0,
            "-b" => a.probability = num(v)? != 0.0,
            "-j" => a.threads = Some(num(v)? as usize),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    if files.len() != 2 {
        return Err("train needs TRAIN_FILE and MODEL_FILE".into());
    }
    Ok((a, files[0].clone(), files[1].clone()))
}

fn train(args: &[String]) -> Result<(), String> {
    let (a, data_path, model_path) = parse_train(args)?;
    let data = read_data(&data_path, a.base)?;
    let x = data.x.view();
    let gamma = a.gamma.unwrap_or(1.0 / x.cols().max(1) as f64);
    let kernel = match a.kernel {
        0 => KernelSpec::Linear,
        1 => KernelSpec::Poly { degree: a.degree, gamma, coef0: a.coef0 },
        2 => KernelSpec::Rbf { gamma },
        3 => KernelSpec::Sigmoid { gamma, coef0: a.coef0 },
        k => return Err(format!("-t {k}: unknown kernel type")),
    };
    if !(a.c > 0.0) {
        return Err("-c: C must be positive".into());
    }
    let params = SvmParams {
        kernel: kernel.clone(),
        tol: a.tol,
        shrinking: a.shrinking,
        cache_bytes: (a.cache_mb * 1048576.0) as usize,
        probability: a.probability,
        ..Default::default()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.threads.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let control = Control::new();
    let started = Instant::now();
    let sample_c = vec![a.c; data.labels.len()];
    let (model, iterations, objective, evals) = if a.svr {
        let fit = pool.install(|| train_svr(&x, &data.labels, &sample_c, a.epsilon, &params, &control)).map_err(|e| e.to_string())?;
        (LibsvmModel::from_svr(&fit, &x, kernel), fit.n_iter, fit.objective, fit.kernel_evals)
    } else {
        let mut labels: Vec<i64> = Vec::new();
        for &l in &data.labels {
            if l.fract() != 0.0 {
                return Err(format!("{data_path}: class label {l} is not an integer"));
            }
            labels.push(l as i64);
        }
        let mut classes = labels.clone();
        classes.sort_unstable();
        classes.dedup();
        let y: Vec<usize> = labels.iter().map(|l| classes.binary_search(l).unwrap()).collect();
        let fit = pool.install(|| train_svc(&x, &y, classes.len(), &sample_c, &params, &control)).map_err(|e| e.to_string())?;
        (
            LibsvmModel::from_svc(&fit, &x, kernel, classes),
            fit.n_iter.iter().sum(),
            fit.objective.iter().sum(),
            fit.kernel_evals,
        )
    };
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "trained on {} examples in {elapsed:.2} s: {} support vectors, {iterations} iterations, dual objective {objective:.6}, {evals} kernel evaluations",
        data.labels.len(),
        model.n_sv()
    );
    let f = File::create(&model_path).map_err(|e| format!("{model_path}: {e}"))?;
    model.write(BufWriter::new(f)).map_err(|e| format!("{model_path}: {e}"))
}

fn load_model(path: &str) -> Result<LibsvmModel, String> {
    let f = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    LibsvmModel::read(BufReader::new(f)).map_err(|e| format!("{path}: {e}"))
}

fn predict_file(data_path: &str, model_path: &str) -> Result<(Vec<f64>, Vec<f64>, LibsvmModel), String> {
    let model = load_model(model_path)?;
    // Model files number features from 1; data files are read the same way unless they use 0.
    let data = read_data(data_path, IndexBase::Auto)?;
    let pred = model.predict(&data.x.view()).map_err(|e| e.to_string())?;
    Ok((pred, data.labels, model))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("train") => train(&args[1..]),
        Some("predict") if args.len() == 4 => predict_file(&args[1], &args[2]).and_then(|(pred, _, _)| {
            let f = File::create(&args[3]).map_err(|e| format!("{}: {e}", args[3]))?;
            let mut w = BufWriter::new(f);
            for p in pred {
                writeln!(w, "{p}").map_err(|e| e.to_string())?;
            }
            Ok(())
        }),
        Some("eval") if args.len() == 3 => predict_file(&args[1], &args[2]).map(|(pred, truth, model)| {
            let n = truth.len() as f64;
            if model.svm_type == largemargin::model::SvmType::EpsilonSvr {
                let mae = pred.iter().zip(&truth).map(|(p, t)| (p - t).abs()).sum::<f64>() / n;
                let mse = pred.iter().zip(&truth).map(|(p, t)| (p - t) * (p - t)).sum::<f64>() / n;
                println!("MAE {mae:.6} MSE {mse:.6} ({} examples)", truth.len());
            } else {
                let wrong = pred.iter().zip(&truth).filter(|(p, t)| p != t).count() as f64;
                println!("error {:.4} % ({} examples)", 100.0 * wrong / n, truth.len());
            }
        }),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("largemargin-cli: {e}");
            ExitCode::from(2)
        }
    }
}
