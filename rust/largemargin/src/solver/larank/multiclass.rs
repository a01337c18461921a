//! LaRank for multiclass problems (Bordes, Bottou, Gallinari, Weston 2007; Bordes 2010, PhD thesis, sections 5.1-5.2): an online solver of the
//! beta-dual of the multiclass SVM with the joint kernel k(x, x') delta(y, y'),
//!
//!   max  sum_i beta_i^{y_i} - 1/2 sum_y sum_{i,j} beta_i^y beta_j^y k(x_i, x_j)
//!   s.t. beta_i^y <= C delta(y, y_i),  sum_y beta_i^y = 0,
//!
//! and, in the same framework, its baselines: passive-aggressive / MIRA (PROCESSNEW only) and the
//! (averaged) multiclass kernel perceptron.
//!
//! Support patterns (examples with a nonzero beta) sit at the front of an `ExpansionSet`, so one
//! kernel row over the set gives every class score at once. Each support pattern keeps its beta
//! and its gradient g_{i,y} = delta(y, y_i) - S_y(x_i) for every class (stored class-major): a
//! step's gradient update is then two contiguous passes over the set, and PROCESSOLD reads its
//! loss-augmented argmax from the stored gradients. They are float32, like the kernel rows: that
//! update is bound by memory traffic, which this nearly halves, and its rounding drift (about
//! 1e-7 of the dual over an epoch on letter) is cleared by the exact refresh before every duality
//! gap. The gradients of examples outside the set are never stored. The linear kernel has a fast
//! path with explicit weight vectors.
//!
//! Given candidate label sets (`with_bags`), the same solver learns from ambiguous supervision:
//! see `solver::larank::ambiguous`.

mod baselines;
mod dual;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec, Query};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::vecops;
use crate::solver::larank::ambiguous::Bags;
use crate::solver::larank::schedule::{fixed_step, Adaptive, LaRankSteps};
use crate::solver::larank::schedule::{Clock, Schedule};
use crate::solver::online::expansion::ExpansionSet;

/// The update rule the solver runs over the examples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// LaRank's PROCESSNEW, PROCESSOLD and OPTIMIZE, interleaved by the schedule.
    LaRank(Schedule),
    /// The multiclass kernel perceptron; `averaged` keeps the average of all intermediate models.
    Perceptron {
        /// Return the average of the coefficients over all updates rather than the last ones.
        averaged: bool,
    },
    /// AMBIGSVMDUALSTEP (Algorithm 23): one passive-aggressive step per example on the mean
    /// pairwise hinge loss between its candidates and the other labels (ambiguous supervision;
    /// with bags of one label, a multiclass passive-aggressive rule over all pairs).
    PairwisePA,
}

/// A method as its name gives it: "larank" takes its schedule apart; "mira" is LaRank on the
/// fixed schedule without reprocessing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// `Method::LaRank` under the schedule given.
    LaRank,
    /// `Method::LaRank(Schedule::Fixed { reprocess: 0 })`: passive-aggressive / MIRA.
    Mira,
    /// `Method::Perceptron { averaged: false }`.
    Perceptron,
    /// `Method::Perceptron { averaged: true }`.
    AveragedPerceptron,
    /// `Method::PairwisePA`.
    AmbigSvm,
}
crate::error::option_names!(MethodKind, "LaRank method", {
    LaRank => "larank",
    Mira => "mira",
    Perceptron => "perceptron",
    AveragedPerceptron => "averaged_perceptron",
    AmbigSvm => "ambigsvm",
});

impl MethodKind {
    /// The method, under `schedule` for `LaRank` (unread otherwise).
    pub fn with(self, schedule: Schedule) -> Method {
        match self {
            MethodKind::LaRank => Method::LaRank(schedule),
            MethodKind::Mira => Method::LaRank(Schedule::Fixed { reprocess: 0 }),
            MethodKind::Perceptron => Method::Perceptron { averaged: false },
            MethodKind::AveragedPerceptron => Method::Perceptron { averaged: true },
            MethodKind::AmbigSvm => Method::PairwisePA,
        }
    }
}

/// The multiclass problem's constants and the solver's method.
#[derive(Clone, Debug)]
pub struct LaRankParams {
    /// The bound C on beta_i^{y_i} (scaled per example by its weight); positive.
    pub c: f64,
    /// tau: a step is taken only when g+ - g- is at least this.
    pub tol: f64,
    /// LaRank or one of its baselines.
    pub method: Method,
    /// What the adaptive schedule measures an operation's duration with.
    pub clock: Clock,
    /// The kernel-row cache's budget in bytes (unused by the linear kernel's explicit weights).
    pub cache_bytes: usize,
}

impl Default for LaRankParams {
    fn default() -> Self {
        LaRankParams {
            c: 1.0,
            tol: 1e-4,
            method: Method::LaRank(Schedule::Adaptive),
            clock: Clock::Cost,
            cache_bytes: crate::cache::DEFAULT_BUDGET,
        }
    }
}

impl LaRankParams {
    /// Rejects a C or a tol that is not positive and finite.
    pub fn validate(&self) -> Result<()> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::InvalidParameter(format!("C must be positive and finite, got {}", self.c)));
        }
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::InvalidParameter(format!("tol must be positive and finite, got {}", self.tol)));
        }
        Ok(())
    }
}

/// Counters a caller may report (multiclass and sequence LaRank alike).
#[derive(Clone, Debug, Default)]
pub struct LaRankStats {
    /// PROCESSNEW operations (the perceptron and pairwise PA rules count each example here).
    pub process_new: u64,
    /// PROCESSOLD operations on a non-empty set.
    pub process_old: u64,
    /// OPTIMIZE operations on a non-empty set.
    pub optimize: u64,
    /// SMO steps that changed a coefficient.
    pub steps: u64,
    /// Loss-augmented or plain argmax computations (inference calls; for sequences, greedy:
    /// one per token pattern, exact: one Viterbi pass).
    pub argmax: u64,
    /// Passes over the examples completed.
    pub epochs: u64,
    /// Dual objective after each epoch, and the duality gap where it was computed.
    pub dual_per_epoch: Vec<f64>,
    /// The duality gap after each epoch it was computed for (empty when it never was).
    pub gap_per_epoch: Vec<f64>,
}

/// Where class scores come from.
enum Scores {
    /// Kernel expansions over the support patterns (rows from the cache).
    Kernel,
    /// Explicit weight vectors, one row of `d` per class (linear kernel).
    Linear { w: Vec<f64>, d: usize },
}

/// Mutable views of two different columns.
fn two_columns(cols: &mut [Vec<f32>], a: usize, b: usize) -> (&mut [f32], &mut [f32]) {
    debug_assert_ne!(a, b);
    if a < b {
        let (lo, hi) = cols.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = cols.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// The multiclass solver's state: the support patterns in an expansion set over the kernel
/// engine, their betas and gradients for every class, and the problem's labels and bounds.
pub struct LaRank<'e, 'a> {
    x: Matrix<'a>,
    set: ExpansionSet<'e, 'a>,
    scores: Scores,
    /// Class index of each example (problem index); with bags, the positive label chosen when the
    /// example last entered the set.
    label: Vec<usize>,
    /// Candidate labels (ambiguous supervision), and the draws that break ties between them.
    bags: Option<Bags>,
    ties: Rng,
    classes: usize,
    params: LaRankParams,
    /// Per support position: beta for every class, and (perceptron) the averaging accumulator
    /// sum_s delta_s (s - 1), row-major.
    beta: Vec<f64>,
    acc: Vec<f64>,
    /// The gradients, class-major (grad[c][s]): a step's update of two classes over the whole
    /// set is then two contiguous passes.
    grad: Vec<Vec<f32>>,
    /// K(x, x) by problem index (curvature of a step is 2 K(x, x)).
    self_kernel: Vec<f64>,
    /// The bound C_i of beta_i^{y_i} by problem index (C times the example's weight).
    upper: Vec<f64>,
    /// Cost units per kernel evaluation (adaptive schedule, cost clock).
    kernel_cost: f64,
    engine: &'e KernelEngine<'a>,
    /// Perceptron updates counted for averaging.
    ticks: u64,
    work: f64,
    buf: Vec<f64>,
    /// The operation counters and per-epoch curves of this solver.
    pub stats: LaRankStats,
}

impl<'e, 'a> LaRank<'e, 'a> {
    /// A solver over all rows of the engine's matrix `x`, with class indices `label` in
    /// 0..classes; example i's coefficient of its own class is bounded by `params.c` times
    /// `weight[i]` (all ones when `weight` is empty).
    pub fn new(
        engine: &'e KernelEngine<'a>, x: Matrix<'a>, label: Vec<usize>, weight: &[f64], classes: usize,
        params: LaRankParams,
    ) -> Result<Self> {
        params.validate()?;
        let n = x.rows();
        if label.len() != n {
            return Err(Error::InvalidData(format!("{} labels for {n} examples", label.len())));
        }
        if !weight.is_empty() && weight.len() != n {
            return Err(Error::InvalidData(format!("{} sample weights for {n} examples", weight.len())));
        }
        if let Some(k) = weight.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::InvalidData(format!(
                "sample weight {} of example {k} is not a finite non-negative number",
                weight[k]
            )));
        }
        let upper = if weight.is_empty() { vec![params.c; n] } else { weight.iter().map(|w| w * params.c).collect() };
        if classes < 2 {
            return Err(Error::InvalidData("LaRank needs at least two classes".into()));
        }
        if let Some(k) = label.iter().position(|&y| y >= classes) {
            return Err(Error::InvalidData(format!("label {} of example {k} is not below {classes}", label[k])));
        }
        let linear = matches!(engine.spec(), KernelSpec::Linear);
        let self_kernel = if linear {
            (0..n).map(|i| Query::row(&x, i).squared_norm()).collect()
        } else {
            engine.diagonal(&(0..n).collect::<Vec<_>>())
        };
        let nnz: usize = (0..n)
            .map(|i| {
                let mut c = 0;
                Query::row(&x, i).for_each_nonzero(|_, _| c += 1);
                c
            })
            .sum();
        let kernel_cost = 2.0 + nnz as f64 / n.max(1) as f64 / 4.0;
        let scores =
            if linear { Scores::Linear { w: vec![0.0; classes * x.cols()], d: x.cols() } } else { Scores::Kernel };
        let cache = if linear { 0 } else { params.cache_bytes };
        Ok(LaRank {
            x,
            set: ExpansionSet::new(engine, (0..n).collect(), cache),
            scores,
            label,
            bags: None,
            ties: Rng::new(0),
            classes,
            params,
            beta: Vec::new(),
            grad: vec![Vec::new(); classes],
            acc: Vec::new(),
            self_kernel,
            upper,
            kernel_cost,
            engine,
            ticks: 0,
            work: 0.0,
            buf: vec![0.0; classes],
            stats: LaRankStats::default(),
        })
    }

    /// Learns from candidate label sets instead of the labels given to `new`: a pattern's positive
    /// label is its best-scoring candidate when it enters the set (ties drawn with `seed`); the
    /// other candidates are never stepped on. Only LaRank's own operations support this.
    pub fn with_bags(mut self, bags: Bags, seed: u64) -> Result<Self> {
        if bags.examples() != self.x.rows() || bags.classes() != self.classes {
            return Err(Error::InvalidData(format!(
                "{} bags over {} classes for {} examples over {} classes",
                bags.examples(),
                bags.classes(),
                self.x.rows(),
                self.classes
            )));
        }
        if matches!(self.params.method, Method::Perceptron { .. }) {
            return Err(Error::InvalidParameter(
                "candidate label sets need a LaRank method or the pairwise PA step, not the perceptron".into(),
            ));
        }
        for e in 0..self.x.rows() {
            self.label[e] = bags.candidates(e).next().unwrap_or(0);
        }
        self.bags = Some(bags);
        self.ties = Rng::new(seed);
        Ok(self)
    }

    /// Whether class c of example e is a candidate other than its positive label (its coefficient
    /// stays zero).
    #[inline]
    fn frozen(&self, e: usize, c: usize) -> bool {
        match &self.bags {
            Some(b) => c != self.label[e] && b.contains(e, c),
            None => false,
        }
    }

    /// The candidate of example e with the highest score in self.buf, ties drawn at random.
    fn best_candidate(&mut self, e: usize) -> usize {
        let Some(bags) = &self.bags else { return self.label[e] };
        let (mut best, mut ties) = (usize::MAX, 0);
        for c in bags.candidates(e) {
            if best == usize::MAX || self.buf[c] > self.buf[best] {
                best = c;
                ties = 1;
            } else if self.buf[c] == self.buf[best] {
                // reservoir draw among equal scores (an empty model scores every class 0)
                ties += 1;
                if self.ties.below(ties) == 0 {
                    best = c;
                }
            }
        }
        best
    }

    /// The positive label of example e (with bags: the candidate chosen when it last entered the set).
    pub fn label_of(&self, e: usize) -> usize {
        self.label[e]
    }

    /// Number of support patterns.
    pub fn support_patterns(&self) -> usize {
        self.set.len()
    }
    /// Number of support vectors: (pattern, class) pairs with a nonzero coefficient.
    pub fn support_vectors(&self) -> usize {
        self.beta.iter().filter(|&&b| b != 0.0).count()
    }

    /// Starts from coefficients of the first rows (a previous fit's support patterns, for
    /// `partial_fit`): row-major, `classes` per pattern.
    pub fn warm_start(&mut self, beta: &[f64]) -> Result<()> {
        let k = self.classes;
        if beta.len() % k != 0 || beta.len() / k > self.x.rows() {
            return Err(Error::InvalidData("warm start: one row of class coefficients per leading example".into()));
        }
        for (e, row) in beta.chunks_exact(k).enumerate() {
            if row.iter().all(|&b| b == 0.0) {
                continue;
            }
            if self.bags.is_some() {
                if let Some(c) = row.iter().position(|&b| b > 0.0) {
                    self.label[e] = c;
                }
            }
            let p = self.set.position(e);
            let s = self.insert(p);
            self.beta[s * k..(s + 1) * k].copy_from_slice(row);
            if let Scores::Linear { w, d } = &mut self.scores {
                let d = *d;
                Query::row(&self.x, e).for_each_nonzero(|j, v| {
                    for (c, b) in row.iter().enumerate() {
                        w[c * d + j] += b * v;
                    }
                });
            }
        }
        self.refresh_gradients();
        Ok(())
    }

    /// One pass over `order` (problem indices), as the method says.
    pub fn epoch(&mut self, order: &[usize], rng: &mut Rng, control: &Control) -> Result<()> {
        match self.params.method {
            Method::Perceptron { .. } => {
                for &e in order {
                    control.poll()?;
                    self.perceptron(e);
                }
            }
            Method::PairwisePA => {
                for &e in order {
                    control.poll()?;
                    self.pairwise_pa(e);
                }
            }
            Method::LaRank(Schedule::Fixed { reprocess }) => {
                for &e in order {
                    control.poll()?;
                    fixed_step(self, e, reprocess, rng);
                }
            }
            Method::LaRank(Schedule::Adaptive) => {
                let mut adaptive = Adaptive::new(self.params.clock);
                for &e in order {
                    control.poll()?;
                    adaptive.step(self, e, rng);
                }
            }
        }
        control.add_iterations(order.len() as u64);
        self.stats.epochs += 1;
        Ok(())
    }

    /// S_y(x_e) for every class, into self.buf; e at position p.
    fn class_scores(&mut self, e: usize, p: usize) {
        let k = self.classes;
        self.buf.iter_mut().for_each(|s| *s = 0.0);
        match &self.scores {
            Scores::Kernel => {
                let len = self.set.len();
                if len == 0 {
                    return;
                }
                let row = self.set.row(p);
                vecops::scores(row, &self.beta[..len * k], &mut self.buf);
                self.work += (len * k) as f64 / 4.0;
            }
            Scores::Linear { w, d } => {
                let d = *d;
                let buf = &mut self.buf;
                let mut nnz = 0;
                Query::row(&self.x, e).for_each_nonzero(|j, v| {
                    nnz += 1;
                    for (c, s) in buf.iter_mut().enumerate() {
                        *s += w[c * d + j] * v;
                    }
                });
                self.work += (nnz * k) as f64;
            }
        }
    }

    /// Brings example e (at position p, outside the set) into the set with zero coefficients and
    /// its current gradients; returns its new position.
    fn insert(&mut self, p: usize) -> usize {
        let s = self.set.len();
        let e = self.set.index_at(p);
        // its gradients before it counts itself: delta(y, y_e) - S_y(x_e)
        self.class_scores(e, p);
        self.set.swap(p, s);
        self.set.set_len(s + 1);
        let k = self.classes;
        self.beta.resize((s + 1) * k, 0.0);
        self.acc.resize((s + 1) * k, 0.0);
        let y = self.label[e];
        for (c, col) in self.grad.iter_mut().enumerate() {
            col.push((if c == y { 1.0 } else { 0.0 } - self.buf[c]) as f32);
        }
        s
    }

    /// No coefficient of the pattern at s is nonzero (nor its averaging accumulator).
    fn is_zero(&self, s: usize) -> bool {
        let k = self.classes;
        self.beta[s * k..(s + 1) * k].iter().chain(&self.acc[s * k..(s + 1) * k]).all(|&b| b == 0.0)
    }

    /// Takes position s (a support pattern whose coefficients are all zero) out of the set.
    fn remove(&mut self, s: usize) {
        let last = self.set.len() - 1;
        let k = self.classes;
        if s != last {
            self.set.swap(s, last);
            for v in [&mut self.beta, &mut self.acc] {
                let (a, b) = v.split_at_mut(last * k);
                a[s * k..(s + 1) * k].swap_with_slice(&mut b[..k]);
            }
        }
        for col in &mut self.grad {
            col.swap_remove(s);
        }
        self.set.set_len(last);
        self.set.forget(last);
        self.beta.truncate(last * k);
        self.acc.truncate(last * k);
    }

    /// The elementary step (Algorithm 17 of the thesis, its gradient signs corrected) on the support
    /// pattern at position s between classes cp (increased) and cm (decreased), from gradients gp
    /// and gm. Returns the dual increase.
    fn smo_step(&mut self, s: usize, cp: usize, cm: usize, gp: f64, gm: f64) -> f64 {
        let k = self.classes;
        let e = self.set.index_at(s);
        let kii = self.self_kernel[e];
        let bound = if cp == self.label[e] { self.upper[e] } else { 0.0 } - self.beta[s * k + cp];
        let lambda = if kii > 0.0 { ((gp - gm) / (2.0 * kii)).min(bound) } else { bound };
        if lambda <= 0.0 || cp == cm {
            return 0.0;
        }
        self.beta[s * k + cp] += lambda;
        self.beta[s * k + cm] -= lambda;
        if cp != self.label[e] && self.beta[s * k + cp] > 0.0 {
            self.beta[s * k + cp] = 0.0; // rounding: a wrong class never goes positive
        }
        match &mut self.scores {
            Scores::Kernel => {
                let len = self.set.len();
                let row = self.set.row(s);
                let (up, down) = two_columns(&mut self.grad, cp, cm);
                vecops::transfer(lambda, row, &mut up[..len], &mut down[..len]);
                self.work += len as f64;
            }
            Scores::Linear { w, d } => {
                let d = *d;
                let mut nnz = 0;
                Query::row(&self.x, e).for_each_nonzero(|j, v| {
                    nnz += 1;
                    w[cp * d + j] += lambda * v;
                    w[cm * d + j] -= lambda * v;
                });
                self.grad[cp][s] -= (2.0 * lambda * kii) as f32;
                self.grad[cm][s] += (2.0 * lambda * kii) as f32;
                self.work += nnz as f64;
            }
        }
        self.stats.steps += 1;
        if self.is_zero(s) {
            self.remove(s);
        }
        lambda * (gp - gm) - lambda * lambda * kii
    }

    /// The gradients of the support pattern at position s, computed afresh (linear path: they
    /// are not kept up to date between visits).
    fn fresh_gradients(&mut self, s: usize) {
        if let Scores::Linear { .. } = self.scores {
            let e = self.set.index_at(s);
            self.class_scores(e, s);
            let y = self.label[e];
            for (c, col) in self.grad.iter_mut().enumerate() {
                col[s] = (if c == y { 1.0 } else { 0.0 } - self.buf[c]) as f32;
            }
        }
    }

    /// PROCESSNEW (Algorithm 18) on example e: c+ = y_e, c- = the loss-augmented argmax. An
    /// example already in the set is processed as PROCESSOLD would.
    pub fn process_new(&mut self, e: usize) -> f64 {
        self.stats.process_new += 1;
        self.stats.argmax += 1;
        let p = self.set.position(e);
        if p < self.set.len() {
            self.fresh_gradients(p);
            return self.old_step(p);
        }
        let k = self.classes;
        self.class_scores(e, p);
        if self.bags.is_some() {
            self.label[e] = self.best_candidate(e);
        }
        let y = self.label[e];
        let gp = 1.0 - self.buf[y];
        let (cm, gm) = (0..k)
            .filter(|&c| !self.frozen(e, c))
            .map(|c| (c, if c == y { gp } else { -self.buf[c] }))
            .fold((y, gp), |b, a| if a.1 < b.1 { a } else { b });
        if cm == y || gp - gm < self.params.tol {
            self.set.forget(p);
            return 0.0;
        }
        let s = self.insert(p);
        self.smo_step(s, y, cm, gp, gm)
    }

    /// PROCESSOLD (Algorithm 19) on a random support pattern. Returns the dual increase.
    pub fn process_old(&mut self, rng: &mut Rng) -> f64 {
        if self.set.is_empty() {
            return 0.0;
        }
        self.stats.process_old += 1;
        self.stats.argmax += 1;
        let s = rng.below(self.set.len());
        self.fresh_gradients(s);
        self.old_step(s)
    }

    /// c+ = argmax of g over the classes that may increase, c- = argmin over all classes (but the
    /// other candidates of an ambiguous example).
    fn old_step(&mut self, s: usize) -> f64 {
        self.best_pair_step(s, false)
    }

    /// The step on the pattern at s between c+ = argmax of g over the classes that may increase
    /// and c- = argmin of g, both among its support vectors (and own class) when `support_only`;
    /// a bag's other candidates take no part.
    fn best_pair_step(&mut self, s: usize, support_only: bool) -> f64 {
        let k = self.classes;
        let e = self.set.index_at(s);
        let y = self.label[e];
        let (c, b) = (self.upper[e], &self.beta[s * k..(s + 1) * k]);
        // (class, gradient); a gradient is read only for a class that takes part (OPTIMIZE: the
        // few support vectors of the pattern, each read one cache miss in its column)
        let mut plus: Option<(usize, f64)> = None;
        let mut minus: Option<(usize, f64)> = None;
        for j in 0..k {
            if (support_only && b[j] == 0.0 && j != y) || self.frozen(e, j) {
                continue;
            }
            let g = self.grad[j][s] as f64;
            let room = if j == y { c - b[j] } else { -b[j] };
            if room > 0.0 && plus.is_none_or(|(_, gp)| g > gp) {
                plus = Some((j, g));
            }
            if minus.is_none_or(|(_, gm)| g < gm) {
                minus = Some((j, g));
            }
        }
        match (plus, minus) {
            (Some((p, gp)), Some((m, gm))) if p != m && gp - gm >= self.params.tol => self.smo_step(s, p, m, gp, gm),
            _ => 0.0,
        }
    }

    /// OPTIMIZE (Algorithm 20) on a random support pattern: both classes among its support
    /// vectors. Returns the dual increase.
    pub fn optimize(&mut self, rng: &mut Rng) -> f64 {
        if self.set.is_empty() {
            return 0.0;
        }
        self.stats.optimize += 1;
        let s = rng.below(self.set.len());
        self.fresh_gradients(s);
        self.best_pair_step(s, true)
    }

    /// Updates the stored gradients where the linear path let them go stale.
    pub fn settle(&mut self) {
        if let Scores::Linear { .. } = self.scores {
            self.refresh_gradients();
        }
    }

    /// The support patterns (problem indices) and their class coefficients, row-major; for the
    /// averaged perceptron, the averaged coefficients.
    pub fn expansion(&self) -> (Vec<usize>, Vec<f64>) {
        let k = self.classes;
        let support: Vec<usize> = (0..self.set.len()).map(|s| self.set.index_at(s)).collect();
        let coef = match self.params.method {
            Method::Perceptron { averaged: true } if self.ticks > 0 => {
                let t = self.ticks as f64;
                self.beta.iter().zip(&self.acc).map(|(b, a)| b - a / t).collect()
            }
            _ => self.beta[..support.len() * k].to_vec(),
        };
        (support, coef)
    }

    /// The linear path's weight vectors (classes x features), when it is taken.
    pub fn weights(&self) -> Option<&[f64]> {
        match &self.scores {
            Scores::Linear { w, .. } => Some(w),
            Scores::Kernel => None,
        }
    }
}

fn argmax_first(v: &[f64]) -> usize {
    let mut best = 0;
    for (j, &s) in v.iter().enumerate() {
        if s > v[best] {
            best = j;
        }
    }
    best
}

impl LaRankSteps for LaRank<'_, '_> {
    fn process_new(&mut self, pattern: usize) -> f64 {
        LaRank::process_new(self, pattern)
    }
    fn process_old(&mut self, rng: &mut Rng) -> f64 {
        LaRank::process_old(self, rng)
    }
    fn optimize(&mut self, rng: &mut Rng) -> f64 {
        LaRank::optimize(self, rng)
    }
    fn has_support(&self) -> bool {
        !self.set.is_empty()
    }
    fn work(&self) -> f64 {
        self.work
    }
    fn kernel_evals(&self) -> u64 {
        self.engine.evals()
    }
    fn kernel_cost(&self) -> f64 {
        self.kernel_cost
    }
}

#[cfg(test)]
mod tests;
