//! The Q matrices' tests.

use super::*;
use crate::data::{DenseView, Matrix};
use crate::kernel::KernelSpec;
use crate::runtime::rng::Rng;

/// Random row requests (growing as an expansion set does, with some long jumps), swaps and
/// discards over a cache of short rows; with `check`, every row served is compared with the
/// kernel. Returns (kernel evaluations by the rows, entries that were not cached in the row).
fn drive(check: bool) -> (u64, u64) {
    let (n, d) = (300, 5);
    let mut rng = Rng::new(5);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(1000) as f64 / 500.0).collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
    let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.3 }).unwrap();
    let reference = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.3 }).unwrap();
    // a budget of about 150 rows of 250 entries: rows get evicted and come back
    let mut q = ExampleQ::with_short_rows(&engine, (0..n).collect(), 150_000);
    let mut at: Vec<usize> = (0..n).collect();
    let mut missing = 0u64;
    let base = engine.evals();
    for step in 0..4000 {
        // mostly rows of the set's members (positions below its size), as an online solver asks
        let size = (1 + step / 15).min(n);
        let i = if step % 5 == 0 { rng.below(n) } else { rng.below(size) };
        match step % 7 {
            0 => {
                // entering or leaving the set: a swap with the position at its edge
                let j = size - 1;
                q.swap(i, j);
                at.swap(i, j);
            }
            1 => q.discard(i),
            _ => {
                let len = if step % 3 == 0 { (size + rng.below(40)).min(n) } else { size };
                missing += (len - q.cache.len_of(i).min(len)) as u64;
                let row = q.row(i, len).to_vec();
                for (p, &v) in row.iter().enumerate().filter(|_| check) {
                    let want = reference.eval(at[i], at[p]) as f32;
                    assert!((v - want).abs() <= 1e-6, "step {step}: row {i} entry {p}: {v} vs {want}");
                }
            }
        }
    }
    (engine.evals() - base, missing)
}

/// The matrices of a one-vs-one problem's pairs reading their own-class entries from shared
/// `ClassRows` serve, bit for bit, the rows of matrices computing every entry, under the same
/// requests, swaps and extensions. The data is narrow and dense (a pass gives other last bits
/// than a direct visit there), then mostly zero (held sparse: a visit's sum runs over the
/// target's features, so K(a, b) and K(b, a) may differ in the last bits). With three
/// classes, the first pair holds more than half of the examples, so that its long requests
/// take a pass; with six, each class's rows serve five pairs: fewer evaluations, even with
/// the requests at random over a shrinking active set (40% fewer on the dense data; on the
/// sparse data, this small, the engine takes a pass for most whole rows).
#[test]
fn class_rows_serve_the_values_each_pair_computes() {
    for (width, zero_tenths) in [(5, 0), (40, 8)] {
        // (with three classes each class's rows serve one pair, the other visiting by passes)
        for (layout, most) in [(&[0, 0, 0, 0, 0, 1, 1, 1, 1, 2][..], 1.01), (&[0, 1, 2, 3, 4, 5][..], 0.85)] {
            let n = 300;
            let mut rng = Rng::new(11);
            let xs: Vec<f64> = (0..n * width)
                .map(|_| if rng.below(10) < zero_tenths { 0.0 } else { rng.below(1000) as f64 / 500.0 })
                .collect();
            let x = Matrix::Dense64(DenseView::new(&xs, n, width).unwrap());
            let class: Vec<usize> = (0..n).map(|e| layout[e % layout.len()]).collect();
            let k = class.iter().max().unwrap() + 1;
            let members: Vec<Vec<usize>> = (0..k).map(|c| (0..n).filter(|&e| class[e] == c).collect()).collect();
            let shared_engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.05 }).unwrap();
            let plain_engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.05 }).unwrap();
            let rows = ClassRows::new(&class, &members, 1 << 20);
            for (a, b) in (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))) {
                let examples: Vec<usize> = members[a].iter().chain(&members[b]).copied().collect();
                let l = examples.len();
                let mut shared = ExampleQ::new(&shared_engine, examples.clone(), 1 << 22).segmented(&rows);
                let mut plain = ExampleQ::new(&plain_engine, examples, 1 << 22);
                for step in 0..1500 {
                    // an active set shrinking and growing back: rows are extended, by a few
                    // entries (from symmetric ones) or many
                    let active = l - [0, 3, l / 5, l / 2][step / 100 % 4];
                    let i = rng.below(active);
                    if step % 5 == 0 {
                        let j = rng.below(active);
                        shared.swap(i, j);
                        plain.swap(i, j);
                        continue;
                    }
                    let got: Vec<u32> = shared.row(i, active).iter().map(|v| v.to_bits()).collect();
                    let want: Vec<u32> = plain.row(i, active).iter().map(|v| v.to_bits()).collect();
                    assert_eq!(got, want, "width {width}, {k} classes, pair ({a}, {b}), step {step}, row {i}");
                }
            }
            let ratio = shared_engine.evals() as f64 / plain_engine.evals() as f64;
            assert!(ratio < most, "width {width}, {k} classes: {ratio} of the evaluations");
        }
    }
}

/// Rows extended from symmetric entries under growth, swaps and evictions hold the kernel
/// values of the examples now at their positions, with fewer evaluations than entries added.
#[test]
fn short_rows_stay_exact_and_reuse_symmetric_entries() {
    drive(true);
    let (evals, missing) = drive(false);
    assert!(evals < missing * 9 / 10, "{evals} evaluations for {missing} entries");
}
