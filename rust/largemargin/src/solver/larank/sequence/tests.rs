use super::*;
use crate::data::CsrView;

/// A tiny chain problem: tokens with one-hot features, labels follow the feature mostly.
struct Toy {
    indptr: Vec<i64>,
    indices: Vec<i32>,
    data: Vec<f64>,
    seq_ptr: Vec<usize>,
    labels: Vec<usize>,
}

fn toy(n_seq: usize, seed: u64) -> Toy {
    let mut rng = Rng::new(seed);
    let (mut indptr, mut indices, mut data, mut seq_ptr, mut labels) = (vec![0i64], vec![], vec![], vec![0], vec![]);
    for _ in 0..n_seq {
        let len = 2 + rng.below(6);
        let mut prev = 0;
        for _ in 0..len {
            // label 2 follows label 1 always; otherwise the word decides
            let word = rng.below(6);
            let y = if prev == 1 { 2 } else { word % 3 };
            indices.push(word as i32);
            data.push(1.0);
            indices.push(6);
            data.push(1.0); // bias
            indptr.push(indices.len() as i64);
            labels.push(y);
            prev = y;
        }
        seq_ptr.push(labels.len());
    }
    Toy { indptr, indices, data, seq_ptr, labels }
}

fn fit(t: &Toy, params: SeqParams, epochs: usize) -> (SeqSolver<'_>, Vec<f64>) {
    let x = CsrView::new(&t.indptr, &t.indices, &t.data, 7).unwrap();
    let data = Sequences::new(x, &t.seq_ptr).unwrap();
    let mut s = SeqSolver::new(data, &t.labels, 3, params).unwrap();
    let mut rng = Rng::new(3);
    let order: Vec<usize> = (0..data.len()).collect();
    let ctl = Control::new();
    let mut duals = vec![];
    for _ in 0..epochs {
        s.epoch(&order, &mut rng, &ctl).unwrap();
        duals.push(s.dual());
    }
    (s, duals)
}

fn accuracy(t: &Toy, m: &SeqModel, inf: Inference) -> f64 {
    let x = CsrView::new(&t.indptr, &t.indices, &t.data, 7).unwrap();
    let data = Sequences::new(x, &t.seq_ptr).unwrap();
    let p = m.predict(&data, inf).unwrap();
    p.iter().zip(&t.labels).filter(|(a, b)| a == b).count() as f64 / p.len() as f64
}

fn random_model(labels: usize, features: usize, order: usize, seed: u64) -> SeqModel {
    let mut rng = Rng::new(seed);
    let mut m = SeqModel::zeros(labels, features, order);
    for w in m.emit.iter_mut().chain(m.trans.iter_mut()) {
        *w = (rng.below(2001) as f64 - 1000.0) / 500.0;
    }
    m
}

#[test]
fn sequence_viterbi_matches_brute_force() {
    for seed in 0..20 {
        let (l, n) = (3, 1 + (seed as usize % 5));
        let m = random_model(l, 1, 1, seed);
        let mut rng = Rng::new(seed + 100);
        let emit: Vec<f64> = (0..n * l).map(|_| rng.below(1000) as f64 / 100.0 - 5.0).collect();
        let truth: Vec<usize> = (0..n).map(|_| rng.below(l)).collect();
        for aug in [None, Some(&truth[..])] {
            let mut best = (f64::NEG_INFINITY, vec![]);
            for code in 0..l.pow(n as u32) {
                let c: Vec<usize> = (0..n).map(|t| code / l.pow(t as u32) % l).collect();
                let mut s = 0.0;
                for t in 0..n {
                    let prev = if t == 0 { l } else { c[t - 1] };
                    s += emit[t * l + c[t]] + m.trans[m.t(1, prev, c[t])];
                    if let Some(tr) = aug {
                        s += (tr[t] != c[t]) as u8 as f64;
                    }
                }
                if s > best.0 + 1e-12 {
                    best = (s, c);
                }
            }
            let mut out = vec![];
            m.viterbi(&emit, aug, &mut out);
            assert_eq!(out, best.1, "seed {seed}");
        }
    }
}

#[test]
fn sequence_greedy_equals_viterbi_without_transitions() {
    let mut m = random_model(4, 1, 1, 7);
    m.trans.iter_mut().for_each(|w| *w = 0.0);
    let mut rng = Rng::new(9);
    let emit: Vec<f64> = (0..6 * 4).map(|_| rng.below(1000) as f64).collect();
    let (mut g, mut v) = (vec![], vec![]);
    m.greedy(&emit, None, &mut g);
    m.viterbi(&emit, None, &mut v);
    assert_eq!(g, v);
}

#[test]
fn sequence_larank_dual_increases_and_learns() {
    let t = toy(150, 1);
    for (inference, reprocess) in [(Inference::Greedy, 2), (Inference::Exact, 5)] {
        let params = SeqParams {
            c: 1.0,
            method: SeqMethod::LaRank(Schedule::Fixed { reprocess }),
            inference,
            order: 1,
            ..Default::default()
        };
        let (s, duals) = fit(&t, params, 3);
        assert!(duals[0] > 0.0, "{duals:?}");
        assert!(duals.windows(2).all(|w| w[1] >= w[0] - 1e-9), "{duals:?}");
        let mut s = s;
        let gap = s.duality_gap();
        assert!(gap >= -1e-9 && gap.is_finite(), "{gap}");
        assert!(accuracy(&t, &s.model, inference) > 0.97, "{inference:?}");
        assert!(s.support_patterns() > 0 && s.support_vectors() >= s.support_patterns());
        // every support pattern: beta of the truth in (0, C], others negative, sum zero
        for &p in &s.support {
            let outs = &s.patterns[p];
            assert!(outs[0].beta > 0.0 && outs[0].beta <= 1.0 + 1e-12);
            assert!(outs[1..].iter().all(|o| o.beta < 0.0));
            assert!(outs.iter().map(|o| o.beta).sum::<f64>().abs() < 1e-9);
        }
    }
}

#[test]
fn sequence_steps_increase_the_dual() {
    let t = toy(60, 2);
    let x = CsrView::new(&t.indptr, &t.indices, &t.data, 7).unwrap();
    let data = Sequences::new(x, &t.seq_ptr).unwrap();
    let params = SeqParams {
        c: 0.5,
        method: SeqMethod::LaRank(Schedule::Fixed { reprocess: 1 }),
        inference: Inference::Exact,
        order: 1,
        ..Default::default()
    };
    let mut s = SeqSolver::new(data, &t.labels, 3, params).unwrap();
    let mut rng = Rng::new(5);
    let mut dual = s.dual();
    for i in 0..data.len() {
        for op in 0..3 {
            let gain = match op {
                0 => s.process_new(i),
                1 => s.process_old(&mut rng),
                _ => s.optimize(&mut rng),
            };
            let now = s.dual();
            assert!(gain >= 0.0 && (now - dual - gain).abs() < 1e-8, "gain {gain}, dual {dual} -> {now}");
            dual = now;
        }
    }
}

#[test]
fn sequence_perceptron_and_pa_learn() {
    let t = toy(200, 4);
    for method in [
        SeqMethod::Perceptron { averaged: true },
        SeqMethod::Perceptron { averaged: false },
        SeqMethod::LaRank(Schedule::Fixed { reprocess: 0 }),
    ] {
        for inference in [Inference::Greedy, Inference::Exact] {
            let params = SeqParams { c: 1.0, method, inference, order: 1, ..Default::default() };
            let (s, _) = fit(&t, params, 2);
            let acc = accuracy(&t, &s.final_model(), inference);
            assert!(acc > 0.9, "{method:?} {inference:?}: {acc}");
        }
    }
}

#[test]
fn sequence_bad_input_is_an_error() {
    let t = toy(5, 1);
    let x = CsrView::new(&t.indptr, &t.indices, &t.data, 7).unwrap();
    assert!(Sequences::new(x, &[0, 3]).is_err());
    let data = Sequences::new(x, &t.seq_ptr).unwrap();
    let bad = vec![5; t.labels.len()];
    assert!(SeqSolver::new(data, &bad, 3, SeqParams::default()).is_err());
    let p = SeqParams { inference: Inference::Exact, order: 2, ..Default::default() };
    assert!(SeqSolver::new(data, &t.labels, 3, p).is_err());
    let p = SeqParams { c: -1.0, ..Default::default() };
    assert!(SeqSolver::new(data, &t.labels, 3, p).is_err());
}

#[test]
fn sequence_aggregated_curvature() {
    // two positions with the same feature and label swap: emission cells collide
    let (indptr, indices, data) = (vec![0i64, 1, 2], vec![0i32, 0], vec![1.0, 1.0]);
    let seq_ptr = vec![0, 2];
    let labels = vec![0, 0];
    let x = CsrView::new(&indptr, &indices, &data, 1).unwrap();
    let d = Sequences::new(x, &seq_ptr).unwrap();
    let params = SeqParams { inference: Inference::Exact, order: 1, ..Default::default() };
    let mut s = SeqSolver::new(d, &labels, 2, params).unwrap();
    // (0,0) vs (1,1): emission diff +2 on (f0,y0), -2 on (f0,y1); transitions START->0, 0->0
    // vs START->1, 1->1: four cells of +-1
    let rho = s.build_diff(0, &[0, 0], &[1, 1]);
    assert!((rho - (4.0 + 4.0 + 4.0)).abs() < 1e-12, "{rho}");
}
