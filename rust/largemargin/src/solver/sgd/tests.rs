use super::*;
use crate::data::{CsrMatrix, DenseView};
use crate::runtime::rng::Rng;
use crate::solver::sgd::loss::MarginLoss;

/// A noisy linear concept over sparse rows: y = sign(<u, x>) with 5% of labels flipped.
fn problem(n: usize, d: usize, seed: u64) -> (CsrMatrix, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let u: Vec<f64> = (0..d).map(|_| rng.below(2001) as f64 / 1000.0 - 1.0).collect();
    let mut x = CsrMatrix::new();
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let mut cols: Vec<usize> = (0..8).map(|_| rng.below(d)).collect();
        cols.sort_unstable();
        cols.dedup();
        let row: Vec<(usize, f64)> = cols.iter().map(|&j| (j, 0.3 + rng.below(700) as f64 / 1000.0)).collect();
        let s: f64 = row.iter().map(|&(j, v)| u[j] * v).sum();
        let flip = rng.below(100) < 5;
        y.push(if (s > 0.0) != flip { 1.0 } else { -1.0 });
        x.push_row(row).unwrap();
    }
    x.set_cols(d).unwrap();
    (x, y)
}

fn train(algorithm: Algorithm, x: &Matrix, y: &[f64], epochs: usize, lambda: f64, t0: f64) -> LinearModel<'static> {
    let c = vec![1.0; x.rows()];
    let p = SgdParams { algorithm, lambda, t0, skip: skip_for(x), ..Default::default() };
    let mut m = LinearModel::new(x.cols());
    let order: Vec<usize> = (0..x.rows()).collect();
    for _ in 0..epochs {
        m.epoch(x, y, &c, &order, &MarginLoss::SquaredHinge, &p, &Control::new()).unwrap();
    }
    m
}

#[test]
fn a_pass_staged_by_a_team_is_the_same_pass() {
    // a shuffled order over sparse rows, in float64 and float32, several stretches long
    let (x, y) = problem(3 * super::staging::STRETCH + 17, 40, 11);
    let (ip, ix, xd) = (x.indptr().to_vec(), x.indices().to_vec(), x.data().to_vec());
    let xd32: Vec<f32> = xd.iter().map(|&v| v as f32).collect();
    let c: Vec<f64> = (0..x.rows()).map(|i| 0.5 + (i % 3) as f64).collect();
    let mut order: Vec<usize> = (0..x.rows()).collect();
    Rng::new(5).shuffle(&mut order);
    let views = [
        Matrix::Csr64(crate::data::CsrView::new(&ip, &ix, &xd, x.cols()).unwrap()),
        Matrix::Csr32(crate::data::CsrView::new(&ip, &ix, &xd32, x.cols()).unwrap()),
    ];
    for view in &views {
        for algorithm in [Algorithm::Asgd, Algorithm::SvmSgd2, Algorithm::SgdQn] {
            let p = SgdParams { algorithm, lambda: 1e-3, t0: 100.0, skip: 7, ..Default::default() };
            // (the last: a team that runs some stretches alone, as when its helper is late)
            let run = |threads: usize, alone: u32| {
                crate::runtime::team::with_team(threads, |team| {
                    let mut m = LinearModel::new(x.cols());
                    for _ in 0..2 {
                        team.go_solo_for(alone);
                        m.epoch_on(team, view, &y, &c, &order, &MarginLoss::SquaredHinge, &p, &Control::new()).unwrap();
                    }
                    m
                })
            };
            let one = run(1, 0);
            for two in [run(2, 0), run(2, 2)] {
                assert!(
                    one.weights().iter().zip(&two.weights()).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{algorithm:?}"
                );
                assert_eq!((one.bias.to_bits(), one.t), (two.bias.to_bits(), two.t));
            }
        }
    }
}

/// The squared-hinge primal is smooth and strongly convex: its minimum is found by gradient
/// descent with exact line search on the dense gradient, as a reference for the SGD solvers.
fn batch_optimum(x: &Matrix, y: &[f64], lambda: f64) -> f64 {
    let (n, d) = (x.rows(), x.cols());
    let loss = MarginLoss::SquaredHinge;
    let c = vec![1.0; n];
    let mut m = LinearModel::new(d);
    for _ in 0..3000 {
        let mut g: Vec<f64> = m.w.iter().map(|&v| lambda * v as f64).collect();
        for i in 0..n {
            let f = m.decision(x, i);
            let dl = loss.dloss(f, y[i]) / n as f64;
            Query::row(x, i).for_each_nonzero(|j, v| g[j] += dl * v);
        }
        // backtracking on the primal
        let base = primal(&m, x, y, &c, &loss, lambda).0;
        let gg: f64 = g.iter().map(|v| v * v).sum();
        if gg < 1e-20 {
            break;
        }
        let mut step = 1.0 / lambda;
        loop {
            let mut trial = m.clone();
            for (w, gj) in trial.w.iter_mut().zip(&g) {
                *w -= (step * gj) as f32;
            }
            if primal(&trial, x, y, &c, &loss, lambda).0 <= base - 0.3 * step * gg || step < 1e-12 {
                m = trial;
                break;
            }
            step *= 0.5;
        }
    }
    primal(&m, x, y, &c, &loss, lambda).0
}

#[test]
fn every_algorithm_approaches_the_optimum() {
    let (xs, y) = problem(4000, 300, 1);
    let x = xs.view();
    let lambda = 1e-3;
    let best = batch_optimum(&x, &y, lambda);
    let c = vec![1.0; 4000];
    for algorithm in [Algorithm::Sgd, Algorithm::SvmSgd2, Algorithm::SgdQn, Algorithm::SgdQn2009, Algorithm::Asgd] {
        // (a t0 that suits the three step-size schedules: SGD-QN's and ASGD's stay large longer)
        let m = train(algorithm, &x, &y, 20, lambda, 1e4);
        let (value, error) = primal(&m, &x, &y, &c, &MarginLoss::SquaredHinge, lambda);
        assert!(value <= best * 1.01 && value >= best * (1.0 - 1e-6), "{algorithm:?}: {value} against {best}");
        assert!(error < 0.15, "{algorithm:?}: training error {error}");
    }
}

/// Dense and sparse storage of the same examples give the same model (up to float rounding).
#[test]
fn dense_and_sparse_rows_agree() {
    let (xs, y) = problem(500, 40, 2);
    let dense: Vec<f64> =
        (0..500).flat_map(|i| (0..40).map(move |j| (i, j))).map(|(i, j)| xs.view().get(i, j)).collect();
    let xd = Matrix::Dense64(DenseView::new(&dense, 500, 40).unwrap());
    for algorithm in [Algorithm::SvmSgd2, Algorithm::SgdQn, Algorithm::SgdQn2009, Algorithm::Asgd] {
        let p = SgdParams { algorithm, lambda: 1e-3, t0: 1e3, skip: 7, ..Default::default() };
        let (mut a, mut b) = (LinearModel::new(40), LinearModel::new(40));
        let order: Vec<usize> = (0..500).collect();
        let c = vec![1.0; 500];
        let loss = MarginLoss::Hinge;
        a.epoch(&xs.view(), &y, &c, &order, &loss, &p, &Control::new()).unwrap();
        b.epoch(&xd, &y, &c, &order, &loss, &p, &Control::new()).unwrap();
        for (u, v) in a.weights().iter().zip(&b.weights()) {
            assert!((u - v).abs() <= 1e-4 * (1.0 + u.abs()), "{algorithm:?}: {u} vs {v}");
        }
    }
}

/// Two half-passes continue exactly where one pass would be.
#[test]
fn training_continues_where_it_stopped() {
    let (xs, y) = problem(1000, 50, 3);
    let x = xs.view();
    let c = vec![1.0; 1000];
    let order: Vec<usize> = (0..1000).collect();
    for algorithm in [Algorithm::SvmSgd2, Algorithm::SgdQn, Algorithm::SgdQn2009, Algorithm::Asgd] {
        let p = SgdParams { algorithm, lambda: 1e-3, t0: 1e3, skip: 13, fit_bias: true, ..Default::default() };
        let loss = MarginLoss::Log;
        let mut whole = LinearModel::new(50);
        whole.epoch(&x, &y, &c, &order, &loss, &p, &Control::new()).unwrap();
        let mut halves = LinearModel::new(50);
        halves.epoch(&x, &y, &c, &order[..437], &loss, &p, &Control::new()).unwrap();
        halves.epoch(&x, &y, &c, &order[437..], &loss, &p, &Control::new()).unwrap();
        assert_eq!(whole, halves, "{algorithm:?}");
    }
}

/// A loss that is not a built-in (as a plugin's) takes the generic path: the same steps as
/// the built-in it wraps, in any order of the examples.
#[test]
fn an_opaque_loss_trains_as_the_built_in() {
    struct Opaque(MarginLoss);
    impl Loss for Opaque {
        fn loss(&self, f: f64, y: f64) -> f64 {
            self.0.loss(f, y)
        }
        fn dloss(&self, f: f64, y: f64) -> f64 {
            self.0.dloss(f, y)
        }
    }
    let (xs, y) = problem(800, 60, 8);
    let x = xs.view();
    let c = vec![1.0; 800];
    let mut order: Vec<usize> = (0..800).collect();
    Rng::new(3).shuffle(&mut order);
    for algorithm in [Algorithm::SvmSgd2, Algorithm::SgdQn, Algorithm::SgdQn2009, Algorithm::Asgd, Algorithm::Sgd] {
        let p = SgdParams { algorithm, lambda: 1e-3, t0: 1e3, skip: 11, fit_bias: true, ..Default::default() };
        let (mut a, mut b) = (LinearModel::new(60), LinearModel::new(60));
        a.epoch(&x, &y, &c, &order, &MarginLoss::Log, &p, &Control::new()).unwrap();
        b.epoch(&x, &y, &c, &order, &Opaque(MarginLoss::Log), &p, &Control::new()).unwrap();
        assert_eq!(a, b, "{algorithm:?}");
    }
}

/// SGD-QN 2009's B stays between 1e-2/lambda and 1/lambda, and slows down some coordinates.
#[test]
fn the_rescaling_stays_in_its_bounds() {
    let (xs, y) = problem(3000, 100, 4);
    let lambda = 1e-3;
    let m = train(Algorithm::SgdQn2009, &xs.view(), &y, 3, lambda, 1e3);
    let (lo, hi) = ((1e-2 / lambda) as f32, (1.0 / lambda) as f32);
    assert!(m.scale.iter().all(|&b| b >= lo * 0.999 && b <= hi * 1.001));
    assert!(m.scale.iter().any(|&b| b < 0.9 * hi), "B never moved");
}

/// ASGD's implicit average is the average of the iterates computed directly (dense float64
/// w, its decay and step applied to every coordinate), from averaging's start on, through the
/// huge first decays of t0 = 1, the renormalisations and a continued pass.
#[test]
fn implicit_averaging_is_the_direct_average() {
    let (xs, y) = problem(3000, 40, 9);
    let x = xs.view();
    let (n, d) = (x.rows(), x.cols());
    let c: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
    for (t0, start, lambda, loss) in [
        (1.0, 0.0, 0.5, MarginLoss::Log),
        (1e3, 1500.0, 1e-2, MarginLoss::SquaredHinge),
        (1e3, 4000.0, 1e-5, MarginLoss::Hinge),
    ] {
        let p = SgdParams {
            algorithm: Algorithm::Asgd,
            lambda,
            t0,
            average_start: start,
            fit_bias: true,
            bias_rate: 0.1,
            ..Default::default()
        };
        let mut order: Vec<usize> = (0..n).collect();
        Rng::new(4).shuffle(&mut order);
        let mut m = LinearModel::new(d);
        m.epoch(&x, &y, &c, &order[..1234], &loss, &p, &Control::new()).unwrap();
        m.epoch(&x, &y, &c, &order[1234..], &loss, &p, &Control::new()).unwrap();
        m.epoch(&x, &y, &c, &order, &loss, &p, &Control::new()).unwrap();
        // directly
        let (mut w, mut b, mut avg, mut avg_b, mut k) = (vec![0.0f64; d], 0.0, vec![0.0f64; d], 0.0, 0.0);
        let eta0 = 1.0 / (lambda * t0);
        for (t, &i) in order.iter().chain(&order).enumerate() {
            let t = t as f64;
            let row = Query::row(&x, i);
            let mut f = b;
            row.for_each_nonzero(|j, v| f += w[j] * v);
            let g = c[i] * loss.dloss(f, y[i]);
            let eta = eta0 / (1.0 + lambda * eta0 * t).powf(0.75);
            w.iter_mut().for_each(|v| *v *= (1.0 - eta * lambda).max(0.0));
            row.for_each_nonzero(|j, v| w[j] -= eta * g * v);
            b -= eta * 0.1 * g;
            if t >= start {
                k += 1.0;
                avg.iter_mut().zip(&w).for_each(|(a, w)| *a += (w - *a) / k);
                avg_b += (b - avg_b) / k;
            }
        }
        let (want, want_b) = if k > 0.0 { (avg, avg_b) } else { (w, b) };
        let got = m.weights();
        let scale = want.iter().fold(0f64, |s, v| s.max(v.abs()));
        for (g, v) in got.iter().zip(&want) {
            assert!((g - v).abs() <= 1e-10 * scale, "t0 {t0}: {g} vs {v}");
        }
        assert!((m.bias - want_b).abs() <= 1e-10 * want_b.abs().max(1.0), "t0 {t0}: bias {} vs {want_b}", m.bias);
    }
}

/// The margin perceptron separates separable data, and a smaller rate gives a larger margin
/// (Collobert and Bengio, Theorem 2).
#[test]
fn the_margin_perceptron_separates_with_a_margin() {
    let n = 400;
    let mut rng = Rng::new(5);
    let mut dense = Vec::new();
    let mut y = Vec::new();
    for i in 0..n {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        let a = rng.below(1000) as f64 / 1000.0 + 0.2;
        let b = rng.below(2000) as f64 / 1000.0 - 1.0;
        dense.extend([label * a, b]);
        y.push(label);
    }
    let x = Matrix::Dense64(DenseView::new(&dense, n, 2).unwrap());
    let c = vec![1.0; n];
    let order: Vec<usize> = (0..n).collect();
    let mut margins = Vec::new();
    for rate in [0.1, 0.001] {
        let p = SgdParams {
            algorithm: Algorithm::MarginPerceptron,
            lambda: 0.0,
            rate: Some(rate),
            fit_bias: true,
            bias_rate: 1.0, // b += rate y, as w
            ..Default::default()
        };
        let mut m = LinearModel::new(2);
        for _ in 0..200 {
            m.epoch(&x, &y, &c, &order, &MarginLoss::Hinge, &p, &Control::new()).unwrap();
        }
        let norm = m.w.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
        let worst = (0..n).map(|i| y[i] * m.decision(&x, i)).fold(f64::INFINITY, f64::min);
        assert!(worst > 0.0, "rate {rate}: not separated");
        margins.push(worst / norm);
    }
    assert!(margins[1] > margins[0], "margins {margins:?}");
}

#[test]
fn t0_is_chosen_among_the_candidates() {
    let (xs, y) = problem(5000, 200, 6);
    let x = xs.view();
    let c = vec![1.0; 5000];
    let p = SgdParams { algorithm: Algorithm::SgdQn, lambda: 1e-4, skip: skip_for(&x), ..Default::default() };
    let t0 = choose_t0(&x, &y, &c, &c, &MarginLoss::SquaredHinge, &p, &t0_candidates(), 1, &Control::new()).unwrap();
    // a candidate above the stable t0, or that bound itself
    let floor = stable_t0(&x, &c, &MarginLoss::SquaredHinge, &p).unwrap();
    assert!(t0 == floor || t0_candidates().contains(&t0) && t0 > floor, "{t0} (bound {floor})");
    // the chosen t0 is no worse, after one full pass, than the extreme candidates
    let value = |t0: f64| {
        let m = train(Algorithm::SgdQn, &x, &y, 1, 1e-4, t0);
        primal(&m, &x, &y, &c, &MarginLoss::SquaredHinge, 1e-4).0
    };
    assert!(value(t0) <= value(1.0).min(value(1e8)) * 1.05);
}

/// The built-in losses' curvatures at the margin's scale, and a t0 that keeps the first
/// steps stable on the largest weighted row: on rows whose squared hinge diverges in a few
/// passes at a t0 that one pass over them lets through (a |x|^2 ~ 4 problem, as iris).
#[test]
fn the_chosen_t0_is_stable_by_construction() {
    for (loss, want) in [(MarginLoss::Hinge, 1.0), (MarginLoss::SquaredHinge, 1.0), (MarginLoss::ModifiedHuber, 2.0)] {
        assert!((loss_curvature(&loss) - want).abs() < 1e-12, "{loss:?}");
    }
    assert!((loss_curvature(&MarginLoss::Log) - 0.25).abs() < 0.02);
    let n = 112;
    let mut rng = Rng::new(11);
    let xs: Vec<f64> = (0..n * 4).map(|_| (rng.below(4001) as f64 / 1000.0 - 2.0) * 1.2).collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, 4).unwrap());
    let y: Vec<f64> = (0..n).map(|i| if (i % 3 == 1) != (xs[4 * i] > 1.5) { 1.0 } else { -1.0 }).collect();
    let c = vec![1.0; n];
    let mut heavy = c.clone();
    heavy[5] = 20.0;
    for algorithm in [Algorithm::Asgd, Algorithm::SgdQn, Algorithm::SgdQn2009, Algorithm::SvmSgd2, Algorithm::Sgd] {
        let p = SgdParams {
            algorithm,
            lambda: 1e-4,
            t0: 1.0,
            fit_bias: true,
            bias_rate: 1.0,
            skip: 16,
            ..Default::default()
        };
        let loss = MarginLoss::SquaredHinge;
        for bound in [&c, &heavy] {
            let t0 = choose_t0(&x, &y, &c, bound, &loss, &p, &t0_candidates(), 3, &Control::new()).unwrap();
            assert!(t0 >= stable_t0(&x, bound, &loss, &p).unwrap() && t0 >= 1e4, "{algorithm:?}: {t0}");
            let q = SgdParams { t0, ..p.clone() };
            let mut m = LinearModel::new(4);
            let order: Vec<usize> = (0..n).collect();
            for _ in 0..50 {
                m.epoch(&x, &y, bound, &order, &loss, &q, &Control::new()).unwrap();
            }
            assert!(
                m.weights().iter().all(|v| v.is_finite() && v.abs() < 1e3) && m.bias.is_finite(),
                "{algorithm:?}: {:?}",
                m.weights()
            );
        }
        // (the unbounded t0 = 1000 of the old choice overflows here)
        let q = SgdParams { t0: 1e3, ..p.clone() };
        let mut m = LinearModel::new(4);
        let order: Vec<usize> = (0..n).collect();
        for _ in 0..50 {
            m.epoch(&x, &y, &c, &order, &MarginLoss::SquaredHinge, &q, &Control::new()).unwrap();
        }
        assert!(
            !m.weights().iter().all(|v| v.is_finite() && v.abs() < 1e3),
            "{algorithm:?}: t0 = 1000 did not diverge"
        );
    }
}

#[test]
fn bad_parameters_are_named() {
    let (xs, y) = problem(10, 5, 7);
    let mut m = LinearModel::new(5);
    let c = vec![1.0; 10];
    for (p, what) in [
        (SgdParams { lambda: 0.0, ..Default::default() }, "lambda"),
        (SgdParams { t0: -1.0, ..Default::default() }, "t0"),
        (SgdParams { skip: 0, ..Default::default() }, "skip"),
        (SgdParams { algorithm: Algorithm::MarginPerceptron, ..Default::default() }, "learning rate"),
        (SgdParams { algorithm: Algorithm::SgdQn, rate: Some(0.1), ..Default::default() }, "SGD-QN"),
    ] {
        let e = m.epoch(&xs.view(), &y, &c, &[0, 1], &MarginLoss::Hinge, &p, &Control::new()).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
}
