//! Times the kernel engine on a block of rows against many columns, as the blocked product computes
//! it and row by row, on seeded dense data (benches/kernel_throughput.py runs it beside the
//! machine's matrix-product rate).
//!   cargo run --release --example kernel_block -- [WIDTH] [ROWS] [COLUMNS]
//! Prints one line per kernel and path: values/s and the flop rate, counting 2 WIDTH flops a value.

use std::time::Instant;

use largemargin::data::{DenseView, Matrix};
use largemargin::kernel::Split;
use largemargin::runtime::rng::Rng;
use largemargin::{KernelEngine, KernelSpec};

fn main() {
    let arg = |k: usize, default: usize| std::env::args().nth(k).map_or(default, |s| s.parse().expect("a number"));
    let (d, m, n) = (arg(1, 54), arg(2, 1024), arg(3, 100_000));
    let mut rng = Rng::new(1);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(1 << 20) as f64 / (1 << 19) as f64 - 1.0).collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).expect("a matrix"));
    let rows: Vec<usize> = (0..m).collect();
    let cols: Vec<usize> = (0..n).collect();
    let mut out = vec![0.0f32; m * n];
    let specs = [
        KernelSpec::Linear,
        KernelSpec::Rbf { gamma: 1.0 / d as f64 },
        KernelSpec::Poly { degree: 3, gamma: 1.0 / d as f64, coef0: 1.0 },
    ];
    for spec in specs {
        let engine = KernelEngine::new(x, spec.clone()).expect("an engine");
        engine.block(&rows, &cols, &mut out, Split::Pool); // warm: pages of the output touched, threads up
        let t = Instant::now();
        engine.block(&rows, &cols, &mut out, Split::Pool);
        report("block", &spec, m * n, d, t.elapsed().as_secs_f64());
        // rows one at a time, split over the threads as a solver's rows are (a tenth of the block)
        let some = m.div_ceil(10);
        let t = Instant::now();
        for (r, o) in rows[..some].iter().zip(out.chunks_mut(n)) {
            engine.row(*r, &cols, o);
        }
        report("rows", &spec, some * n, d, t.elapsed().as_secs_f64());
    }
}

fn report(path: &str, spec: &KernelSpec, values: usize, d: usize, seconds: f64) {
    let rate = values as f64 / seconds;
    println!(
        "{path} {} width={d} values={values} seconds={seconds:.4} values_per_s={rate:.4e} gflops={:.2}",
        spec.name(),
        rate * 2.0 * d as f64 / 1e9
    );
}
