//! Where one LaSVM fit spends its kernel evaluations and time: the online pass (PROCESS and
//! REPROCESS) and the finishing step, on a LIBSVM file, with a test error when a test file is given.
//!   cargo run --release --example lasvm_phases -- TRAIN GAMMA C [CACHE_MB] [TEST] [EPOCHS]
//! Environment: SEED (the random order), FIRST_ORDER (maximal violating pairs in the finishing
//! step), SHRINK (shrinking in the finishing step). Files are read with 0-based indices.

use std::time::Instant;

use largemargin::io::data_file::{read, IndexBase};
use largemargin::runtime::rng::Rng;
use largemargin::solver::online::lasvm::{LaSvm, LaSvmParams, RandomSelection};
use largemargin::solver::smo::Selection;
use largemargin::{Control, KernelEngine, KernelSpec};

fn load(path: &str) -> largemargin::io::data_file::LibsvmData {
    let file = std::fs::File::open(path).expect("file");
    read(std::io::BufReader::new(file), IndexBase::Zero).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = load(&args[1]);
    let gamma: f64 = args[2].parse().unwrap();
    let c: f64 = args[3].parse().unwrap();
    let cache_mb: f64 = args.get(4).map(|v| v.parse().unwrap()).unwrap_or(200.0);
    let epochs: usize = args.get(6).map(|v| v.parse().unwrap()).unwrap_or(1);
    let x = data.x.view();
    let n = x.rows();
    let y: Vec<f64> = data.labels.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
    let cache = (cache_mb * (1 << 20) as f64) as usize;
    let engine = KernelEngine::within(x, KernelSpec::Rbf { gamma }, cache).unwrap();
    let params = LaSvmParams { cache_bytes: cache.saturating_sub(engine.extra_bytes()), ..Default::default() };
    let mut svm = LaSvm::new(&engine, (0..n).collect(), &y, &vec![c; n], params).unwrap();
    let control = Control::new();
    let mut rng = Rng::new(std::env::var("SEED").ok().map(|v| v.parse().unwrap()).unwrap_or(0));
    let mut order: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut order);
    let t = Instant::now();
    svm.seed(&order).unwrap();
    for e in 0..epochs {
        svm.online_pass(&order, &mut RandomSelection, &mut rng, None, None, &control).unwrap();
        println!(
            "epoch {e}: {:.2} s, {} evals, |S| {}, gap {:.3}, objective {:.1}, {:?}",
            t.elapsed().as_secs_f64(),
            engine.evals(),
            svm.expansion_size(),
            svm.gap(),
            svm.objective(),
            svm.stats
        );
        rng.shuffle(&mut order);
    }
    let (online_s, online_evals) = (t.elapsed().as_secs_f64(), engine.evals());
    let selection = if std::env::var("FIRST_ORDER").is_ok() { Selection::FirstOrder } else { Selection::SecondOrder };
    svm.finish(selection, std::env::var("SHRINK").is_ok(), &control).unwrap();
    println!(
        "finish: {:.2} s, {} evals, |S| {}, gap {:.5}, objective {:.1}, iterations {}",
        t.elapsed().as_secs_f64() - online_s,
        engine.evals() - online_evals,
        svm.expansion_size(),
        svm.gap(),
        svm.objective(),
        svm.stats.finishing_iterations
    );
    let support = svm.support();
    println!("total {:.2} s, {} evals, {} SV", t.elapsed().as_secs_f64(), engine.evals(), support.len());
    if let Some(test) = args.get(5) {
        let test = load(test);
        let xt = test.x.view();
        let idx: Vec<usize> = support.iter().map(|&(k, _)| k).collect();
        let sv = largemargin::CsrMatrix::gather(&x, &idx);
        let sv_engine = KernelEngine::new(sv.view(), KernelSpec::Rbf { gamma }).unwrap();
        let k = sv_engine.cross(&xt).unwrap();
        let m = xt.rows();
        let wrong = (0..m)
            .filter(|&r| {
                let f: f64 = support.iter().enumerate().map(|(s, &(_, a))| a * k[r * support.len() + s]).sum::<f64>()
                    + svm.bias();
                (f > 0.0) != (test.labels[r] > 0.0)
            })
            .count();
        println!("test error {:.2}%", 100.0 * wrong as f64 / m as f64);
    }
}
