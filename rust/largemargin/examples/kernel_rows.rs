//! Times kernel-row computation on a LIBSVM file: rows over all examples in memory order and in
//! a shuffled order (as a solver's active set visits them).
//!   cargo run --release --example kernel_rows -- FILE GAMMA [ROWS]

use std::time::Instant;

use largemargin::io::data_file::{read, IndexBase};
use largemargin::runtime::rng::Rng;
use largemargin::{KernelEngine, KernelSpec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = std::fs::File::open(&args[1]).expect("file");
    let gamma: f64 = args[2].parse().unwrap();
    let rows: usize = args.get(3).map(|v| v.parse().unwrap()).unwrap_or(200);
    let data = read(std::io::BufReader::new(file), IndexBase::Auto).unwrap();
    let vals32: Vec<f32> = data.x.data().iter().map(|&v| v as f32).collect();
    let x = if args.get(4).map(String::as_str) == Some("f32") {
        largemargin::Matrix::Csr32(
            largemargin::CsrView::new(data.x.indptr(), data.x.indices(), &vals32, data.x.cols()).unwrap(),
        )
    } else {
        data.x.view()
    };
    let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma }).unwrap();
    let n = x.rows();
    let mut cols: Vec<usize> = (0..n).collect();
    let mut out = vec![0f32; n];
    for shuffled in [false, true] {
        if shuffled {
            Rng::new(1).shuffle(&mut cols);
        }
        let t = Instant::now();
        for i in 0..rows {
            engine.row(i, &cols, &mut out);
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / (rows * n) as f64;
        println!("{} order: {ns:.1} ns per kernel value", if shuffled { "shuffled" } else { "memory" });
    }
}
