use super::scan::*;
use super::*;

/// A problem large enough for every pass to be split gives the same solution, to the last
/// bit, on a team of one, two and three (so does `n_jobs`), with the same kernel work.
#[test]
fn teams_of_any_size_solve_to_the_same_bits() {
    use crate::data::{DenseView, Matrix};
    use crate::kernel::{KernelEngine, KernelSpec, Split};
    use crate::runtime::rng::Rng;
    use crate::runtime::team::with_team;
    use crate::solver::qmatrix::ExampleQ;

    let (n, d) = (4000, 4);
    let mut rng = Rng::new(11);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(10_000) as f64 / 5000.0 - 1.0).collect();
    // a noisy circle: many free and many bounded support vectors
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let r = xs[d * i] * xs[d * i] + xs[d * i + 1] * xs[d * i + 1];
            if (r < 0.5) != (rng.below(10) == 0) {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
    let (lo, hi): (Vec<f64>, Vec<f64>) = y.iter().map(|&v| ((v * 2.0).min(0.0), (v * 2.0).max(0.0))).unzip();
    let solve = |threads: usize| {
        let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 2.0 }).unwrap();
        let sol = with_team(threads, |team| {
            let split = if team.size() > 1 { Split::Team(team) } else { Split::Serial };
            // a small cache: rows are computed again and again, and swapped while cached
            let mut q = ExampleQ::new(&engine, (0..n).collect(), 4 * n * 400).split(split);
            let problem = DualProblem { p: &y, lo: &lo, hi: &hi, equality: Equality::Total };
            solve(team, &mut q, &problem, Start::Zero, &SmoParams::default(), &Control::new()).unwrap()
        });
        (sol, engine.evals())
    };
    let (one, evals) = solve(1);
    assert!(one.converged && one.iterations > 1000);
    for threads in [2, 3] {
        let (other, other_evals) = solve(threads);
        assert_eq!(other.iterations, one.iterations);
        assert_eq!(other_evals, evals);
        assert!(other.alpha.iter().zip(&one.alpha).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert_eq!(other.bias.to_bits(), one.bias.to_bits());
    }
}

/// A status or curvature slice shorter than the gradients is refused before any vector load.
#[test]
fn scans_refuse_short_slices() {
    let g = vec![1.0; 64];
    let status = vec![UP | DOWN; 64];
    let (qd, qi) = (vec![1.0; 64], vec![0.5f32; 64]);
    assert!(std::panic::catch_unwind(|| scan_up(&g, &status[..5], UP)).is_err());
    assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status[..5], DOWN, &qd, &qi, 2.0, 1.0)).is_err());
    assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status, DOWN, &qd[..9], &qi, 2.0, 1.0)).is_err());
    assert!(std::panic::catch_unwind(|| scan_down_second_order(&g, &status, DOWN, &qd, &qi[..1], 2.0, 1.0)).is_err());
    assert_eq!(scan_up(&g[..7], &status, UP), Some((1.0, 6)));
}

#[test]
fn vector_scans_choose_exactly_as_sequential_scans() {
    let mut rng = crate::runtime::rng::Rng::new(5);
    for n in [0, 1, 3, 4, 7, 64, 1001] {
        for _ in 0..50 {
            // few distinct values: many ties; q in {0, 0.5, 1} gives zero curvature (TAU) too
            let g: Vec<f64> = (0..n).map(|_| rng.below(7) as f64 - 3.0).collect();
            let status: Vec<u8> = (0..n).map(|_| rng.below(4) as u8).collect();
            let qd = vec![1.0; n];
            let qi: Vec<f32> = (0..n).map(|_| rng.below(3) as f32 * 0.5).collect();
            let up = scan_up(&g, &status, UP);
            assert_eq!(up, scan_up_from(&g, &status, UP, 0, f64::NEG_INFINITY, usize::MAX));
            if let Some((gmax, i)) = up {
                let fast = scan_down_second_order(&g, &status, DOWN, &qd, &qi, gmax, qd[i]);
                let plain = scan_down_second_order_from(
                    &g,
                    &status,
                    DOWN,
                    &qd,
                    &qi,
                    gmax,
                    qd[i],
                    0,
                    (f64::INFINITY, f64::INFINITY, usize::MAX),
                );
                assert_eq!(fast, plain);
            }
        }
    }
}

/// With per-sign sums (nu-SVC's problem), the solution keeps each sign's sum, meets the KKT
/// conditions within each sign, and its bias and r are the two signs' levels.
#[test]
fn per_sign_sums_are_kept_and_each_sign_is_optimal() {
    use crate::data::{DenseView, Matrix};
    use crate::kernel::{KernelEngine, KernelSpec};
    use crate::runtime::rng::Rng;
    use crate::runtime::team::SOLO;
    use crate::solver::qmatrix::ExampleQ;

    let (n, d) = (300, 3);
    let mut rng = Rng::new(7);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(10_000) as f64 / 5000.0 - 1.0).collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
    let positive: Vec<bool> = (0..n).map(|i| xs[d * i] + 0.3 * xs[d * i + 1] > 0.0).collect();
    let (lo, hi): (Vec<f64>, Vec<f64>) = positive.iter().map(|&p| if p { (0.0, 1.0) } else { (-1.0, 0.0) }).unzip();
    // nu = 0.4 of each sign's count, greedily from the first: a feasible start
    let count = |s: bool| positive.iter().filter(|&&p| p == s).count() as f64;
    let mut left = [0.4 * count(true), 0.4 * count(false)];
    let alpha0: Vec<f64> = positive
        .iter()
        .map(|&p| {
            let l = &mut left[usize::from(!p)];
            let a = l.min(1.0);
            *l -= a;
            if p {
                a
            } else {
                -a
            }
        })
        .collect();
    let zero = vec![0.0; n];
    let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 1.0 }).unwrap();
    let mut q = ExampleQ::new(&engine, (0..n).collect(), 1 << 20);
    let problem = DualProblem { p: &zero, lo: &lo, hi: &hi, equality: Equality::PerSign(&positive) };
    let start = Start::At { alpha: &alpha0, gradient: None, gbar: None };
    let tol = 1e-6;
    let params = SmoParams { tol, ..Default::default() };
    let sol = solve(&SOLO, &mut q, &problem, start, &params, &Control::new()).unwrap();
    assert!(sol.converged);
    let sum = |s: bool| (0..n).filter(|&t| positive[t] == s).map(|t| sol.alpha[t]).sum::<f64>();
    assert!((sum(true) - 0.4 * count(true)).abs() < 1e-9);
    assert!((sum(false) + 0.4 * count(false)).abs() < 1e-9);
    let mut levels = Vec::new();
    for s in [true, false] {
        let vars: Vec<usize> = (0..n).filter(|&t| positive[t] == s).collect();
        let up = vars.iter().filter(|&&t| sol.alpha[t] < hi[t]).map(|&t| sol.gradient[t]).fold(f64::MIN, f64::max);
        let down = vars.iter().filter(|&&t| sol.alpha[t] > lo[t]).map(|&t| sol.gradient[t]).fold(f64::MAX, f64::min);
        assert!(up - down < tol, "sign {s}: violation {}", up - down);
        let free: Vec<f64> =
            vars.iter().filter(|&&t| sol.alpha[t] > lo[t] && sol.alpha[t] < hi[t]).map(|&t| sol.gradient[t]).collect();
        assert!(!free.is_empty());
        levels.push(free.iter().sum::<f64>() / free.len() as f64);
    }
    assert!((sol.bias - 0.5 * (levels[0] + levels[1])).abs() < 1e-9);
    assert!((sol.r - 0.5 * (levels[0] - levels[1])).abs() < 1e-9);
    // the positive examples' margin level is below the negative ones': r < 0 (nu-SVC's margin is -r)
    assert!(sol.r < 0.0);
}

/// Working sets reach the pair steps' optimum: the same dual objective to 1e-6 relative, the
/// optimality conditions (no pair violating tol) over every variable, and the same support
/// vectors but for a few at the margin; on dense data, where the engine computes rows by blocks,
/// with sets much smaller than the problem and a budget that holds few of them.
#[test]
fn working_sets_reach_the_pairs_optimum() {
    use crate::data::{DenseView, Matrix};
    use crate::kernel::{KernelEngine, KernelSpec};
    use crate::runtime::rng::Rng;
    use crate::runtime::team::SOLO;
    use crate::solver::qmatrix::ExampleQ;

    let (n, d) = (3000, 5);
    let mut rng = Rng::new(21);
    let xs: Vec<f64> = (0..n * d).map(|_| rng.below(10_000) as f64 / 5000.0 - 1.0).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let r = xs[d * i] * xs[d * i] + xs[d * i + 1] * xs[d * i + 1] + 0.3 * xs[d * i + 2];
            if (r < 0.5) != (rng.below(8) == 0) {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
    let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 1.5 }).unwrap();
    assert!(engine.blocked());
    for c in [1.0, 30.0] {
        let (lo, hi): (Vec<f64>, Vec<f64>) = y.iter().map(|&v| ((v * c).min(0.0), (v * c).max(0.0))).unzip();
        let problem = DualProblem { p: &y, lo: &lo, hi: &hi, equality: Equality::Total };
        let run = |decomposition, budget_rows: usize| {
            let mut q = ExampleQ::new(&engine, (0..n).collect(), 4 * n * budget_rows + 8 * n * (d + 1) * 4);
            let params = SmoParams { decomposition, ..Default::default() };
            solve(&SOLO, &mut q, &problem, Start::Zero, &params, &Control::new()).unwrap()
        };
        let pairs = run(Decomposition::Pairs, n);
        for (ws, budget_rows) in [(64, 300), (256, n)] {
            let sets = run(Decomposition::WorkingSets(ws), budget_rows);
            assert!(sets.converged && pairs.converged);
            let rel = (sets.objective - pairs.objective).abs() / pairs.objective.abs();
            assert!(rel < 1e-6, "C {c}, sets of {ws}: objective {} vs {}", sets.objective, pairs.objective);
            // the conditions, from the returned gradient
            let up = (0..n).filter(|&t| sets.alpha[t] < hi[t]).map(|t| sets.gradient[t]).fold(f64::MIN, f64::max);
            let down = (0..n).filter(|&t| sets.alpha[t] > lo[t]).map(|t| sets.gradient[t]).fold(f64::MAX, f64::min);
            assert!(up - down < 1e-3, "C {c}, sets of {ws}: violation {}", up - down);
            let sv = |s: &SmoSolution| (0..n).filter(|&t| s.alpha[t] != 0.0).collect::<std::collections::BTreeSet<_>>();
            let differ = sv(&sets).symmetric_difference(&sv(&pairs)).count();
            assert!(differ * 100 <= sv(&pairs).len(), "C {c}, sets of {ws}: {differ} support vectors differ");
            assert!((sets.bias - pairs.bias).abs() < 1e-2, "C {c}: bias {} vs {}", sets.bias, pairs.bias);
        }
    }
}
