//! The kernel engine's tests.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::primitives::exp_poly;
use super::*;
use crate::data::{CsrMatrix, DenseView, Matrix};
use crate::error::Error;

#[test]
fn fast_exp_matches_std() {
    let mut x = 0.0;
    while x > -700.0 {
        let (a, b, c) = (exp_nonpositive(x), x.exp(), exp_poly::<true>(x));
        assert!(((a - b) / b).abs() < 1e-14, "x={x} {a} {b}");
        assert!(((c - b) / b).abs() < 1e-14, "x={x} {c} {b}");
        x -= 0.0137;
    }
    assert_eq!(exp_nonpositive(-1e6), exp_nonpositive(-708.0));
}

fn reference(spec: &KernelSpec, a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    match *spec {
        KernelSpec::Linear | KernelSpec::Precomputed => dot,
        KernelSpec::Rbf { gamma } => (-gamma * d2).exp(),
        KernelSpec::Poly { degree, gamma, coef0 } => (gamma * dot + coef0).powi(degree as i32),
        KernelSpec::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
        KernelSpec::Composite(ref c) => {
            c.terms().iter().map(|t| t.weight * t.factors.iter().map(|f| reference(f, a, b)).product::<f64>()).sum()
        }
        KernelSpec::External(_) => unreachable!(),
    }
}

fn rbf_plus_half_linear_times_poly() -> KernelSpec {
    KernelSpec::Composite(Arc::new(
        Composite::new(vec![
            Term { weight: 1.0, factors: vec![KernelSpec::Rbf { gamma: 0.1 }] },
            Term {
                weight: 0.5,
                factors: vec![KernelSpec::Linear, KernelSpec::Poly { degree: 2, gamma: 0.3, coef0: 1.0 }],
            },
            Term { weight: 0.25, factors: vec![] },
        ])
        .unwrap(),
    ))
}

/// Every layout (dense, sparse, dense held sparse), every path (direct, full pass, threads)
/// and every query form give the kernel's textbook value.
#[test]
fn all_layouts_and_paths_agree_with_the_definition() {
    let mut rng = crate::runtime::rng::Rng::new(3);
    let n = 5000;
    // narrow and wide, sparse-ish and dense: every way the engine may hold the data
    for (d, keep_in_8) in [(40, 1usize), (40, 6), (80, 6)] {
        let mut dense = vec![0.0f64; n * d];
        let mut csr = CsrMatrix::new();
        for r in 0..n {
            let mut row = Vec::new();
            for j in 0..d {
                if rng.below(8) < keep_in_8 {
                    let v = rng.below(1000) as f64 / 250.0 - 2.0;
                    dense[r * d + j] = v;
                    row.push((j, v));
                }
            }
            csr.push_row(row).unwrap();
        }
        csr.set_cols(d).unwrap();
        let dm = Matrix::Dense64(DenseView::new(&dense, n, d).unwrap());
        let mut cols: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut cols);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for m in [dm, csr.view()] {
            for spec in [
                KernelSpec::Rbf { gamma: 0.1 },
                KernelSpec::Linear,
                KernelSpec::Poly { degree: 2, gamma: 0.3, coef0: 1.0 },
                KernelSpec::Sigmoid { gamma: 0.01, coef0: -0.2 },
                rbf_plus_half_linear_times_poly(),
            ] {
                // with its copies, and without (no budget for them: the data as given)
                let engines =
                    [KernelEngine::new(m, spec.clone()).unwrap(), KernelEngine::within(m, spec.clone(), 0).unwrap()];
                for e in engines {
                    for i in [0, 17, 4999] {
                        let xi = &dense[i * d..(i + 1) * d];
                        for take in [n, 40] {
                            let c = &cols[..take];
                            let mut par = vec![0.0f64; take];
                            pool.install(|| e.row(i, c, &mut par));
                            let mut single = vec![0.0f64; take];
                            e.row(i, c, &mut single);
                            let mut outside = vec![0.0f64; take];
                            e.query(&Query::dense(xi), xi.iter().map(|v| v * v).sum(), c, &mut outside).unwrap();
                            for k in 0..take {
                                let want = reference(&spec, xi, &dense[c[k] * d..(c[k] + 1) * d]);
                                for got in [par[k], single[k], outside[k]] {
                                    assert!(
                                        (got - want).abs() <= 1e-11 * (1.0 + want.abs()),
                                        "{spec:?} {i} {k} {got} {want}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn composed_kernels_take_only_builtin_factors() {
    let bad = Composite::new(vec![Term { weight: 1.0, factors: vec![KernelSpec::Precomputed] }]);
    assert!(matches!(bad, Err(Error::InvalidParameter(_))));
    let nan = Composite::new(vec![Term { weight: f64::NAN, factors: vec![KernelSpec::Linear] }]);
    assert!(nan.is_err());
    let bad_gamma = Composite::new(vec![Term { weight: 1.0, factors: vec![KernelSpec::Rbf { gamma: -1.0 }] }]);
    assert!(bad_gamma.is_err());
    assert!(Composite::new(vec![]).is_err());
}

/// An external RBF over dense rows, failing (or returning NaN) on demand.
struct OutsideRbf {
    x: Vec<f64>,
    d: usize,
    nan_at: Option<usize>,
    calls: AtomicU64,
}

impl ExternalKernel for OutsideRbf {
    fn name(&self) -> String {
        "outside-rbf".into()
    }
    fn len(&self) -> usize {
        self.x.len() / self.d
    }
    fn row(&self, i: usize, cols: Option<&[usize]>, out: &mut [f64]) -> std::result::Result<(), String> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let all: Vec<usize> = (0..self.len()).collect();
        let cols = cols.unwrap_or(&all);
        let xi = &self.x[i * self.d..(i + 1) * self.d];
        for (o, &c) in out.iter_mut().zip(cols) {
            *o = if Some(c) == self.nan_at {
                f64::NAN
            } else {
                reference(&KernelSpec::Rbf { gamma: 0.5 }, xi, &self.x[c * self.d..(c + 1) * self.d])
            };
        }
        Ok(())
    }
    fn diagonal(&self) -> std::result::Result<Vec<f64>, String> {
        Ok(vec![1.0; self.len()])
    }
}

#[test]
fn external_kernels_are_asked_for_segments_and_their_failures_kept() {
    let (n, d) = (300, 3);
    let mut rng = crate::runtime::rng::Rng::new(5);
    let x: Vec<f64> = (0..n * d).map(|_| rng.below(100) as f64 / 50.0).collect();
    let placeholder: Vec<f64> = Vec::new();
    let m = Matrix::Dense64(DenseView::new(&placeholder, n, 0).unwrap());
    let ext = Arc::new(OutsideRbf { x: x.clone(), d, nan_at: None, calls: AtomicU64::new(0) });
    let e = KernelEngine::new(m, KernelSpec::External(ext.clone())).unwrap();
    let cols: Vec<usize> = (0..n).rev().step_by(3).collect();
    for take in [cols.len(), 10] {
        let mut out = vec![0.0f32; take];
        e.row(7, &cols[..take], &mut out);
        for (k, &c) in cols[..take].iter().enumerate() {
            let want = reference(&KernelSpec::Rbf { gamma: 0.5 }, &x[21..24], &x[c * d..(c + 1) * d]);
            assert!((out[k] as f64 - want).abs() < 1e-6);
        }
    }
    assert_eq!(ext.calls.load(Ordering::Relaxed), 2, "one call per row segment");
    assert_eq!(e.diagonal(&[0, 5]), vec![1.0, 1.0]);
    assert!(e.failure().is_none());

    let bad = Arc::new(OutsideRbf { x, d, nan_at: Some(4), calls: AtomicU64::new(0) });
    let e = KernelEngine::new(m, KernelSpec::External(bad.clone())).unwrap();
    let mut out = vec![0.0f64; n];
    let all: Vec<usize> = (0..n).collect();
    e.row(0, &all, &mut out);
    assert!(out.iter().all(|&v| v == 0.0));
    match e.failure() {
        Some(Error::Kernel(m)) => assert!(m.contains("outside-rbf") && m.contains("NaN"), "{m}"),
        other => panic!("{other:?}"),
    }
    e.row(1, &all, &mut out);
    assert_eq!(bad.calls.load(Ordering::Relaxed), 1, "a failed kernel is not called again");
    let wrong = Matrix::Dense64(DenseView::new(&placeholder, n + 1, 0).unwrap());
    assert!(KernelEngine::new(wrong, KernelSpec::External(bad)).is_err());
}

#[test]
fn mostly_zero_dense_data_is_held_sparse_and_budgeted() {
    let mut data = vec![0.0f64; 100 * 64];
    for r in 0..100 {
        data[r * 64 + r % 64] = 1.0;
    }
    let m = Matrix::Dense64(DenseView::new(&data, 100, 64).unwrap());
    let e = KernelEngine::new(m, KernelSpec::Rbf { gamma: 1.0 }).unwrap();
    assert!(e.sparse_copy.is_some() && e.columns.is_some() && e.dense_columns.is_none());
    assert!(e.extra_bytes() > 0);
    assert!((e.eval(0, 64) - 1.0).abs() < 1e-15);
    assert!((e.eval(0, 1) - (-2.0f64).exp()).abs() < 1e-15);
    assert_eq!(e.evals(), 2);
}

#[test]
fn a_dense_part_beside_one_hot_features_is_streamed_from_its_columns() {
    // four measurements in every row, then one of 36 one-hot features: held sparse, with both a
    // sparse and a dense column copy, and each pass takes the cheaper one for its query
    let (n, d) = (300, 40);
    let mut data = vec![0.0f64; n * d];
    for r in 0..n {
        for f in 0..4 {
            data[r * d + f] = ((r * 7 + f * 13) % 23) as f64 / 11.0 - 1.0;
        }
        data[r * d + 4 + r % 36] = 1.0;
    }
    let m = Matrix::Dense64(DenseView::new(&data, n, d).unwrap());
    let spec = KernelSpec::Rbf { gamma: 0.3 };
    let e = KernelEngine::new(m, spec.clone()).unwrap();
    assert!(e.sparse_copy.is_some() && e.columns.is_some() && e.dense_columns.is_some());
    // the same engine without its dense copy: every pass scatters the sparse columns
    let mut only_sparse = KernelEngine::new(m, spec.clone()).unwrap();
    only_sparse.dense_columns = None;
    let all: Vec<usize> = (0..n).collect();
    let (mut pass, mut scattered) = (vec![0.0f64; n], vec![0.0f64; n]);
    for i in [0, 17, n - 1] {
        let (q, _) = e.target_query(i);
        let (touched, dense) = e.pass_costs(e.columns.as_ref().unwrap(), &q);
        assert!(dense < touched, "a row with its measurements streams the dense columns");
        e.row(i, &all, &mut pass);
        only_sparse.row(i, &all, &mut scattered);
        for c in 0..n {
            let want = reference(&spec, &data[i * d..(i + 1) * d], &data[c * d..(c + 1) * d]);
            assert!((pass[c] - want).abs() < 1e-12, "row {i} column {c}: {} against {want}", pass[c]);
            // each sum adds the query's terms in its order, whichever copy they come from
            assert_eq!(pass[c].to_bits(), scattered[c].to_bits(), "row {i} column {c}: the copies differ");
        }
    }
    // a query of one one-hot feature reads its short sparse column instead
    let (idx, val) = ([9i32], [1.0f64]);
    let q = Query::sparse(&idx, &val).unwrap();
    let (touched, dense) = e.pass_costs(e.columns.as_ref().unwrap(), &q);
    assert!(touched < dense);
    let mut out = vec![0.0f64; n];
    e.query(&q, 1.0, &all, &mut out).unwrap();
    let mut one_hot = vec![0.0f64; d];
    one_hot[9] = 1.0;
    for c in 0..n {
        let want = reference(&spec, &one_hot, &data[c * d..(c + 1) * d]);
        assert!((out[c] - want).abs() < 1e-12, "column {c}: {} against {want}", out[c]);
    }

    // data with no dense feature gets no dense copy
    let mut sparse_only = vec![0.0f64; n * d];
    for r in 0..n {
        sparse_only[r * d + r % d] = 1.0;
        sparse_only[r * d + (r * 3 + 1) % d] = 2.0;
    }
    let m = Matrix::Dense64(DenseView::new(&sparse_only, n, d).unwrap());
    let e = KernelEngine::new(m, spec).unwrap();
    assert!(e.sparse_copy.is_some() && e.dense_columns.is_none());
}

/// The blocked product gives the values of the reference kernel (float64 throughout) for every
/// built-in transform, blocks of every shape (rows not a multiple of the tile's, columns past one
/// packed chunk, columns in any order), float32 and float64 data, queries from outside (`cross`)
/// and from the targets (`block`).
#[test]
fn blocks_give_the_reference_values() {
    let (n, d) = (1100, 13);
    let mut rng = crate::runtime::rng::Rng::new(3);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(2000) as f64 / 400.0 - 2.5).collect();
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let specs = [
        KernelSpec::Linear,
        KernelSpec::Rbf { gamma: 0.07 },
        KernelSpec::Poly { degree: 3, gamma: 0.1, coef0: 1.0 },
        KernelSpec::Sigmoid { gamma: 0.01, coef0: -0.5 },
    ];
    for spec in &specs {
        for x in
            [Matrix::Dense64(DenseView::new(&xs, n, d).unwrap()), Matrix::Dense32(DenseView::new(&x32, n, d).unwrap())]
        {
            let value = |i: usize, j: usize| {
                let row = |r: usize| -> Vec<f64> {
                    match x {
                        Matrix::Dense64(m) => m.row(r).to_vec(),
                        Matrix::Dense32(m) => m.row(r).iter().map(|&v| v as f64).collect(),
                        _ => unreachable!(),
                    }
                };
                reference(spec, &row(i), &row(j))
            };
            let engine = KernelEngine::new(x, spec.clone()).unwrap();
            for m in [1, 6, 7, 40] {
                let rows: Vec<usize> = (0..m).map(|k| (k * 37 + 5) % n).collect();
                let cols: Vec<usize> = (0..n).rev().step_by(1 + m % 3).collect();
                let mut out = vec![0.0f64; m * cols.len()];
                engine.block(&rows, &cols, &mut out, Split::Pool);
                for (k, &r) in rows.iter().enumerate() {
                    for (c, &col) in cols.iter().enumerate() {
                        let (got, want) = (out[k * cols.len() + c], value(r, col));
                        assert!(
                            (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                            "{spec:?} ({r}, {col}): {got} vs {want}"
                        );
                    }
                }
            }
            let q = Matrix::Dense64(DenseView::new(&xs[..9 * d], 9, d).unwrap());
            let cross = engine.cross(&q).unwrap();
            for i in 0..9 {
                for j in 0..n {
                    let want = value(i, j);
                    let got = cross[i * n + j];
                    // (float32 data: the query rows are the float64 originals)
                    let tol = if matches!(x, Matrix::Dense32(_)) { 1e-5 } else { 1e-12 };
                    assert!(
                        (got - want).abs() <= tol * (1.0 + want.abs()),
                        "{spec:?} cross ({i}, {j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

/// Nearly equal rows far from the origin: the squared distance from norms and dot products
/// cancels, and the RBF values still match a direct float64 reference to float32 precision (what
/// the cache stores), here with |x|^2 near 1e7 (raw Forest elevations) and distances near 1e-6.
#[test]
fn blocks_keep_nearly_equal_rows_apart() {
    let d = 54;
    let mut xs = Vec::new();
    let mut rng = crate::runtime::rng::Rng::new(8);
    let base: Vec<f64> = (0..d).map(|k| if k == 0 { 3000.0 } else { rng.below(100) as f64 / 10.0 }).collect();
    for r in 0..20 {
        for (k, &b) in base.iter().enumerate() {
            // rows 0..9 differ by 1e-4 in one feature or are exact duplicates
            let nudge = if r < 10 && k == r % d { 1e-4 * (r % 3) as f64 } else { 0.0 };
            let far = if r >= 10 { (r * k) as f64 * 0.01 } else { 0.0 };
            xs.push(b + nudge + far);
        }
    }
    let n = 20;
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
    for gamma in [1e-3, 1.0, 1e3] {
        let spec = KernelSpec::Rbf { gamma };
        let engine = KernelEngine::new(x, spec.clone()).unwrap();
        let all: Vec<usize> = (0..n).collect();
        let mut out = vec![0.0f32; n * n];
        engine.block(&all, &all, &mut out, Split::Pool);
        for i in 0..n {
            for j in 0..n {
                let want = reference(&spec, &xs[i * d..(i + 1) * d], &xs[j * d..(j + 1) * d]) as f32;
                let got = out[i * n + j];
                assert!(
                    (got - want).abs() <= 2.0 * f32::EPSILON * want.max(1e-30),
                    "gamma {gamma} ({i}, {j}): {got} vs {want}"
                );
            }
        }
    }
}
