//! Train a kernel SVM on a LIBSVM file and report its test error, as a native tool would.
//!
//!     cargo run --release --example train_svc -- TRAIN_FILE [TEST_FILE] [C (100)] [GAMMA (1 / features)]
//!
//! Without files it trains on two interleaved spirals it makes itself. Files are read with
//! one-based feature indices (LIBSVM's convention); the model is written next to the training
//! file as TRAIN_FILE.model, which LIBSVM's svm-predict reads.

use std::path::Path;
use std::time::Instant;

use largemargin::{read_libsvm_file, IndexBase, Kernel, LibsvmData, Matrix, Svc};

fn spirals(n: usize, seed: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (Vec::with_capacity(2 * n), Vec::with_capacity(n));
    for i in 0..n {
        let t = 0.5 + 3.0 * (i as f64 * 0.618_034 + seed).fract() * std::f64::consts::PI;
        let class = if i % 2 == 0 { 1.0 } else { -1.0 };
        x.extend([class * t * t.cos(), class * t * t.sin()]);
        y.push(class);
    }
    (x, y)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: f64| -> Result<f64, String> {
        args.get(i).map_or(Ok(default), |v| v.parse().map_err(|_| format!("'{v}' is not a number")))
    };
    let (c, gamma) = (number(2, 100.0)?, number(3, 0.0)?);

    let (train, test): (LibsvmData, Option<LibsvmData>) = match args.first() {
        Some(path) => (
            read_libsvm_file(Path::new(path), IndexBase::One)?,
            args.get(1).map(|p| read_libsvm_file(Path::new(p), IndexBase::One)).transpose()?,
        ),
        None => {
            let ((xtr, ytr), (xte, yte)) = (spirals(400, 0.0), spirals(400, 0.31));
            let own = |x: Vec<f64>, y: Vec<f64>| -> Result<LibsvmData, largemargin::Error> {
                let rows = y.len();
                let all: Vec<usize> = (0..rows).collect();
                Ok(LibsvmData { x: largemargin::CsrMatrix::gather(&Matrix::dense(&x, rows, 2)?, &all), labels: y })
            };
            (own(xtr, ytr)?, Some(own(xte, yte)?))
        }
    };
    // gamma 0: LIBSVM's default, 1 / the number of features
    let gamma = if gamma > 0.0 { gamma } else { 1.0 / train.x.cols().max(1) as f64 };
    let started = Instant::now();
    let model = Svc::new().c(c).kernel(Kernel::Rbf { gamma }).fit(&train.x.view(), &train.labels)?;
    println!(
        "trained on {} examples ({} features, C={c}, gamma={gamma}) in {:.2} s: {} support vectors",
        train.labels.len(),
        train.x.cols(),
        started.elapsed().as_secs_f64(),
        model.n_sv()
    );
    if let Some(test) = test {
        // the test data may be wider than the training data: the model matches features by index
        let predicted = model.predict(&test.x.view())?;
        let errors = predicted.iter().zip(&test.labels).filter(|(p, t)| p != t).count();
        println!(
            "test error {:.2}% on {} examples",
            100.0 * errors as f64 / test.labels.len() as f64,
            test.labels.len()
        );
    }
    if let Some(path) = args.first() {
        let out = format!("{path}.model");
        model.save(Path::new(&out), IndexBase::One)?;
        println!("model written to {out}");
    }
    Ok(())
}
