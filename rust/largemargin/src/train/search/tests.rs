use super::*;
use crate::data::DenseView;
use crate::runtime::rng::Rng;
use crate::train::svm::{train_svc, train_svr, SvmParams};

/// n points in d dimensions around `classes` centres, overlapping.
fn blobs(n: usize, d: usize, classes: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = Rng::new(seed);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let c = (i * 7 + rng.below(3)) % classes;
        for j in 0..d {
            let centre = if j % classes == c { 1.5 } else { 0.0 };
            x.push(centre + rng.below(2000) as f64 / 1000.0 - 1.0);
        }
        y.push(c);
    }
    (x, y)
}

fn folds(n: usize, k: usize, seed: u64) -> Vec<SearchFold> {
    let mut order: Vec<usize> = (0..n).collect();
    Rng::new(seed).shuffle(&mut order);
    (0..k)
        .map(|f| {
            let test: Vec<usize> = order[f * n / k..(f + 1) * n / k].to_vec();
            let mut train: Vec<usize> = (0..n).filter(|i| !test.contains(i)).collect();
            train.sort_unstable();
            SearchFold { train, eval: test }
        })
        .collect()
}

fn settings(classes: usize, kernels: usize, cs: &[f64], epsilon: f64) -> Vec<SearchSetting> {
    (0..kernels)
        .map(|k| SearchSetting { kernels: vec![k], class_weight: vec![vec![1.0; classes]], cs: cs.to_vec(), epsilon })
        .collect()
}

fn rbf(gammas: &[f64]) -> Vec<KernelSpec> {
    gammas.iter().map(|&gamma| KernelSpec::Rbf { gamma }).collect()
}

/// Decision values of `train_svc` fits on each fold's training rows, as `cross_validate` reports them.
fn independent_svc(x: &[f64], d: usize, y: &[usize], k: usize, fold: &SearchFold, gamma: f64, c: f64) -> Vec<f64> {
    let xs: Vec<f64> = fold.train.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect();
    let ys: Vec<usize> = fold.train.iter().map(|&i| y[i]).collect();
    let xm = Matrix::Dense64(DenseView::new(&xs, fold.train.len(), d).unwrap());
    let params = SvmParams { kernel: KernelSpec::Rbf { gamma }, ..Default::default() };
    let fit = train_svc(&xm, &ys, k, &vec![c; ys.len()], &params, &Control::new()).unwrap();
    let engine = KernelEngine::new(Matrix::Dense64(DenseView::new(x, x.len() / d, d).unwrap()), params.kernel).unwrap();
    let nsv = fit.support.len();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(fit.n_support.iter().scan(0, |s, &v| {
            *s += v;
            Some(*s)
        }))
        .collect();
    let mut out = Vec::new();
    for &t in &fold.eval {
        let kv: Vec<f64> = fit.support.iter().map(|&s| engine.eval(fold.train[s], t) as f32 as f64).collect();
        let mut p = 0;
        let mut votes = vec![0.0; k];
        let mut conf = vec![0.0; k];
        let mut decs = Vec::new();
        for a in 0..k {
            for b in a + 1..k {
                let mut v = fit.intercept[p];
                for s in starts[a]..starts[a + 1] {
                    v += fit.dual_coef[(b - 1) * nsv + s] * kv[s];
                }
                for s in starts[b]..starts[b + 1] {
                    v += fit.dual_coef[a * nsv + s] * kv[s];
                }
                if v > 0.0 {
                    votes[a] += 1.0
                } else {
                    votes[b] += 1.0
                }
                conf[a] += v;
                conf[b] -= v;
                decs.push(v);
                p += 1;
            }
        }
        if k == 2 {
            out.push(decs[0]);
        } else {
            out.extend((0..k).map(|j| votes[j] + conf[j] / (3.0 * (conf[j] as f64).abs() + 3.0)));
        }
    }
    out
}

fn search(
    x: &[f64], d: usize, task: SearchTask, gammas: &[f64], cs: &[f64], folds: &[SearchFold], params: &SearchParams,
) -> SearchResult {
    let xm = Matrix::Dense64(DenseView::new(x, x.len() / d, d).unwrap());
    let classes = match task {
        SearchTask::Classification { n_classes, .. } => n_classes,
        SearchTask::Regression { .. } => 0,
    };
    let sw = vec![1.0; xm.rows()];
    let s = settings(classes, gammas.len(), cs, 0.1);
    cross_validate(&xm, task, &sw, &rbf(gammas), &s, folds, params, &Control::new()).unwrap()
}

fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (u, v)) in a.iter().zip(b).enumerate() {
        assert!((u - v).abs() <= tol * (1.0 + v.abs()), "{what}: entry {i}: {u} vs {v}");
    }
}

#[test]
fn cold_search_equals_independent_fits() {
    for classes in [2, 3] {
        let (d, n) = (4, 150);
        let (x, y) = blobs(n, d, classes, 3);
        let f = folds(n, 3, 1);
        let (gammas, cs) = ([0.3, 2.0], [0.5, 4.0, 30.0]);
        let params = SearchParams { warm_start: WarmStart::Cold, ..Default::default() };
        let r = search(&x, d, SearchTask::Classification { y: &y, n_classes: classes }, &gammas, &cs, &f, &params);
        assert_eq!(r.points.len(), gammas.len() * f.len() * cs.len());
        for (g, &gamma) in gammas.iter().enumerate() {
            for (fi, fold) in f.iter().enumerate() {
                for (ci, &c) in cs.iter().enumerate() {
                    let point = &r.points[(g * f.len() + fi) * cs.len() + ci];
                    let want = independent_svc(&x, d, &y, classes, fold, gamma, c);
                    assert_close(&point.decision, &want, 1e-9, &format!("{classes} classes, gamma {gamma}, C {c}"));
                }
            }
        }
    }
}

#[test]
fn warm_starts_reach_the_same_optimum_in_fewer_iterations() {
    let (d, n) = (5, 300);
    let (x, mut y) = blobs(n, d, 2, 8);
    // a fifth of the labels flipped: enough iterations at large C for the solver to shrink, so
    // that its variables are reordered between one C and the next
    let mut rng = Rng::new(4);
    y.iter_mut().filter(|_| rng.below(5) == 0).for_each(|c| *c = 1 - *c);
    let f = folds(n, 5, 2);
    let cs = [0.1, 1.0, 10.0, 100.0, 1000.0];
    let task = SearchTask::Classification { y: &y, n_classes: 2 };
    let cold =
        search(&x, d, task, &[0.5], &cs, &f, &SearchParams { warm_start: WarmStart::Cold, ..Default::default() });
    let warm = search(&x, d, task, &[0.5], &cs, &f, &SearchParams::default());
    let scaled =
        search(&x, d, task, &[0.5], &cs, &f, &SearchParams { warm_start: WarmStart::Scale, ..Default::default() });
    let kept =
        search(&x, d, task, &[0.5], &cs, &f, &SearchParams { warm_start: WarmStart::Keep, ..Default::default() });
    let iters = |r: &SearchResult| r.points.iter().map(|p| p.n_iter).sum::<u64>();
    eprintln!(
        "iterations: cold {} auto {} kept {} scaled {}",
        iters(&cold),
        iters(&warm),
        iters(&kept),
        iters(&scaled)
    );
    assert!(iters(&warm) < iters(&cold), "{} vs {}", iters(&warm), iters(&cold));
    // every start, along all four values of C (a scaled start from a scaled start included)
    for (name, r) in [("auto", &warm), ("keep", &kept), ("scale", &scaled)] {
        for (w, c) in r.points.iter().zip(&cold.points) {
            // both within tol 1e-3 of the optimum: decision values agree to about that
            let worst = w.decision.iter().zip(&c.decision).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(worst < 0.05, "{name}: decision values differ by {worst}");
            assert!(w.converged && c.converged);
        }
    }
}

#[test]
fn results_do_not_depend_on_threads_or_cache() {
    let (d, n) = (3, 240);
    let (x, y) = blobs(n, d, 3, 4);
    let f = folds(n, 4, 3);
    let task = SearchTask::Classification { y: &y, n_classes: 3 };
    let run = |threads: usize, cache: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let params = SearchParams { cache_bytes: cache, ..Default::default() };
        pool.install(|| search(&x, d, task, &[0.2, 1.0, 5.0], &[1.0, 10.0], &f, &params))
    };
    let one = run(1, 200 << 20);
    // a budget the rows over every example do not fit: each chain keeps its own rows only
    let small = run(3, 64 << 10);
    assert_eq!(small.rows.hits + small.rows.misses, 0);
    for other in [run(2, 200 << 20), small] {
        for (a, b) in one.points.iter().zip(&other.points) {
            assert_eq!(a.decision, b.decision);
            assert_eq!(a.predicted, b.predicted);
            assert_eq!(a.n_iter, b.n_iter);
        }
    }
    // without the one-vs-rest scores: the same votes
    let params = SearchParams { ovr_scores: false, ..Default::default() };
    let votes_only = search(&x, d, task, &[0.2, 1.0, 5.0], &[1.0, 10.0], &f, &params);
    for (a, b) in one.points.iter().zip(&votes_only.points) {
        assert!(b.decision.is_empty());
        assert_eq!(a.predicted, b.predicted);
    }
    // shared rows: fewer kernel values than the sum of independent fits would compute
    assert!(one.rows.hits > 0);
}

#[test]
fn regression_search_equals_independent_fits() {
    let (d, n) = (3, 120);
    let (x, labels) = blobs(n, d, 2, 9);
    let y: Vec<f64> = labels.iter().enumerate().map(|(i, &c)| c as f64 + x[i * d] * 0.5).collect();
    let f = folds(n, 3, 5);
    let cs = [0.3, 3.0];
    let r = search(
        &x,
        d,
        SearchTask::Regression { y: &y },
        &[0.7],
        &cs,
        &f,
        &SearchParams { warm_start: WarmStart::Cold, ..Default::default() },
    );
    let engine =
        KernelEngine::new(Matrix::Dense64(DenseView::new(&x, n, d).unwrap()), KernelSpec::Rbf { gamma: 0.7 }).unwrap();
    for (fi, fold) in f.iter().enumerate() {
        for (ci, &c) in cs.iter().enumerate() {
            let xs: Vec<f64> = fold.train.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect();
            let ys: Vec<f64> = fold.train.iter().map(|&i| y[i]).collect();
            let xm = Matrix::Dense64(DenseView::new(&xs, fold.train.len(), d).unwrap());
            let params = SvmParams { kernel: KernelSpec::Rbf { gamma: 0.7 }, ..Default::default() };
            let fit = train_svr(&xm, &ys, &vec![c; ys.len()], 0.1, &params, &Control::new()).unwrap();
            let want: Vec<f64> = fold
                .eval
                .iter()
                .map(|&t| {
                    fit.support
                        .iter()
                        .zip(&fit.coef)
                        .map(|(&s, &a)| a * engine.eval(fold.train[s], t) as f32 as f64)
                        .sum::<f64>()
                        + fit.intercept
                })
                .collect();
            assert_close(&r.points[fi * cs.len() + ci].decision, &want, 1e-9, "SVR");
        }
    }
}

#[test]
fn bad_plans_are_refused() {
    let (x, y) = blobs(20, 2, 2, 1);
    let xm = Matrix::Dense64(DenseView::new(&x, 20, 2).unwrap());
    let task = SearchTask::Classification { y: &y, n_classes: 2 };
    let f = folds(20, 2, 1);
    let sw = vec![1.0; 20];
    let go = |s: &[SearchSetting], f: &[SearchFold]| {
        cross_validate(&xm, task, &sw, &rbf(&[1.0]), s, f, &SearchParams::default(), &Control::new())
    };
    let mut s = settings(2, 1, &[1.0, 0.5], 0.0);
    assert!(go(&s, &f).unwrap_err().to_string().contains("increase"));
    s[0].cs = vec![1.0];
    let mut bad = f.clone();
    bad[0].eval.push(20);
    assert!(go(&s, &bad).unwrap_err().to_string().contains("example 20"));
    let mut one_class = f.clone();
    one_class[1].train.retain(|&i| y[i] == 0);
    assert!(go(&s, &one_class).unwrap_err().to_string().contains("class 1"));
    s[0].class_weight = vec![vec![1.0, 0.0]];
    assert!(go(&s, &f).unwrap_err().to_string().contains("class 1"));
    s[0].class_weight = vec![vec![1.0]];
    assert!(go(&s, &f).unwrap_err().to_string().contains("2 class weights"));
}
