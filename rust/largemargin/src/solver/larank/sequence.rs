//! The sequence solver over one explicit model: LaRank's operations (PROCESSNEW, PROCESSOLD,
//! OPTIMIZE) on the beta-dual with loss-augmented inference, and the (averaged) structured
//! perceptron. See the module [`crate::sequence`] for the formulation.

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::sequence::{argmax, Inference, SeqModel, Sequences};
use crate::solver::larank::schedule::{fixed_step, Adaptive, Clock, LaRankSteps, Schedule};
use crate::solver::larank::LaRankStats;

/// The training rule of a sequence solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeqMethod {
    /// LaRank with a schedule: the fixed one (Algorithm 21; `reprocess = 0` is the
    /// passive-aggressive baseline) or the adaptive one (Algorithm 22, on the cost clock).
    LaRank(Schedule),
    /// The structured perceptron (Collins 2002); `averaged` keeps the average of all models.
    Perceptron {
        /// Return the average of the weights over all steps rather than the last ones.
        averaged: bool,
    },
}

/// A sequence method as its name gives it: the schedules come apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqMethodKind {
    /// LaRank on the fixed schedule (`reprocess` rounds).
    LaRank,
    /// LaRank on the adaptive schedule.
    LaRankAdaptive,
    /// LaRank on the fixed schedule without reprocessing: passive-aggressive.
    PassiveAggressive,
    /// `SeqMethod::Perceptron { averaged: false }`.
    Perceptron,
    /// `SeqMethod::Perceptron { averaged: true }`.
    AveragedPerceptron,
}
crate::error::option_names!(SeqMethodKind, "sequence method", {
    LaRank => "larank",
    LaRankAdaptive => "larank_adaptive",
    PassiveAggressive => "pa",
    Perceptron => "perceptron",
    AveragedPerceptron => "averaged_perceptron",
});

impl SeqMethodKind {
    /// The method, `reprocess` rounds for `LaRank` (unread otherwise).
    pub fn with(self, reprocess: usize) -> SeqMethod {
        match self {
            SeqMethodKind::LaRank => SeqMethod::LaRank(Schedule::Fixed { reprocess }),
            SeqMethodKind::LaRankAdaptive => SeqMethod::LaRank(Schedule::Adaptive),
            SeqMethodKind::PassiveAggressive => SeqMethod::LaRank(Schedule::Fixed { reprocess: 0 }),
            SeqMethodKind::Perceptron => SeqMethod::Perceptron { averaged: false },
            SeqMethodKind::AveragedPerceptron => SeqMethod::Perceptron { averaged: true },
        }
    }
}

/// The sequence problem's constants, the solver's method and the model's inference.
#[derive(Clone, Debug)]
pub struct SeqParams {
    /// The bound C on the coefficient of a pattern's true output in the beta-dual; positive.
    pub c: f64,
    /// tau: a step is taken only when g+ - g- is at least this.
    pub tol: f64,
    /// LaRank with a schedule, or the structured perceptron.
    pub method: SeqMethod,
    /// Greedy or exact decoding: it also decides what a pattern is (a token or a sequence).
    pub inference: Inference,
    /// Markov order k (number of lag-specific transition tables).
    pub order: usize,
}

impl Default for SeqParams {
    fn default() -> Self {
        SeqParams {
            c: 0.1,
            tol: 1e-4,
            method: SeqMethod::LaRank(Schedule::Fixed { reprocess: 1 }),
            inference: Inference::Greedy,
            order: 1,
        }
    }
}

impl SeqParams {
    /// Rejects a C or tol that is not positive and finite, exact inference at a Markov order
    /// other than 1, and an order above 64.
    pub fn validate(&self) -> Result<()> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::InvalidParameter(format!("C must be positive and finite, got {}", self.c)));
        }
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::InvalidParameter(format!("tol must be positive and finite, got {}", self.tol)));
        }
        if self.inference == Inference::Exact && self.order != 1 {
            return Err(Error::InvalidParameter(format!(
                "exact (Viterbi) inference supports Markov order 1 only, got {}",
                self.order
            )));
        }
        if self.order > 64 {
            return Err(Error::InvalidParameter(format!("Markov order must be at most 64, got {}", self.order)));
        }
        Ok(())
    }
}

/// An output of a support pattern with its coefficient. Output 0 is the true labeling.
#[derive(Clone, Debug)]
struct Output {
    labels: Vec<usize>,
    beta: f64,
}

/// A sparse difference Phi(p, c+) - Phi(p, c-), aggregated cell by cell.
#[derive(Default)]
struct Diff {
    /// (emission cell j * labels + y, value), sorted and merged.
    emit: Vec<(usize, f64)>,
    /// transition cells touched, and the dense scratch holding their values.
    touched: Vec<usize>,
    trans: Vec<f64>,
}

/// The state of one sequence fit: the explicit model, the support patterns with their outputs
/// and coefficients, and the perceptron's averaging sums.
pub struct SeqSolver<'a> {
    data: Sequences<'a>,
    label: &'a [usize],
    /// Sequence index of every token.
    seq_of: Vec<usize>,
    params: SeqParams,
    /// The current weights (for the averaged perceptron, the last iterate: see `final_model`).
    pub model: SeqModel,
    /// Per pattern (token for greedy, sequence for exact): its outputs while it is a support
    /// pattern, else empty.
    patterns: Vec<Vec<Output>>,
    /// Support patterns, and each pattern's place in that list (usize::MAX when outside).
    support: Vec<usize>,
    place: Vec<usize>,
    /// Averaged perceptron: sum of step * update, and the step counter.
    avg: Vec<f64>,
    avg_trans: Vec<f64>,
    ticks: f64,
    updated: Vec<bool>,
    emit_buf: Vec<f64>,
    out_buf: Vec<usize>,
    diff: Diff,
    /// Work done, in the adaptive schedule's cost units: entries read and written.
    work: f64,
    /// The operation counters and per-epoch curves, as the multiclass LaRank keeps them.
    pub stats: LaRankStats,
}

impl<'a> SeqSolver<'a> {
    /// A solver over `data` with one label index (below `labels`) per token.
    pub fn new(data: Sequences<'a>, label: &'a [usize], labels: usize, params: SeqParams) -> Result<Self> {
        params.validate()?;
        if label.len() != data.tokens() {
            return Err(Error::InvalidData(format!("{} labels for {} tokens", label.len(), data.tokens())));
        }
        if labels < 2 {
            return Err(Error::InvalidData("sequence labeling needs at least two labels".into()));
        }
        if let Some(k) = label.iter().position(|&y| y >= labels) {
            return Err(Error::InvalidData(format!("label {} of token {k} is not below {labels}", label[k])));
        }
        let mut seq_of = vec![0; data.tokens()];
        for i in 0..data.len() {
            let (a, b) = data.range(i);
            seq_of[a..b].iter_mut().for_each(|s| *s = i);
        }
        let n_patterns = match params.inference {
            Inference::Greedy => data.tokens(),
            Inference::Exact => data.len(),
        };
        let model = SeqModel::zeros(labels, data.x.cols(), params.order);
        let averaged = matches!(params.method, SeqMethod::Perceptron { averaged: true });
        Ok(SeqSolver {
            avg: if averaged { vec![0.0; model.emit.len()] } else { Vec::new() },
            avg_trans: if averaged { vec![0.0; model.trans.len()] } else { Vec::new() },
            diff: Diff { trans: vec![0.0; model.trans.len()], ..Default::default() },
            model,
            data,
            label,
            seq_of,
            params,
            patterns: vec![Vec::new(); n_patterns],
            support: Vec::new(),
            place: vec![usize::MAX; n_patterns],
            ticks: 1.0,
            updated: vec![false; n_patterns],
            emit_buf: Vec::new(),
            out_buf: Vec::new(),
            work: 0.0,
            stats: LaRankStats::default(),
        })
    }

    /// Number of support patterns (perceptron: patterns that caused an update).
    pub fn support_patterns(&self) -> usize {
        match self.params.method {
            SeqMethod::LaRank(_) => self.support.len(),
            SeqMethod::Perceptron { .. } => self.updated.iter().filter(|&&u| u).count(),
        }
    }
    /// Number of support vectors: (pattern, output) pairs with a nonzero coefficient
    /// (perceptron: twice the number of updates, one +1 and one -1 each).
    pub fn support_vectors(&self) -> usize {
        match self.params.method {
            SeqMethod::LaRank(_) => {
                self.support.iter().map(|&p| self.patterns[p].iter().filter(|o| o.beta != 0.0).count()).sum()
            }
            SeqMethod::Perceptron { .. } => 2 * self.stats.steps as usize,
        }
    }

    /// The dual objective (5.3): -sum Delta beta - 1/2 ||w||^2 (NaN for the perceptron, whose
    /// coefficients are not dual-feasible).
    pub fn dual(&self) -> f64 {
        if let SeqMethod::Perceptron { .. } = self.params.method {
            return f64::NAN;
        }
        let mut lin = 0.0;
        for &p in &self.support {
            let truth = &self.patterns[p][0].labels;
            for o in &self.patterns[p][1..] {
                lin -= hamming(&o.labels, truth) as f64 * o.beta;
            }
        }
        lin - 0.5 * self.model.squared_norm()
    }

    /// The duality gap: primal (2.18) minus dual, the primal's slack of each pattern being
    /// max(0, max_c [Delta(c, c_i) + S(p_i, c)] - S(p_i, c_i)) (one loss-augmented inference per
    /// pattern, not counted in the statistics). NaN for the perceptron.
    pub fn duality_gap(&mut self) -> f64 {
        if let SeqMethod::Perceptron { .. } = self.params.method {
            return f64::NAN;
        }
        let calls = self.stats.argmax;
        let mut slack = 0.0;
        for p in 0..self.patterns.len() {
            let (a, b, _) = self.span(p);
            if a == b {
                continue;
            }
            self.load_emissions(p);
            self.infer(p, true);
            let c = std::mem::take(&mut self.out_buf);
            let truth = &self.label[a..b];
            slack += (self.gradient(p, truth) - self.gradient(p, &c)).max(0.0);
            self.out_buf = c;
        }
        self.stats.argmax = calls;
        let norm = self.model.squared_norm();
        0.5 * norm + self.params.c * slack - self.dual()
    }

    /// The token range and context start of pattern p: (a, b, sequence start).
    fn span(&self, p: usize) -> (usize, usize, usize) {
        match self.params.inference {
            Inference::Greedy => (p, p + 1, self.data.seq_ptr[self.seq_of[p]]),
            Inference::Exact => {
                let (a, b) = self.data.range(p);
                (a, b, a)
            }
        }
    }

    /// The label at lag `lag` before position t (global) of pattern p's output `c`
    /// (covering a..), falling back to true labels and then START.
    #[inline]
    fn context(&self, c: &[usize], a: usize, start: usize, t: usize, lag: usize) -> usize {
        if t >= a + lag {
            c[t - lag - a]
        } else if t >= start + lag {
            self.label[t - lag]
        } else {
            self.model.labels
        }
    }

    /// S(p, c) from the pattern's emission table in `emit_buf`.
    fn score(&self, p: usize, c: &[usize]) -> f64 {
        let (a, b, start) = self.span(p);
        let l = self.model.labels;
        let mut s = 0.0;
        for t in a..b {
            let y = c[t - a];
            s += self.emit_buf[(t - a) * l + y];
            for lag in 1..=self.model.order {
                s += self.model.trans[self.model.t(lag, self.context(c, a, start, t, lag), y)];
            }
        }
        s
    }

    /// The (loss-augmented) argmax of pattern p into `out_buf`, from `emit_buf`.
    fn infer(&mut self, p: usize, loss_augmented: bool) {
        self.stats.argmax += 1;
        let (a, b, start) = self.span(p);
        let truth = loss_augmented.then(|| &self.label[a..b]);
        let mut out = std::mem::take(&mut self.out_buf);
        let l = self.model.labels as f64;
        self.work += match self.params.inference {
            Inference::Exact => (b - a) as f64 * l * l,
            Inference::Greedy => l * self.model.order as f64,
        };
        match self.params.inference {
            Inference::Exact => self.model.viterbi(&self.emit_buf, truth, &mut out),
            Inference::Greedy => {
                // one token whose context is the true previous labels
                let l = self.model.labels;
                let mut row = self.emit_buf[..l].to_vec();
                let ctx: Vec<usize> = (1..=self.model.order).map(|lag| self.context(&[], a, start, a, lag)).collect();
                self.model.add_transitions(&ctx, &mut row);
                if let Some(tr) = truth {
                    row.iter_mut().enumerate().filter(|(c, _)| *c != tr[0]).for_each(|(_, r)| *r += 1.0);
                }
                out.clear();
                out.push(argmax(&row));
            }
        }
        self.out_buf = out;
    }

    /// Builds Phi(p, c+) - Phi(p, c-) into `self.diff`; returns its squared norm.
    fn build_diff(&mut self, p: usize, cp: &[usize], cm: &[usize]) -> f64 {
        let (a, b, start) = self.span(p);
        let l = self.model.labels;
        let mut d = std::mem::take(&mut self.diff);
        d.emit.clear();
        for &cell in &d.touched {
            d.trans[cell] = 0.0;
        }
        d.touched.clear();
        for t in a..b {
            let (yp, ym) = (cp[t - a], cm[t - a]);
            if yp != ym {
                let (idx, val) = self.data.x.row(t);
                for (&j, &v) in idx.iter().zip(val) {
                    d.emit.push((j as usize * l + yp, v));
                    d.emit.push((j as usize * l + ym, -v));
                }
            }
            for lag in 1..=self.model.order {
                let (pp, pm) = (self.context(cp, a, start, t, lag), self.context(cm, a, start, t, lag));
                if pp == pm && yp == ym {
                    continue;
                }
                for (cell, v) in [(self.model.t(lag, pp, yp), 1.0), (self.model.t(lag, pm, ym), -1.0)] {
                    if d.trans[cell] == 0.0 {
                        d.touched.push(cell);
                    }
                    d.trans[cell] += v;
                }
            }
        }
        // cells hit by several positions are merged before squaring (Bordes 2010, thesis section 5.3)
        d.emit.sort_unstable_by_key(|e| e.0);
        let mut merged: Vec<(usize, f64)> = Vec::with_capacity(d.emit.len());
        for &(cell, v) in &d.emit {
            match merged.last_mut() {
                Some(last) if last.0 == cell => last.1 += v,
                _ => merged.push((cell, v)),
            }
        }
        d.emit = merged;
        d.touched.sort_unstable();
        d.touched.dedup();
        let norm = d.emit.iter().map(|e| e.1 * e.1).sum::<f64>()
            + d.touched.iter().map(|&c| d.trans[c] * d.trans[c]).sum::<f64>();
        self.diff = d;
        norm
    }

    /// w += scale * diff (and the averaging accumulator for the perceptron).
    fn apply_diff(&mut self, scale: f64) {
        self.work += (self.diff.emit.len() + self.diff.touched.len()) as f64;
        for &(cell, v) in &self.diff.emit {
            self.model.emit[cell] += scale * v;
        }
        for &cell in &self.diff.touched {
            self.model.trans[cell] += scale * self.diff.trans[cell];
        }
        if !self.avg.is_empty() {
            let s = scale * self.ticks;
            for &(cell, v) in &self.diff.emit {
                self.avg[cell] += s * v;
            }
            for &cell in &self.diff.touched {
                self.avg_trans[cell] += s * self.diff.trans[cell];
            }
        }
    }

    fn gradient(&self, p: usize, c: &[usize]) -> f64 {
        let (a, b, _) = self.span(p);
        -(hamming(c, &self.label[a..b]) as f64) - self.score(p, c)
    }

    /// The elementary step (Algorithm 17, sign-corrected) on support pattern p between its
    /// outputs ip (increased) and im (decreased), then drops the outputs left at zero. Returns
    /// the dual increase.
    fn smo_step(&mut self, p: usize, ip: usize, im: usize, gp: f64, gm: f64) -> f64 {
        let gain = self.step(p, ip, im, gp, gm);
        self.prune(p);
        gain
    }

    fn step(&mut self, p: usize, ip: usize, im: usize, gp: f64, gm: f64) -> f64 {
        if ip == im || gp - gm < self.params.tol {
            return 0.0;
        }
        let outs = std::mem::take(&mut self.patterns[p]);
        let rho = self.build_diff(p, &outs[ip].labels, &outs[im].labels);
        self.patterns[p] = outs;
        let bound = if ip == 0 { self.params.c } else { 0.0 } - self.patterns[p][ip].beta;
        if bound <= 0.0 || rho <= 0.0 {
            return 0.0;
        }
        let lambda = ((gp - gm) / rho).min(bound);
        let outs = &mut self.patterns[p];
        if lambda == bound {
            outs[ip].beta = if ip == 0 { self.params.c } else { 0.0 }; // exactly at the bound
        } else {
            outs[ip].beta += lambda;
        }
        outs[im].beta -= lambda;
        self.apply_diff(lambda);
        self.stats.steps += 1;
        lambda * (gp - gm) - 0.5 * lambda * lambda * rho
    }

    /// Drops wrong outputs whose coefficient is zero; the pattern leaves with the last one.
    fn prune(&mut self, p: usize) {
        if self.place[p] == usize::MAX {
            return;
        }
        let outs = &mut self.patterns[p];
        let mut k = 1;
        while k < outs.len() {
            if outs[k].beta >= 0.0 {
                outs.swap_remove(k);
            } else {
                k += 1;
            }
        }
        if outs.len() == 1 {
            outs.clear();
            self.leave(p);
        }
    }

    fn leave(&mut self, p: usize) {
        let k = self.place[p];
        let last = *self.support.last().unwrap();
        self.support.swap_remove(k);
        if last != p {
            self.place[last] = k;
        }
        self.place[p] = usize::MAX;
    }

    /// The index of output `c` among pattern p's outputs, adding it with beta 0 if absent.
    fn find_or_add(&mut self, p: usize, c: &[usize]) -> usize {
        let outs = &mut self.patterns[p];
        if let Some(k) = outs.iter().position(|o| o.labels == c) {
            return k;
        }
        outs.push(Output { labels: c.to_vec(), beta: 0.0 });
        outs.len() - 1
    }

    fn load_emissions(&mut self, p: usize) {
        let (a, b, _) = self.span(p);
        let mut e = std::mem::take(&mut self.emit_buf);
        self.model.emissions(&self.data.x, a, b, &mut e);
        let entries = (self.data.x.indptr()[b] - self.data.x.indptr()[a]) as f64 + (b - a) as f64;
        self.work += entries * self.model.labels as f64;
        self.emit_buf = e;
    }

    /// PROCESSNEW (Algorithm 18) on pattern p: c+ = truth, c- = loss-augmented argmax. A pattern
    /// already in the support set is processed as PROCESSOLD would.
    pub fn process_new(&mut self, p: usize) -> f64 {
        self.stats.process_new += 1;
        if self.place[p] != usize::MAX {
            return self.old_step(p);
        }
        self.load_emissions(p);
        self.infer(p, true);
        let (a, b, _) = self.span(p);
        let truth = self.label[a..b].to_vec();
        if self.out_buf == truth {
            return 0.0;
        }
        let cm = self.out_buf.clone();
        let (gp, gm) = (self.gradient(p, &truth), self.gradient(p, &cm));
        if gp - gm < self.params.tol {
            return 0.0;
        }
        self.patterns[p] = vec![Output { labels: truth, beta: 0.0 }, Output { labels: cm, beta: 0.0 }];
        self.place[p] = self.support.len();
        self.support.push(p);
        self.smo_step(p, 0, 1, gp, gm)
    }

    /// PROCESSOLD (Algorithm 19) on a random support pattern.
    pub fn process_old(&mut self, rng: &mut Rng) -> f64 {
        if self.support.is_empty() {
            return 0.0;
        }
        self.stats.process_old += 1;
        let p = self.support[rng.below(self.support.len())];
        self.old_step(p)
    }

    /// c+ = argmax of g over the outputs that may increase, c- = the loss-augmented argmax.
    fn old_step(&mut self, p: usize) -> f64 {
        self.load_emissions(p);
        self.infer(p, true);
        let cm = self.out_buf.clone();
        let im = self.find_or_add(p, &cm);
        let grads = self.gradients(p);
        let ip = self.best_plus(p, &grads);
        // an added output that takes no step is pruned again
        match ip {
            Some(ip) => self.smo_step(p, ip, im, grads[ip], grads[im]),
            None => {
                self.prune(p);
                0.0
            }
        }
    }

    fn gradients(&self, p: usize) -> Vec<f64> {
        self.patterns[p].iter().map(|o| self.gradient(p, &o.labels)).collect()
    }

    fn best_plus(&self, p: usize, grads: &[f64]) -> Option<usize> {
        let outs = &self.patterns[p];
        let mut best: Option<usize> = None;
        for (k, o) in outs.iter().enumerate() {
            let room = if k == 0 { self.params.c } else { 0.0 } - o.beta;
            if room > 0.0 && best.is_none_or(|b| grads[k] > grads[b]) {
                best = Some(k);
            }
        }
        best
    }

    /// OPTIMIZE (Algorithm 20) on a random support pattern: both outputs among its support
    /// vectors; no inference.
    pub fn optimize(&mut self, rng: &mut Rng) -> f64 {
        if self.support.is_empty() {
            return 0.0;
        }
        self.stats.optimize += 1;
        let p = self.support[rng.below(self.support.len())];
        self.load_emissions(p);
        let grads = self.gradients(p);
        let Some(ip) = self.best_plus(p, &grads) else { return 0.0 };
        let im = argmin(&grads);
        self.smo_step(p, ip, im, grads[ip], grads[im])
    }

    /// A perceptron step on pattern p: on a mistake, w += Phi(p, truth) - Phi(p, prediction).
    fn perceptron(&mut self, p: usize) {
        self.stats.process_new += 1;
        self.load_emissions(p);
        self.infer(p, false);
        let (a, b, _) = self.span(p);
        if self.out_buf[..] != self.label[a..b] {
            let (truth, pred) = (self.label[a..b].to_vec(), self.out_buf.clone());
            self.build_diff(p, &truth, &pred);
            self.apply_diff(1.0);
            self.stats.steps += 1;
            self.updated[p] = true;
        }
        self.ticks += 1.0;
    }

    /// One pass over the sequences in `order`.
    pub fn epoch(&mut self, order: &[usize], rng: &mut Rng, control: &Control) -> Result<()> {
        let mut visited = 0u64;
        let mut adaptive = Adaptive::new(Clock::Cost);
        for &i in order {
            control.poll()?;
            let (a, b) = self.data.range(i);
            let patterns = match self.params.inference {
                Inference::Greedy => a..b,
                Inference::Exact => i..i + 1,
            };
            for p in patterns {
                visited += 1;
                match self.params.method {
                    SeqMethod::Perceptron { .. } => self.perceptron(p),
                    SeqMethod::LaRank(Schedule::Fixed { reprocess }) => fixed_step(self, p, reprocess, rng),
                    SeqMethod::LaRank(Schedule::Adaptive) => adaptive.step(self, p, rng),
                }
            }
        }
        control.add_iterations(visited);
        self.stats.epochs += 1;
        Ok(())
    }

    /// The final model: the averaged one for the averaged perceptron.
    pub fn final_model(&self) -> SeqModel {
        let mut m = self.model.clone();
        if !self.avg.is_empty() {
            for (w, u) in m.emit.iter_mut().zip(&self.avg) {
                *w -= u / self.ticks;
            }
            for (w, u) in m.trans.iter_mut().zip(&self.avg_trans) {
                *w -= u / self.ticks;
            }
        }
        m
    }
}

fn hamming(a: &[usize], b: &[usize]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

fn argmin(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x < v[best] {
            best = i;
        }
    }
    best
}

impl LaRankSteps for SeqSolver<'_> {
    fn process_new(&mut self, pattern: usize) -> f64 {
        SeqSolver::process_new(self, pattern)
    }
    fn process_old(&mut self, rng: &mut Rng) -> f64 {
        SeqSolver::process_old(self, rng)
    }
    fn optimize(&mut self, rng: &mut Rng) -> f64 {
        SeqSolver::optimize(self, rng)
    }
    fn has_support(&self) -> bool {
        !self.support.is_empty()
    }
    fn work(&self) -> f64 {
        self.work
    }
}

#[cfg(test)]
mod tests;
