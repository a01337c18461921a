use super::*;
use crate::data::DenseView;

fn clusters(n: usize, classes: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = Rng::new(seed);
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let c = i % classes;
        let angle = c as f64 * std::f64::consts::TAU / classes as f64;
        for centre in [angle.cos(), angle.sin()] {
            let u: f64 = (0..6).map(|_| rng.below(1000) as f64 / 1000.0).sum::<f64>() - 3.0;
            x.push(1.5 * centre + 0.5 * u);
        }
        y.push(c);
    }
    (x, y)
}

fn solve(kernel: KernelSpec, method: Method, epochs: usize) -> (f64, f64, f64, usize) {
    let n = 400;
    let (xs, y) = clusters(n, 4, 3);
    let x = Matrix::Dense64(DenseView::new(&xs, n, 2).unwrap());
    let engine = KernelEngine::new(x, kernel).unwrap();
    let params = LaRankParams { c: 1.0, method, ..Default::default() };
    let mut lr = LaRank::new(&engine, x, y.clone(), &[], 4, params).unwrap();
    let mut rng = Rng::new(1);
    let mut order: Vec<usize> = (0..n).collect();
    let control = Control::new();
    for _ in 0..epochs {
        rng.shuffle(&mut order);
        lr.epoch(&order, &mut rng, &control).unwrap();
    }
    let dual_tracked = lr.dual();
    let gap = lr.duality_gap();
    let scores = lr.all_scores();
    let errors = scores.chunks_exact(4).zip(&y).filter(|(s, &t)| argmax_first(s) != t).count();
    (lr.dual(), dual_tracked, gap, errors)
}

/// The beta-dual's constraints hold and the gap closes with epochs; the tracked gradients
/// agree with the recomputed ones.
#[test]
fn epochs_close_the_duality_gap() {
    let rbf = KernelSpec::Rbf { gamma: 0.5 };
    let (d1, t1, g1, _) = solve(rbf.clone(), Method::LaRank(Schedule::Adaptive), 1);
    let (d5, _, g5, e5) = solve(rbf, Method::LaRank(Schedule::Adaptive), 8);
    assert!((d1 - t1).abs() < 1e-6 * d1.abs().max(1.0), "tracked {t1} vs exact {d1}");
    assert!(d5 >= d1 - 1e-9, "dual {d1} -> {d5}");
    assert!(g5 < g1 && g5 >= -1e-6, "gap {g1} -> {g5}");
    assert!(g5 < 1.0, "gap after 8 epochs {g5}");
    assert!(e5 < 60, "{e5} training errors");
}

/// More reprocessing gives a better dual than passive-aggressive (PROCESSNEW only).
#[test]
fn reprocessing_beats_passive_aggressive() {
    let rbf = KernelSpec::Rbf { gamma: 0.5 };
    let (pa, ..) = solve(rbf.clone(), Method::LaRank(Schedule::Fixed { reprocess: 0 }), 1);
    let (fixed, ..) = solve(rbf.clone(), Method::LaRank(Schedule::Fixed { reprocess: 3 }), 1);
    let (adaptive, ..) = solve(rbf, Method::LaRank(Schedule::Adaptive), 1);
    assert!(fixed > pa && adaptive > pa, "PA {pa}, fixed {fixed}, adaptive {adaptive}");
}

/// The linear path (explicit weights) and the kernel path over a linear kernel solve the same
/// problem: their duals agree within the duality gaps. (They need not make the same steps:
/// float32 kernel rows break gradient ties differently.)
#[test]
fn linear_path_matches_the_kernel_path() {
    let (d_lin, _, g_lin, _) = solve(KernelSpec::Linear, Method::LaRank(Schedule::Fixed { reprocess: 2 }), 6);
    let poly = KernelSpec::Poly { gamma: 1.0, coef0: 0.0, degree: 1 };
    let (d_ker, _, g_ker, _) = solve(poly, Method::LaRank(Schedule::Fixed { reprocess: 2 }), 6);
    assert!(g_lin < 0.05 * d_lin && g_ker < 0.05 * d_ker, "gaps {g_lin}, {g_ker} (duals {d_lin}, {d_ker})");
    assert!((d_lin - d_ker).abs() <= g_lin.max(g_ker) + 1e-9, "{d_lin} vs {d_ker}, gaps {g_lin}, {g_ker}");
}

/// One PROCESSNEW on an empty model is the passive-aggressive step with curvature 2 k(x, x):
/// lambda = min(C, 1 / (2 k(x,x))).
#[test]
fn first_step_is_the_closed_form() {
    let xs = [2.0, 0.0, 0.0, 1.0];
    let x = Matrix::Dense64(DenseView::new(&xs, 2, 2).unwrap());
    let engine = KernelEngine::new(x, KernelSpec::Linear).unwrap();
    for (c, want) in [(10.0, 1.0 / 8.0), (0.05, 0.05)] {
        let params = LaRankParams { c, method: Method::LaRank(Schedule::Fixed { reprocess: 0 }), ..Default::default() };
        let mut lr = LaRank::new(&engine, x, vec![1, 0], &[], 3, params).unwrap();
        let gain = lr.process_new(0);
        let (support, coef) = lr.expansion();
        assert_eq!(support, vec![0]);
        // c- is the first class of least gradient (0 and 2 tie at g = 0)
        assert_eq!(coef, vec![-want, want, 0.0]);
        assert!((gain - (want * 1.0 - want * want * 4.0)).abs() < 1e-12);
    }
}
