//! LaSVM (Bordes, Ertekin, Weston, Bottou 2005; Bordes 2010, PhD thesis, sections 4.2-4.3): an online solver of the signed SVM dual with bias.
//!
//! The state is a set S of potential support vectors with their coefficients and gradients
//! (g_s = y_s - sum_t alpha_t K_st, kept for s in S only). PROCESS tries to insert a fresh example,
//! REPROCESS optimises among S and evicts what cannot become a support vector; the finishing step
//! runs SMO on S until no tau-violating pair is left.
//!
//! Kernel rows come from an `ExpansionSet`: S occupies positions 0..|S|, so a row request of
//! length |S| is exactly K(x_k, S), and inserting or evicting an example is a swap of positions.

use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, Split};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::runtime::team::{Team, SOLO};
use crate::solver::online::expansion::{check_labels, ExpansionSet, AHEAD_ROWS};
use crate::solver::qmatrix::Prefix;
use crate::solver::smo::{self, DualProblem, Equality, Selection, SmoParams, Start};

/// Fewest SMO iterations of a finishing round (a round is at least |S|/4 iterations).
const FINISHING_ROUND: u64 = 1000;

/// Below this curvature a step goes to the edge of the feasible box (as for a linear objective).
const MIN_CURVATURE: f64 = f32::EPSILON as f64;

/// What a selection strategy decides after seeing its candidates' decision values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Choice {
    /// Process the candidate at this position of the list.
    Take(usize),
    /// Process none of them; they stay in the pool. A pass in which the strategy declines as
    /// many candidate sets in a row as there are examples left ends there.
    Skip,
    /// End the online pass now.
    Stop,
}

/// Picks the next example for PROCESS among random unprocessed candidates.
pub trait SelectionStrategy: Send {
    /// Most candidates to score per step; 1 means "take the next random example" (no scoring is
    /// wasted: its kernel row is the one PROCESS needs).
    fn n_candidates(&self) -> usize;
    /// Whether the candidates scored so far suffice (AUTOACTIVE stops drawing early).
    fn enough(&self, _decision: &[f64], _gap: f64) -> bool {
        false
    }
    /// The choice among the candidates, given f(x) and the labels (NaN where unknown).
    fn choose(&mut self, decision: &[f64], labels: &[f64], gap: f64) -> Choice;
}

/// RANDOM: the next example of a random order.
pub struct RandomSelection;
impl SelectionStrategy for RandomSelection {
    fn n_candidates(&self) -> usize {
        1
    }
    fn choose(&mut self, decision: &[f64], _: &[f64], _: f64) -> Choice {
        if decision.is_empty() {
            Choice::Stop
        } else {
            Choice::Take(0)
        }
    }
}

/// GRADIENT: of M random candidates, the most misclassified (argmin y f(x)).
pub struct GradientSelection {
    /// M, the random candidates scored per step.
    pub candidates: usize,
}
impl SelectionStrategy for GradientSelection {
    fn n_candidates(&self) -> usize {
        self.candidates
    }
    fn choose(&mut self, decision: &[f64], labels: &[f64], _: f64) -> Choice {
        argmin(decision.iter().zip(labels).map(|(f, y)| if y.is_nan() { f.abs() } else { y * f }))
    }
}

/// ACTIVE: of M random candidates, the closest to the boundary (argmin |f(x)|); needs no labels.
pub struct ActiveSelection {
    /// M, the random candidates scored per step.
    pub candidates: usize,
}
impl SelectionStrategy for ActiveSelection {
    fn n_candidates(&self) -> usize {
        self.candidates
    }
    fn choose(&mut self, decision: &[f64], _: &[f64], _: f64) -> Choice {
        argmin(decision.iter().map(|f| f.abs()))
    }
}

/// AUTOACTIVE: draws candidates until `wanted` of them lie inside the margin band
/// |f(x)| < 1 + gap/2 (at most `candidates`) and takes the closest to the boundary; when none of
/// them is inside the band, the online pass stops (nothing informative is left to learn from).
pub struct AutoActiveSelection {
    /// The most candidates drawn per step.
    pub candidates: usize,
    /// Candidates inside the margin band that end the drawing.
    pub wanted: usize,
}
impl SelectionStrategy for AutoActiveSelection {
    fn n_candidates(&self) -> usize {
        self.candidates
    }
    fn enough(&self, decision: &[f64], gap: f64) -> bool {
        decision.iter().filter(|f| f.abs() < 1.0 + gap / 2.0).count() >= self.wanted
    }
    fn choose(&mut self, decision: &[f64], _: &[f64], gap: f64) -> Choice {
        if !decision.iter().any(|f| f.abs() < 1.0 + gap / 2.0) {
            return Choice::Stop;
        }
        argmin(decision.iter().map(|f| f.abs()))
    }
}

/// The built-in selection strategies by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectionKind {
    /// `RandomSelection`.
    Random,
    /// `GradientSelection`.
    Gradient,
    /// `ActiveSelection`.
    Active,
    /// `AutoActiveSelection`.
    AutoActive,
}
crate::error::option_names!(SelectionKind, "selection strategy", {
    Random => "random",
    Gradient => "gradient",
    Active => "active",
    AutoActive => "autoactive",
});

impl SelectionKind {
    /// The strategy scoring `candidates` examples a step (AUTOACTIVE draws up to twice as many,
    /// until 5 lie inside the margin band; RANDOM scores none).
    pub fn strategy(self, candidates: usize) -> Box<dyn SelectionStrategy> {
        match self {
            SelectionKind::Random => Box::new(RandomSelection),
            SelectionKind::Gradient => Box::new(GradientSelection { candidates }),
            SelectionKind::Active => Box::new(ActiveSelection { candidates }),
            SelectionKind::AutoActive => Box::new(AutoActiveSelection { candidates: 2 * candidates, wanted: 5 }),
        }
    }
}

/// ((g_max, i), (g_min, j)) of `extremes`; usize::MAX where a side is empty.
type Extremes = ((f64, usize), (f64, usize));

/// The extremes over positions `start..start + alpha.len()` (their coefficients, gradients,
/// labels and boxes).
fn scan_extremes(start: usize, alpha: &[f64], grad: &[f64], y: &[f64], c: &[f64]) -> Extremes {
    let (mut up, mut down) = ((f64::NEG_INFINITY, usize::MAX), (f64::INFINITY, usize::MAX));
    for (t, (((&a, &g), &y), &c)) in alpha.iter().zip(grad).zip(y).zip(c).enumerate() {
        let cy = c * y;
        let (lo, hi) = (cy.min(0.0), cy.max(0.0));
        if a < hi && g > up.0 {
            up = (g, start + t);
        }
        if a > lo && g < down.0 {
            down = (g, start + t);
        }
    }
    (up, down)
}

/// The extremes of consecutive parts, in order (the first position on ties).
fn merge_extremes(parts: Vec<Extremes>) -> Extremes {
    let (mut up, mut down) = ((f64::NEG_INFINITY, usize::MAX), (f64::INFINITY, usize::MAX));
    for (u, d) in parts {
        if u.1 != usize::MAX && (up.1 == usize::MAX || u.0 > up.0) {
            up = u;
        }
        if d.1 != usize::MAX && (down.1 == usize::MAX || d.0 < down.0) {
            down = d;
        }
    }
    (up, down)
}

fn argmin(values: impl Iterator<Item = f64>) -> Choice {
    let mut best: Option<(usize, f64)> = None;
    for (k, v) in values.enumerate() {
        if best.is_none_or(|(_, b)| v < b) {
            best = Some((k, v));
        }
    }
    best.map_or(Choice::Stop, |(k, _)| Choice::Take(k))
}

/// Asks for the label of an example chosen without one (active learning).
pub trait Oracle {
    /// The label (+1 or -1) of example `e`, 0 when it is not part of the problem, NaN when no
    /// more questions are taken (the pass ends).
    fn label(&mut self, e: usize) -> Result<f64>;
}

/// The constants of one LaSVM problem.
#[derive(Clone, Debug)]
pub struct LaSvmParams {
    /// tau: REPROCESS's violation threshold and the finishing step's stopping gap.
    pub tol: f64,
    /// Seed examples PROCESSed per class before the online pass.
    pub seed_per_class: usize,
    /// The problem's kernel-row cache budget, in bytes.
    pub cache_bytes: usize,
}

impl Default for LaSvmParams {
    fn default() -> Self {
        LaSvmParams { tol: 1e-3, seed_per_class: 5, cache_bytes: 200 << 20 }
    }
}

/// Counters a caller may report.
#[derive(Clone, Debug, Default)]
pub struct LaSvmStats {
    /// Examples PROCESS was tried on (outside S when asked).
    pub processed: u64,
    /// Examples PROCESS inserted into S.
    pub inserted: u64,
    /// Examples REPROCESS and the finishing step removed from S.
    pub evicted: u64,
    /// REPROCESS calls that took a step on a tau-violating pair.
    pub reprocess_steps: u64,
    /// SMO iterations of the finishing step.
    pub finishing_iterations: u64,
    /// `max_iter` ended the online passes before their end: examples were left unseen.
    pub stopped_by_max_iter: bool,
}

/// A binary LaSVM problem over some examples of an engine's data. Labels are +1/-1 (NaN: not
/// known yet); `c[e]` is example e's box (class weight x sample weight x C).
pub struct LaSvm<'e, 'a> {
    set: ExpansionSet<'e, 'a>,
    // By position:
    alpha: Vec<f64>,
    grad: Vec<f64>,
    y: Vec<f64>,
    c: Vec<f64>,
    params: LaSvmParams,
    bias: f64,
    gap: f64,
    /// `extremes()` as of the last gradient step, until S, a coefficient or a gradient changes
    /// otherwise (the step's pass over S finds them as it goes).
    known_extremes: Option<Extremes>,
    /// The problem's counters so far.
    pub stats: LaSvmStats,
    /// Splits the kernel rows, the gradient updates, the scans over S and the finishing step.
    team: &'e Team<'e>,
}

impl<'e, 'a> LaSvm<'e, 'a> {
    /// `examples` are the engine rows of the problem, `y[k]` and `c[k]` those of `examples[k]`.
    pub fn new(
        engine: &'e KernelEngine<'a>, examples: Vec<usize>, y: &[f64], c: &[f64], params: LaSvmParams,
    ) -> Result<Self> {
        let n = examples.len();
        check_labels(y, n, true)?;
        if c.len() != n {
            return Err(Error::InvalidData(format!("{} bounds for {n} examples", c.len())));
        }
        if let Some(k) = c.iter().position(|&v| !(v >= 0.0 && v.is_finite())) {
            return Err(Error::InvalidData(format!("the bound C of example {k} is {}", c[k])));
        }
        if !(params.tol > 0.0 && params.tol.is_finite()) {
            return Err(Error::InvalidParameter("tol must be positive".into()));
        }
        Ok(LaSvm {
            set: ExpansionSet::new(engine, examples, params.cache_bytes),
            alpha: vec![0.0; n],
            grad: vec![0.0; n],
            y: y.to_vec(),
            c: c.to_vec(),
            params,
            bias: 0.0,
            gap: f64::INFINITY,
            known_extremes: None,
            stats: LaSvmStats::default(),
            team: &SOLO,
        })
    }

    /// Runs the problem on `team` (a problem that has every core): the solution is the same.
    pub fn on_team(mut self, team: &'e Team<'e>) -> Self {
        self.set = self.set.split(Split::over(team));
        self.team = team;
        self
    }

    /// Starts from a previous solution: `alpha[k]` for the problem's first `support` examples,
    /// which form S (their gradients are recomputed from the kernel).
    pub fn warm_start(&mut self, support: usize, alpha: &[f64]) -> Result<()> {
        if !self.set.is_empty() || support > self.y.len() || alpha.len() != support {
            return Err(Error::InvalidData(
                "a warm start needs a fresh problem and one coefficient per support vector".into(),
            ));
        }
        for (k, &a) in alpha.iter().enumerate() {
            let (lo, hi) = self.bounds(k);
            if !(a >= lo - 1e-9 * self.c[k].max(1.0) && a <= hi + 1e-9 * self.c[k].max(1.0)) || self.y[k].is_nan() {
                return Err(Error::InvalidData(format!("coefficient {a} of support vector {k} is outside its box")));
            }
            self.alpha[k] = a.clamp(lo, hi);
        }
        self.set_len(support);
        for s in 0..support {
            self.grad[s] = self.y[s] - self.set.expand(s, &self.alpha);
        }
        self.update_bias();
        Ok(())
    }

    fn bounds(&self, pos: usize) -> (f64, f64) {
        let cy = self.c[pos] * self.y[pos];
        (cy.min(0.0), cy.max(0.0))
    }

    fn set_len(&mut self, len: usize) {
        self.set.set_len(len);
        self.known_extremes = None;
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.known_extremes = None;
        if i != j {
            self.set.swap(i, j);
            self.alpha.swap(i, j);
            self.grad.swap(i, j);
            self.y.swap(i, j);
            self.c.swap(i, j);
        }
    }

    /// (g_max, i) over s in S with alpha_s < B_s and (g_min, j) over those with alpha_s > A_s
    /// (the first position on ties), in parts over the team merged in order.
    fn extremes(&self) -> Extremes {
        if let Some(known) = self.known_extremes {
            return known;
        }
        let (alpha, grad, y, c) = (&self.alpha, &self.grad, &self.y, &self.c);
        merge_extremes(self.team.map(self.set.len(), &|range: std::ops::Range<usize>| {
            let start = range.start;
            scan_extremes(start, &alpha[range.clone()], &grad[range.clone()], &y[range.clone()], &c[range])
        }))
    }

    /// f(x) of the example at position `pos` (not in S), from its kernel row over S, which stays
    /// cached for PROCESS.
    fn decision_at(&mut self, pos: usize) -> f64 {
        self.set.expand(pos, &self.alpha) + self.bias
    }

    /// The SMO step on the pair (i up, j down) and the gradient update over S.
    fn step(&mut self, i: usize, j: usize) -> Result<()> {
        let n = self.set.len();
        let ((lo_j, _), (_, hi_i)) = (self.bounds(j), self.bounds(i));
        let (kii, kjj) = (self.set.diag(i), self.set.diag(j));
        let (ri, rj) = self.set.two_rows(i, j);
        let curvature = kii + kjj - 2.0 * ri[j] as f64;
        let room = (hi_i - self.alpha[i]).min(self.alpha[j] - lo_j);
        let lambda = if curvature >= MIN_CURVATURE {
            ((self.grad[i] - self.grad[j]) / curvature).min(room)
        } else if curvature > -1e-6 * (kii + kjj).abs().max(1.0) {
            room
        } else {
            return Err(Error::InvalidParameter(format!(
                "the kernel is not positive semi-definite (K_ii + K_jj - 2 K_ij = {curvature})"
            )));
        };
        self.alpha[i] = if lambda == hi_i - self.alpha[i] { hi_i } else { self.alpha[i] + lambda };
        self.alpha[j] = if lambda == self.alpha[j] - lo_j { lo_j } else { self.alpha[j] - lambda };
        // the gradient update and the next extremes in one pass over S
        let (alpha, y, c) = (&self.alpha, &self.y, &self.c);
        let parts = self.team.map_chunks(&mut self.grad[..n], &|offset, grad| {
            let end = offset + grad.len();
            let (ri, rj) = (&ri[offset..end], &rj[offset..end]);
            for ((g, &ki), &kj) in grad.iter_mut().zip(ri).zip(rj) {
                *g -= lambda * (ki as f64 - kj as f64);
            }
            scan_extremes(offset, &alpha[offset..end], grad, &y[offset..end], &c[offset..end])
        });
        self.known_extremes = Some(merge_extremes(parts));
        Ok(())
    }

    /// PROCESS: tries to insert the example at position `pos` (>= |S|). Returns whether it was.
    pub fn process(&mut self, pos: usize) -> Result<bool> {
        if pos < self.set.len() {
            return Ok(false);
        }
        self.stats.processed += 1;
        let n = self.set.len();
        let yk = self.y[pos];
        let gk = yk - self.set.expand(pos, &self.alpha);
        let ((gmax, imax), (gmin, jmin)) = self.extremes();
        // With the equality constraint, an example whose gradient lies beyond the extremes on its
        // side cannot move: it would stay at zero (tolerance 0, as the reference code).
        if n > 0 && gmin < gmax && ((yk > 0.0 && gk < gmin) || (yk < 0.0 && gk > gmax)) {
            // its row is needed again only if it is PROCESSed again (a next epoch, at best): kept,
            // every later swap would have to patch it
            self.set.forget(pos);
            return Ok(false);
        }
        self.swap(pos, n);
        self.alpha[n] = 0.0;
        self.grad[n] = gk;
        self.set_len(n + 1);
        self.stats.inserted += 1;
        // The newcomer sits at its lower bound if positive, at its upper bound if negative, so the
        // partner's extreme over S is unchanged by its arrival (and S's positions did not move).
        let (i, j) = if yk > 0.0 { (n, jmin) } else { (imax, n) };
        if i == usize::MAX || j == usize::MAX || i == j {
            return Ok(true);
        }
        if self.grad[i] - self.grad[j] > 0.0 {
            self.step(i, j)?;
        }
        Ok(true)
    }

    /// REPROCESS: one step on the maximal violating pair of S (if tau-violating), then evicts the
    /// examples that cannot become support vectors, and updates bias and gap.
    pub fn reprocess(&mut self) -> Result<()> {
        let ((gmax, i), (gmin, j)) = self.extremes();
        if i != usize::MAX && j != usize::MAX && i != j && gmax - gmin > self.params.tol {
            self.step(i, j)?;
            self.stats.reprocess_steps += 1;
        }
        self.evict();
        Ok(())
    }

    fn evict(&mut self) {
        let ((gmax, _), (gmin, _)) = self.extremes();
        if !(gmax.is_finite() && gmin.is_finite()) {
            // No pair can move yet (one class only, as an active learner starting without
            // labels): nothing is known about any example.
            return self.set_bias(gmax, gmin);
        }
        let before = self.set.len();
        let mut s = before;
        while s > 0 {
            s -= 1;
            let (y, g) = (self.y[s], self.grad[s]);
            if self.alpha[s] == 0.0 && ((y < 0.0 && g >= gmax) || (y > 0.0 && g <= gmin)) {
                let last = self.set.len() - 1;
                self.swap(s, last);
                self.set_len(last);
                // (as a rejected example's row)
                self.set.forget(last);
                self.stats.evicted += 1;
            }
        }
        if self.set.len() != before {
            self.update_bias();
        } else {
            self.set_bias(gmax, gmin);
        }
    }

    fn update_bias(&mut self) {
        let extremes = self.extremes();
        self.known_extremes = Some(extremes);
        let ((gmax, _), (gmin, _)) = extremes;
        self.set_bias(gmax, gmin);
    }

    fn set_bias(&mut self, gmax: f64, gmin: f64) {
        (self.bias, self.gap) = match (gmax.is_finite(), gmin.is_finite()) {
            (true, true) => ((gmax + gmin) / 2.0, gmax - gmin),
            (true, false) => (gmax, 0.0),
            (false, true) => (gmin, 0.0),
            (false, false) => (0.0, 0.0),
        };
    }

    /// PROCESS of a few examples of each class (problem indices, in the given order) to start from.
    pub fn seed(&mut self, order: &[usize]) -> Result<()> {
        let want = self.params.seed_per_class;
        let (mut pos, mut neg) = (0, 0);
        for &k in order {
            if pos >= want && neg >= want {
                break;
            }
            let p = self.set.position(k);
            match self.y[p] {
                y if y > 0.0 && pos < want => pos += 1,
                y if y < 0.0 && neg < want => neg += 1,
                _ => continue,
            }
            self.process(p)?;
        }
        self.reprocess()
    }

    /// One online pass over `order` (problem indices, typically a random permutation): each step
    /// the strategy picks an example among random unprocessed candidates, which is PROCESSed,
    /// followed by one REPROCESS. An example chosen without a label gets one from `oracle`. The
    /// pass ends when the pool is empty, the strategy stops it, or after `max_steps` steps.
    /// Returns the steps taken (examples PROCESSed).
    pub fn online_pass(
        &mut self, order: &[usize], strategy: &mut dyn SelectionStrategy, rng: &mut Rng,
        mut oracle: Option<&mut (dyn Oracle + '_)>, max_steps: Option<u64>, control: &Control,
    ) -> Result<u64> {
        let mut pool: Vec<usize> = order.to_vec();
        let m = strategy.n_candidates().max(1);
        let (mut steps, mut taken, mut declined) = (0u64, 0u64, 0usize);
        let (mut picks, mut decisions, mut labels) =
            (Vec::with_capacity(m), Vec::with_capacity(m), Vec::with_capacity(m));
        while !pool.is_empty() && max_steps.is_none_or(|cap| taken < cap) {
            steps += 1;
            if steps % 256 == 0 {
                control.add_iterations(256);
            }
            control.poll()?;
            let chosen = if m == 1 {
                // the next of the (already random) order: no scoring needed; the rows of the
                // next few are computed together
                let next = pool.len() - 1;
                if !self.set.is_ahead(pool[next]) {
                    self.set.compute_ahead(&pool[pool.len().saturating_sub(AHEAD_ROWS)..]);
                }
                next
            } else {
                picks.clear();
                decisions.clear();
                labels.clear();
                while picks.len() < m {
                    let slot = rng.below(pool.len());
                    let p = self.set.position(pool[slot]);
                    picks.push(slot);
                    decisions.push(if p < self.set.len() {
                        self.bias - self.grad[p] + self.y[p]
                    } else {
                        self.decision_at(p)
                    });
                    labels.push(self.y[p]);
                    if strategy.enough(&decisions, self.gap) {
                        break;
                    }
                }
                let choice = strategy.choose(&decisions, &labels, self.gap);
                for (k, &slot) in picks.iter().enumerate() {
                    if choice != Choice::Take(k) {
                        let p = self.set.position(pool[slot]);
                        if p >= self.set.len() {
                            self.set.discard(p);
                        }
                    }
                }
                match choice {
                    Choice::Take(k) if k < picks.len() => picks[k],
                    Choice::Take(k) => {
                        return Err(Error::InvalidParameter(format!(
                            "the selection strategy chose candidate {k} of {}",
                            picks.len()
                        )))
                    }
                    Choice::Skip => {
                        declined += 1;
                        if declined >= pool.len() {
                            break; // it declines everything left: the pass is over
                        }
                        continue;
                    }
                    // a strategy judging by the margin (autoactive) sees no margin before the
                    // expansion holds both classes (labels asked from an oracle): go on, at random
                    Choice::Stop if !self.has_both_classes() => picks[0],
                    Choice::Stop => break,
                }
            };
            declined = 0;
            let k = pool.swap_remove(chosen);
            let p = self.set.position(k);
            if self.y[p].is_nan() {
                let label = match oracle.as_mut() {
                    Some(o) => o.label(k)?,
                    None => {
                        return Err(Error::InvalidData(format!("example {k} has no label and no oracle was given")))
                    }
                };
                if label.is_nan() {
                    break; // the oracle takes no more questions (a budget shared by the problems)
                }
                if label == 0.0 {
                    // not part of this problem (a one-vs-one pair's other class): left out
                    self.set.discard(p);
                    continue;
                }
                if !(label == 1.0 || label == -1.0) {
                    return Err(Error::InvalidData(format!(
                        "the oracle labelled example {k} {label}, not +1, -1 or 0"
                    )));
                }
                self.y[p] = label;
            }
            self.process(p)?;
            self.reprocess()?;
            taken += 1;
        }
        control.add_iterations(steps % 256);
        Ok(taken)
    }

    /// The finishing step: SMO on S, started from LaSVM's own gradients, until no tau-violating
    /// pair is left, with evictions along the way. `shrinking` has SMO set aside variables stuck
    /// at a bound (it then needs the rows of those at a bound once, to keep their part of the
    /// gradient).
    pub fn finish(&mut self, selection: Selection, shrinking: bool, control: &Control) -> Result<()> {
        loop {
            let n = self.set.len();
            if n < 2 {
                return Ok(());
            }
            let (lo, hi): (Vec<f64>, Vec<f64>) = (0..n).map(|s| self.bounds(s)).unzip();
            // In rounds, with an eviction after each (as the reference code's REPROCESS loop
            // evicts as it goes): S shrinks, and with it every row still to compute. With
            // shrinking, one round: each would start by reading the rows of the bounded variables.
            let max_iter = if shrinking { None } else { Some(FINISHING_ROUND.max(n as u64 / 4)) };
            let params = SmoParams { tol: self.params.tol, shrinking, max_iter, selection, ..Default::default() };
            let mut prefix = Prefix::new(self.set.matrix(), n);
            let problem = DualProblem { p: &self.y[..n], lo: &lo, hi: &hi, equality: Equality::Total };
            let start = Start::At { alpha: &self.alpha[..n], gradient: Some(&self.grad[..n]), gbar: None };
            let sol = smo::solve(self.team, &mut prefix, &problem, start, &params, control)?;
            let origin = prefix.origin;
            // The solver reordered positions 0..n: make every per-position array follow.
            self.set.follow(&origin);
            let (y, c): (Vec<f64>, Vec<f64>) = origin.iter().map(|&o| (self.y[o], self.c[o])).unzip();
            for (t, &o) in origin.iter().enumerate() {
                self.y[t] = y[t];
                self.c[t] = c[t];
                self.alpha[t] = sol.alpha[o];
                self.grad[t] = sol.gradient[o];
            }
            self.stats.finishing_iterations += sol.iterations;
            self.known_extremes = None;
            self.evict();
            if sol.converged {
                return Ok(());
            }
        }
    }

    /// b of f(x) = sum_s alpha_s K(x, x_s) + b: the midpoint (g_max + g_min) / 2 of the gradients'
    /// extremes over S (the finite one while only one is).
    pub fn bias(&self) -> f64 {
        self.bias
    }
    /// g_max - g_min over S: the uncertainty on the bias, and the stopping criterion.
    pub fn gap(&self) -> f64 {
        self.gap
    }
    /// |S|, examples with a zero coefficient included.
    pub fn expansion_size(&self) -> usize {
        self.set.len()
    }
    /// D(alpha) = 1/2 sum_{s in S} alpha_s (y_s + g_s).
    pub fn objective(&self) -> f64 {
        (0..self.set.len()).map(|s| 0.5 * self.alpha[s] * (self.y[s] + self.grad[s])).sum()
    }
    /// (problem index, coefficient) of every support vector (nonzero coefficient), by problem index.
    pub fn support(&self) -> Vec<(usize, f64)> {
        let mut out: Vec<(usize, f64)> = (0..self.set.len())
            .filter(|&s| self.alpha[s] != 0.0)
            .map(|s| (self.set.index_at(s), self.alpha[s]))
            .collect();
        out.sort_unstable_by_key(|&(k, _)| k);
        out
    }
    fn has_both_classes(&self) -> bool {
        let s = &self.y[..self.set.len()];
        s.iter().any(|&v| v > 0.0) && s.iter().any(|&v| v < 0.0)
    }

    /// The label now known for a problem index (NaN if never asked).
    pub fn label(&self, k: usize) -> f64 {
        self.y[self.set.position(k)]
    }
}
