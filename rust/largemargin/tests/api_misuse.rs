//! The public Rust API given mismatched inputs: every case is an `Err` (or a panic the API
//! documents), never a read out of bounds. CI runs this in release mode, where a missing check
//! would not be caught by a debug assertion but would read past a buffer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use largemargin::data::{CsrMatrix, CsrView, DenseView, Matrix};
use largemargin::kernel::{ExternalKernel, KernelEngine, KernelSpec, Query};
use largemargin::model::predict::Expansion;
use largemargin::solver::sgd::loss::MarginLoss;
use largemargin::solver::sgd::{LinearModel, SgdParams};
use largemargin::train::svm::{train_svc, train_svr, SvmParams};
use largemargin::{Control, Error};

fn invalid<T>(r: largemargin::Result<T>, what: &str) {
    match r {
        Err(Error::InvalidData(m)) => assert!(!m.is_empty(), "{what}"),
        Err(other) => panic!("{what}: expected InvalidData, got {other:?}"),
        Ok(_) => panic!("{what}: accepted"),
    }
}

#[test]
fn csr_views_refuse_every_broken_structure() {
    let v = [1.0f64, 2.0, 3.0];
    // an index at or past the width, negative, unsorted, repeated
    invalid(CsrView::new(&[0, 3], &[0, 1, 5], &v, 5), "index == cols");
    invalid(CsrView::new(&[0, 3], &[0, 1, i32::MAX], &v, 5), "index far past cols");
    invalid(CsrView::new(&[0, 3], &[-1, 0, 1], &v, 5), "negative index");
    invalid(CsrView::new(&[0, 3], &[2, 1, 3], &v, 5), "unsorted");
    invalid(CsrView::new(&[0, 3], &[1, 1, 3], &v, 5), "repeated");
    // indptr: empty, not from 0, past the data, short of it, decreasing (also through a value
    // past the end that a later entry brings back), negative
    invalid(CsrView::new(&[], &[], &[] as &[f64], 5), "empty indptr");
    invalid(CsrView::new(&[1, 3], &[0, 1, 2], &v, 5), "indptr not from 0");
    invalid(CsrView::new(&[0, 4], &[0, 1, 2], &v, 5), "indptr past the data");
    invalid(CsrView::new(&[0, 2], &[0, 1, 2], &v, 5), "indptr short of the data");
    invalid(CsrView::new(&[0, 2, 1, 3], &[0, 1, 2], &v, 5), "indptr decreasing");
    invalid(CsrView::new(&[0, 100, 3], &[0, 1, 2], &v, 5), "indptr beyond the arrays mid-way");
    invalid(CsrView::new(&[0, -2, 3], &[0, 1, 2], &v, 5), "negative indptr");
    invalid(CsrView::new(&[0, i64::MIN], &[], &[] as &[f64], 5), "indptr i64::MIN");
    // indices and data of different lengths
    invalid(CsrView::new(&[0, 2], &[0, 1], &v, 5), "indices shorter than data");
    invalid(CsrView::new(&[0, 3], &[0, 1, 2], &v[..2], 5), "data shorter than indices");
    // float32 too
    invalid(CsrView::new(&[0, 1], &[7], &[1.0f32], 3), "f32 index past cols");
    // and the good one passes, its rows in bounds
    let ok = CsrView::new(&[0, 2, 3], &[0, 4, 2], &v, 5).unwrap();
    assert_eq!((ok.rows(), ok.cols()), (2, 5));
    assert_eq!(ok.row(1), (&[2][..], &[3.0][..]));
}

#[test]
fn dense_views_need_rows_times_cols_values() {
    let v = [0.0f64; 6];
    invalid(DenseView::new(&v, 2, 2), "too many values");
    invalid(DenseView::new(&v, 4, 2), "too few values");
    invalid(DenseView::new(&v, usize::MAX, 2), "rows * cols overflows");
    invalid(DenseView::new(&[] as &[f64], usize::MAX / 2 + 1, 2), "rows * cols overflows to 0");
    let ok = DenseView::new(&v, 3, 2).unwrap();
    assert_eq!(ok.row(2).len(), 2);
    // a row past the end is a documented panic, not a read past the buffer
    assert!(catch_unwind(|| ok.row(3).len()).is_err());
}

#[test]
fn owned_csr_matrices_keep_their_structure() {
    invalid(CsrMatrix::from_parts(vec![0, 2], vec![0, 9], vec![1.0, 2.0], 4), "from_parts index past cols");
    invalid(CsrMatrix::from_parts(vec![0, 2, 1], vec![0, 1], vec![1.0, 2.0], 4), "from_parts indptr");
    invalid(CsrMatrix::from_parts(vec![0, 2], vec![0], vec![1.0, 2.0], 4), "from_parts lengths");

    let mut m = CsrMatrix::new();
    m.push_row([(1, 1.0), (3, 2.0)]).unwrap();
    let before = m.clone();
    invalid(m.push_row([(2, 1.0), (1, 1.0)]), "push_row unsorted");
    invalid(m.push_row([(2, 1.0), (2, 1.0)]), "push_row repeated");
    invalid(m.push_row([(0, 1.0), (1usize << 31, 1.0)]), "push_row past i32");
    assert_eq!(m, before, "a refused row leaves the matrix as it was");
    invalid(m.set_cols(3), "set_cols cutting off column 3");
    m.set_cols(10).unwrap();
    assert_eq!(m.cols(), 10);
    invalid(m.shift_columns_down(2), "shift past column 1");
    assert_eq!(m, {
        let mut b = before.clone();
        b.set_cols(10).unwrap();
        b
    });
    m.shift_columns_down(1).unwrap();
    assert_eq!((m.indices(), m.cols()), (&[0, 2][..], 9));
}

#[test]
fn sparse_queries_are_checked() {
    let v = [1.0, 2.0];
    assert!(Query::sparse(&[1, 0], &v).is_err(), "unsorted");
    assert!(Query::sparse(&[1, 1], &v).is_err(), "repeated");
    assert!(Query::sparse(&[-1, 0], &v).is_err(), "negative");
    assert!(Query::sparse(&[0], &v).is_err(), "fewer indices than values");
    assert!(Query::sparse32(&[3, 2], &[1.0f32, 2.0]).is_err(), "f32 unsorted");
    assert_eq!(Query::sparse(&[0, 7], &v).unwrap().span(), 8);
}

/// Three rows of four features, dense and sparse.
fn data() -> (Vec<f64>, CsrMatrix) {
    let dense = vec![1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 0.0];
    let mut csr = CsrMatrix::new();
    for r in 0..3 {
        csr.push_row((0..4).map(|j| (j, dense[r * 4 + j])).filter(|e| e.1 != 0.0)).unwrap();
    }
    csr.set_cols(4).unwrap();
    (dense, csr)
}

const KERNELS: [KernelSpec; 3] =
    [KernelSpec::Linear, KernelSpec::Rbf { gamma: 0.5 }, KernelSpec::Poly { degree: 2, gamma: 1.0, coef0: 1.0 }];

#[test]
fn queries_of_another_width_are_refused() {
    let (dense, csr) = data();
    let dm = Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap());
    let all = [0usize, 1, 2];
    let narrow = [1.0f64; 2];
    let wide = [1.0f64; 9];
    let narrow32 = [1.0f32; 3];
    for m in [dm, csr.view()] {
        for spec in KERNELS {
            // the engine with its own copies and without (the data as given)
            for e in [KernelEngine::new(m, spec.clone()).unwrap(), KernelEngine::within(m, spec.clone(), 0).unwrap()] {
                let mut out = [0.0f64; 3];
                invalid(e.query(&Query::dense(&narrow), 2.0, &all, &mut out), "narrow dense query");
                invalid(e.query(&Query::dense(&wide), 9.0, &all, &mut out), "wide dense query");
                invalid(e.query(&Query::dense32(&narrow32), 3.0, &all, &mut out), "narrow f32 query");
                // a column that is no target row, and outputs of another length
                let q = [1.0f64; 4];
                invalid(e.query(&Query::dense(&q), 4.0, &[0, 3], &mut out[..2]), "column past the rows");
                invalid(e.query(&Query::dense(&q), 4.0, &[usize::MAX], &mut out[..1]), "column usize::MAX");
                invalid(e.query(&Query::dense(&q), 4.0, &all, &mut out[..2]), "fewer outputs than columns");
                let mut out32 = [0.0f32; 3];
                e.query(&Query::dense(&q), 4.0, &all, &mut out32).unwrap();
                // whole matrices of another width
                let short = [0.0f64; 6];
                let q2 = Matrix::Dense64(DenseView::new(&short, 3, 2).unwrap());
                invalid(e.cross(&q2), "cross with narrower rows");
                let long = [0.0f64; 10];
                let q5 = Matrix::Dense32(DenseView::new(&[0.0f32; 10], 2, 5).unwrap());
                invalid(e.cross(&q5), "cross with wider f32 rows");
                let q10 = Matrix::Dense64(DenseView::new(&long, 1, 10).unwrap());
                invalid(e.cross(&q10), "cross with wider rows");
            }
        }
    }
}

/// A sparse query may name features the data never has: they meet zeros there.
#[test]
fn sparse_queries_past_the_data_width_match_nothing() {
    let (dense, csr) = data();
    let dm = Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap());
    let all = [0usize, 1, 2];
    let (idx, val) = ([0, 3, 6, 1_000_000], [1.0, -2.0, 5.0, 7.0]);
    let (inside_idx, inside_val) = ([0, 3], [1.0, -2.0]);
    for m in [dm, csr.view()] {
        for spec in KERNELS {
            for e in [KernelEngine::new(m, spec.clone()).unwrap(), KernelEngine::within(m, spec.clone(), 0).unwrap()] {
                let q = Query::sparse(&idx, &val).unwrap();
                let inside = Query::sparse(&inside_idx, &inside_val).unwrap();
                let (mut got, mut want) = ([0.0f64; 3], [0.0f64; 3]);
                // the same norm for both: the far features count in it, not in the dot products
                let sq = q.squared_norm();
                e.query(&q, sq, &all, &mut got).unwrap();
                e.query(&inside, sq, &all, &mut want).unwrap();
                for k in 0..3 {
                    assert!(
                        (got[k] - want[k]).abs() <= 1e-12 * (1.0 + want[k].abs()),
                        "{spec:?} {k}: {got:?} {want:?}"
                    );
                }
                let dots: Vec<f64> = (0..3).map(|r| dense[r * 4] - 2.0 * dense[r * 4 + 3]).collect();
                if spec == KernelSpec::Linear {
                    assert_eq!(got.to_vec(), dots);
                }
            }
        }
    }
}

#[test]
fn target_rows_out_of_range_panic_as_documented() {
    let (dense, _) = data();
    let dm = Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap());
    let e = KernelEngine::new(dm, KernelSpec::Linear).unwrap();
    let mut out = [0.0f64; 1];
    assert!(catch_unwind(AssertUnwindSafe(|| e.row(3, &[0], &mut out))).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| e.row(0, &[3], &mut out))).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| e.row(0, &[usize::MAX], &mut out))).is_err());
    e.row(2, &[0], &mut out);
    assert_eq!(out[0], 5.0);
}

struct Ones(usize);
impl ExternalKernel for Ones {
    fn name(&self) -> String {
        "ones".into()
    }
    fn len(&self) -> usize {
        self.0
    }
    fn row(&self, _: usize, cols: Option<&[usize]>, out: &mut [f64]) -> Result<(), String> {
        assert!(cols.map_or(self.0, <[usize]>::len) == out.len());
        out.fill(1.0);
        Ok(())
    }
    fn diagonal(&self) -> Result<Vec<f64>, String> {
        Ok(vec![1.0; self.0])
    }
}

#[test]
fn precomputed_and_external_kernels_refuse_what_they_cannot_answer() {
    // precomputed: the query is a kernel row, `cols` its entries
    let gram = [1.0, 0.5, 0.5, 1.0];
    let g = Matrix::Dense64(DenseView::new(&gram, 2, 2).unwrap());
    let e = KernelEngine::new(g, KernelSpec::Precomputed).unwrap();
    let mut out = [0.0f64; 2];
    invalid(e.query(&Query::dense(&[0.3]), 0.0, &[0, 1], &mut out), "precomputed row without column 1");
    e.query(&Query::dense(&[0.3, 0.7]), 0.0, &[1, 0], &mut out).unwrap();
    assert_eq!(out, [0.7, 0.3]);
    // a sparse kernel row holds zeros where it has no entry
    e.query(&Query::sparse(&[1], &[0.7]).unwrap(), 0.0, &[0, 1], &mut out).unwrap();
    assert_eq!(out, [0.0, 0.7]);
    // a precomputed training matrix must be square
    let rect = Matrix::Dense64(DenseView::new(&gram[..2], 1, 2).unwrap());
    invalid(KernelEngine::new(rect, KernelSpec::Precomputed), "non-square Gram matrix");

    // external: no outside rows, and a kernel of another size than the data
    let none: [f64; 0] = [];
    let two = Matrix::Dense64(DenseView::new(&none, 2, 0).unwrap());
    let e = KernelEngine::new(two, KernelSpec::External(Arc::new(Ones(2)))).unwrap();
    assert!(matches!(e.query(&Query::dense(&[]), 0.0, &[0], &mut out[..1]), Err(Error::Kernel(_))));
    invalid(KernelEngine::new(two, KernelSpec::External(Arc::new(Ones(3)))), "external of another size");
}

#[test]
fn expansions_check_their_model_and_their_input() {
    let (dense, csr) = data();
    let sv = csr.view();
    let x_narrow = Matrix::Dense64(DenseView::new(&dense[..9], 3, 3).unwrap());
    let x = Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap());
    let good = Expansion {
        kernel: KernelSpec::Rbf { gamma: 0.5 },
        sv,
        sv_columns: &[0, 1, 2],
        n_support: &[],
        coef: &[1.0, -1.0, 0.5],
        intercept: &[0.1],
    };
    good.decision(&x).unwrap();
    invalid(good.decision(&x_narrow), "input of another width");
    invalid(Expansion { sv_columns: &[0, 1, 3], ..good.clone() }.decision(&x), "support vector index past the rows");
    invalid(Expansion { coef: &[1.0, -1.0], ..good.clone() }.decision(&x), "coefficients short");
    invalid(Expansion { intercept: &[0.1, 0.2], ..good.clone() }.decision(&x), "intercepts of another count");
    let pre = Expansion { kernel: KernelSpec::Precomputed, sv_columns: &[0, 1, 7], ..good.clone() };
    invalid(pre.decision(&x), "precomputed column past the kernel row");
}

#[test]
fn training_refuses_labels_and_weights_of_another_length() {
    let (dense, csr) = data();
    let control = Control::new();
    let params = SvmParams { cache_bytes: 1 << 20, ..SvmParams::default() };
    for x in [Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap()), csr.view()] {
        invalid(train_svc(&x, &[0, 1], 2, &[1.0; 3], &params, &control), "svc: two labels");
        invalid(train_svc(&x, &[0, 1, 0, 1], 2, &[1.0; 4], &params, &control), "svc: four labels");
        invalid(train_svc(&x, &[0, 1, 0], 2, &[1.0; 2], &params, &control), "svc: two weights");
        invalid(train_svc(&x, &[0, 1, 5], 2, &[1.0; 3], &params, &control), "svc: class past n_classes");
        invalid(train_svr(&x, &[0.0, 1.0], &[1.0; 3], 0.1, &params, &control), "svr: two targets");
        invalid(train_svr(&x, &[0.0, 1.0, 2.0], &[1.0; 4], 0.1, &params, &control), "svr: four weights");
    }
}

#[test]
fn linear_models_refuse_rows_wider_than_their_weights() {
    let (dense, csr) = data();
    let control = Control::new();
    let p = SgdParams::default();
    let loss = MarginLoss::Hinge;
    for x in [Matrix::Dense64(DenseView::new(&dense, 3, 4).unwrap()), csr.view()] {
        let mut narrow = LinearModel::new(2);
        invalid(narrow.epoch(&x, &[1.0, -1.0, 1.0], &[1.0; 3], &[0, 1, 2], &loss, &p, &control), "weights narrower");
        let mut m = LinearModel::new(4);
        invalid(m.epoch(&x, &[1.0, -1.0], &[1.0; 3], &[0, 1], &loss, &p, &control), "labels short");
        invalid(m.epoch(&x, &[1.0, -1.0, 1.0], &[1.0; 2], &[0, 1], &loss, &p, &control), "weights short");
        invalid(m.epoch(&x, &[1.0, -1.0, 1.0], &[1.0; 3], &[0, 3], &loss, &p, &control), "order past the rows");
        // a model whose public weights were cut after training: a documented panic
        m.epoch(&x, &[1.0, -1.0, 1.0], &[1.0; 3], &[0, 1, 2], &loss, &p, &control).unwrap();
        m.w.truncate(1);
        assert!(catch_unwind(AssertUnwindSafe(|| m.decision(&x, 2))).is_err());
    }
}
