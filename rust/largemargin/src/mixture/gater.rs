//! The global gater: an MLP with one layer of tanh hidden units and softmax outputs g_k(x), one
//! per expert, trained by stochastic gradient on the whole mixture's criterion with the experts
//! frozen: 1/2 (y - tanh(sum_k g_k(x) f_k(x)))^2 for classification (the tanh on the mixture's
//! output is the thesis' choice), 1/2 (y - sum_k g_k(x) f_k(x))^2 for regression.
//!
//! Training may restrict each example to a few candidate experts (the ones the gater ranks
//! highest): the softmax and the mixture then run over those only. The gradient reaching the other
//! experts is proportional to their gates, which are small once the gater is trained, and every
//! expert's output on every example is the dominant cost of a round (K kernel expansions per
//! example); with candidates it is m instead of K.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;

/// Which criterion the gater is trained on, the mixture's task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaterTask {
    /// Targets +1/-1, criterion 1/2 (y - tanh(sum_k g_k f_k))^2.
    Classification,
    /// Real targets, criterion 1/2 (y - sum_k g_k f_k)^2.
    Regression,
}

crate::error::option_names!(GaterTask, "gater task", { Classification => "classification", Regression => "regression" });

/// The gater's weights: `w1` (hidden x inputs), `b1`, `w2` (experts x hidden), `b2`, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Gater {
    /// Features per input row.
    pub inputs: usize,
    /// Number of tanh hidden units.
    pub hidden: usize,
    /// Number of experts, one softmax output each.
    pub experts: usize,
    /// Input-to-hidden weights, `hidden` rows of `inputs`.
    pub w1: Vec<f64>,
    /// Hidden biases, `hidden` of them.
    pub b1: Vec<f64>,
    /// Hidden-to-output weights, `experts` rows of `hidden`: row k gives expert k's logit.
    pub w2: Vec<f64>,
    /// Output biases, one per expert.
    pub b2: Vec<f64>,
}

/// The frozen experts' outputs on the training rows: row-major (n, width); with `experts`, entry
/// (i, c) is the output of expert `experts[i * width + c]` (distinct within a row), otherwise
/// width is the number of experts and entry (i, e) belongs to expert e.
#[derive(Clone, Copy, Debug)]
pub struct ExpertOutputs<'a> {
    /// The outputs f_k(x_i), `width` per row.
    pub values: &'a [f64],
    /// Which expert each output belongs to, shaped as `values`; None when every row holds all
    /// experts in order.
    pub experts: Option<&'a [usize]>,
    /// Outputs per row: the number of candidates, or of all experts.
    pub width: usize,
}

impl ExpertOutputs<'_> {
    fn expert(&self, i: usize, c: usize) -> usize {
        match self.experts {
            Some(e) => e[i * self.width + c],
            None => c,
        }
    }
}

/// Schedule of one training call: `epochs` passes in a seeded random order with step
/// lr / (1 + decay * t), t counting examples seen in this call.
#[derive(Clone, Copy, Debug)]
pub struct GaterSchedule {
    /// Passes over the training rows.
    pub epochs: usize,
    /// The initial step lr; positive.
    pub learning_rate: f64,
    /// How fast the step shrinks with the examples seen; nonnegative (0: a constant step).
    pub decay: f64,
    /// Seeds the order of every pass.
    pub seed: u64,
}

impl Gater {
    /// Small random weights, uniform in +-1/sqrt(fan-in); the output layer starts at zero so the
    /// first gate is uniform.
    pub fn new(inputs: usize, hidden: usize, experts: usize, seed: u64) -> Result<Self> {
        if inputs == 0 || hidden == 0 || experts == 0 {
            return Err(Error::InvalidParameter(format!(
                "a gater needs inputs, hidden units and experts, got {inputs}, {hidden}, {experts}"
            )));
        }
        let mut rng = Rng::new(seed);
        let mut uniform = |scale: f64| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale;
        let s1 = 1.0 / (inputs as f64).sqrt();
        let w1 = (0..hidden * inputs).map(|_| uniform(s1)).collect();
        let b1 = (0..hidden).map(|_| uniform(s1)).collect();
        Ok(Gater { inputs, hidden, experts, w1, b1, w2: vec![0.0; experts * hidden], b2: vec![0.0; experts] })
    }

    /// Checks that the parts fit together (weights received from outside).
    pub fn check(&self) -> Result<()> {
        let (d, h, k) = (self.inputs, self.hidden, self.experts);
        if self.w1.len() != h * d || self.b1.len() != h || self.w2.len() != k * h || self.b2.len() != k {
            return Err(Error::InvalidData(format!(
                "gater weights do not match {d} inputs, {h} hidden units, {k} experts"
            )));
        }
        if self.w1.iter().chain(&self.b1).chain(&self.w2).chain(&self.b2).any(|v| !v.is_finite()) {
            return Err(Error::InvalidData("gater weights contain NaN or infinity".into()));
        }
        Ok(())
    }

    fn check_rows(&self, x: &[f64]) -> Result<usize> {
        if x.len() % self.inputs != 0 {
            return Err(Error::InvalidData(format!("inputs must have {} columns", self.inputs)));
        }
        Ok(x.len() / self.inputs)
    }

    fn hidden_row(&self, x: &[f64], hid: &mut [f64]) {
        for (j, h) in hid.iter_mut().enumerate() {
            let w = &self.w1[j * self.inputs..(j + 1) * self.inputs];
            *h = (self.b1[j] + w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()).tanh();
        }
    }

    /// Expert e's logit from a row's hidden activations.
    fn logit(&self, e: usize, hid: &[f64]) -> f64 {
        let w = &self.w2[e * self.hidden..(e + 1) * self.hidden];
        self.b2[e] + w.iter().zip(hid).map(|(a, b)| a * b).sum::<f64>()
    }

    /// Hidden activations and gates of one row; `hid` has `hidden`, `gate` `experts` entries.
    fn forward_row(&self, x: &[f64], hid: &mut [f64], gate: &mut [f64]) {
        self.hidden_row(x, hid);
        for (e, g) in gate.iter_mut().enumerate() {
            *g = self.logit(e, hid);
        }
        softmax(gate);
    }

    /// g_k(x) for every row of `x` (row-major, `inputs` columns), row-major (n, experts); rows in
    /// parallel.
    pub fn gates(&self, x: &[f64]) -> Result<Vec<f64>> {
        self.check()?;
        let n = self.check_rows(x)?;
        let mut out = vec![0.0; n * self.experts];
        out.par_chunks_mut(self.experts)
            .zip(x.par_chunks(self.inputs))
            .for_each_init(|| vec![0.0; self.hidden], |hid, (g, row)| self.forward_row(row, hid, g));
        Ok(out)
    }

    /// The mixture's output sum_k g_k(x) f_k(x) (before the tanh of classification) per row.
    pub fn mix(&self, x: &[f64], outputs: &[f64]) -> Result<Vec<f64>> {
        let gates = self.gates(x)?;
        if outputs.len() != gates.len() {
            return Err(Error::InvalidData("expert outputs must be (n, experts)".into()));
        }
        Ok(gates
            .chunks(self.experts)
            .zip(outputs.chunks(self.experts))
            .map(|(g, f)| g.iter().zip(f).map(|(a, b)| a * b).sum())
            .collect())
    }

    /// Logits of the `cand` experts of one row from its hidden activations, softmax over them.
    fn candidate_gates(&self, hid: &[f64], outputs: &ExpertOutputs, i: usize, gate: &mut [f64]) {
        for (c, g) in gate.iter_mut().enumerate() {
            *g = self.logit(outputs.expert(i, c), hid);
        }
        softmax(gate);
    }

    fn check_outputs(&self, n: usize, outputs: &ExpertOutputs, y: &[f64]) -> Result<()> {
        let (w, k) = (outputs.width, self.experts);
        if w == 0 || outputs.values.len() != n * w || y.len() != n {
            return Err(Error::InvalidData(format!("{n} rows need {n} x {w} expert outputs and {n} targets")));
        }
        match outputs.experts {
            None if w != k => {
                return Err(Error::InvalidData(format!("{n} rows need {n} x {k} expert outputs, got width {w}")))
            }
            Some(e) if e.len() != n * w => {
                return Err(Error::InvalidData("expert candidates must have the shape of the outputs".into()))
            }
            Some(e) => {
                for row in e.chunks(w) {
                    if row.iter().any(|&c| c >= k) {
                        return Err(Error::InvalidData(format!(
                            "a candidate expert is out of range (the gater has {k})"
                        )));
                    }
                    if row.iter().enumerate().any(|(a, c)| row[..a].contains(c)) {
                        return Err(Error::InvalidData("an example lists the same candidate expert twice".into()));
                    }
                }
            }
            None => {}
        }
        if outputs.values.iter().chain(y).any(|v| !v.is_finite()) {
            return Err(Error::InvalidData("expert outputs or targets contain NaN or infinity".into()));
        }
        Ok(())
    }

    /// Trains the gater with the experts frozen: `outputs` holds f_k(x_i) for all experts or for
    /// each row's candidates, `y` the targets (+1/-1 for classification). Returns the mean
    /// criterion of each epoch (measured while training). Stops between examples when `control`
    /// asks.
    pub fn train(
        &mut self, x: &[f64], outputs: &ExpertOutputs, y: &[f64], task: GaterTask, schedule: GaterSchedule,
        control: &Control,
    ) -> Result<Vec<f64>> {
        self.check()?;
        let n = self.check_rows(x)?;
        let (d, h, w) = (self.inputs, self.hidden, outputs.width);
        if n == 0 {
            return Err(Error::InvalidData("no examples to train the gater on".into()));
        }
        self.check_outputs(n, outputs, y)?;
        if !(schedule.learning_rate > 0.0 && schedule.learning_rate.is_finite() && schedule.decay >= 0.0) {
            return Err(Error::InvalidParameter(
                "the gater's learning rate must be positive and its decay non-negative".into(),
            ));
        }
        let mut rng = Rng::new(schedule.seed);
        let mut order: Vec<usize> = (0..n).collect();
        let (mut hid, mut gate, mut d_out, mut d_hid) = (vec![0.0; h], vec![0.0; w], vec![0.0; w], vec![0.0; h]);
        let mut losses = Vec::with_capacity(schedule.epochs);
        let mut t = 0.0;
        for _ in 0..schedule.epochs {
            rng.shuffle(&mut order);
            let mut total = 0.0;
            for &i in &order {
                control.poll()?;
                let row = &x[i * d..(i + 1) * d];
                let f = &outputs.values[i * w..(i + 1) * w];
                self.hidden_row(row, &mut hid);
                self.candidate_gates(&hid, outputs, i, &mut gate);
                let z: f64 = gate.iter().zip(f).map(|(a, b)| a * b).sum();
                // dC/dz
                let dz = match task {
                    GaterTask::Classification => {
                        let o = z.tanh();
                        total += 0.5 * (y[i] - o) * (y[i] - o);
                        -(y[i] - o) * (1.0 - o * o)
                    }
                    GaterTask::Regression => {
                        total += 0.5 * (y[i] - z) * (y[i] - z);
                        -(y[i] - z)
                    }
                };
                let lr = schedule.learning_rate / (1.0 + schedule.decay * t);
                t += 1.0;
                // through the softmax: dz/do_e = g_e (f_e - z)
                for c in 0..w {
                    d_out[c] = dz * gate[c] * (f[c] - z);
                }
                for (j, dh) in d_hid.iter_mut().enumerate() {
                    let back: f64 = (0..w).map(|c| self.w2[outputs.expert(i, c) * h + j] * d_out[c]).sum();
                    *dh = back * (1.0 - hid[j] * hid[j]);
                }
                for c in 0..w {
                    let e = outputs.expert(i, c);
                    let step = lr * d_out[c];
                    for (wt, a) in self.w2[e * h..(e + 1) * h].iter_mut().zip(&hid) {
                        *wt -= step * a;
                    }
                    self.b2[e] -= step;
                }
                for j in 0..h {
                    let step = lr * d_hid[j];
                    if step == 0.0 {
                        continue;
                    }
                    for (wt, a) in self.w1[j * d..(j + 1) * d].iter_mut().zip(row) {
                        *wt -= step * a;
                    }
                    self.b1[j] -= step;
                }
            }
            losses.push(total / n as f64);
            if !losses.last().unwrap().is_finite() {
                return Err(Error::InvalidParameter(
                    "the gater's training diverged (NaN criterion): lower its learning rate".into(),
                ));
            }
        }
        Ok(losses)
    }
}

fn softmax(v: &mut [f64]) {
    let top = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for a in v.iter_mut() {
        *a = (*a - top).exp();
        sum += *a;
    }
    for a in v.iter_mut() {
        *a /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(epochs: usize) -> GaterSchedule {
        GaterSchedule { epochs, learning_rate: 0.05, decay: 0.0, seed: 1 }
    }

    fn all(values: &[f64], k: usize) -> ExpertOutputs<'_> {
        ExpertOutputs { values, experts: None, width: k }
    }

    /// The weights `pick` selects at `idx` moved from g0 to g1 (one SGD step of rate `lr`) by -lr
    /// times the central finite difference of `criterion`.
    fn assert_step_is_gradient(
        g0: &Gater, g1: &Gater, lr: f64, criterion: impl Fn(&Gater) -> f64, pick: fn(&mut Gater) -> &mut Vec<f64>,
        idx: impl IntoIterator<Item = usize>, what: &str,
    ) {
        for i in idx {
            let (mut plus, mut minus, (mut a, mut b)) = (g0.clone(), g0.clone(), (g0.clone(), g1.clone()));
            pick(&mut plus)[i] += 1e-6;
            pick(&mut minus)[i] -= 1e-6;
            let numeric = (criterion(&plus) - criterion(&minus)) / 2e-6;
            let analytic = (pick(&mut a)[i] - pick(&mut b)[i]) / lr;
            assert!((numeric - analytic).abs() < 1e-6 * (1.0 + numeric.abs()), "{what}[{i}]: {numeric} vs {analytic}");
        }
    }

    /// The backpropagated gradient equals finite differences of the criterion.
    #[test]
    fn gradient_matches_finite_differences() {
        let x = [0.3, -0.7, 1.1];
        let f = [0.9, -0.4];
        for task in [GaterTask::Classification, GaterTask::Regression] {
            let g0 = {
                let mut g = Gater::new(3, 4, 2, 7).unwrap();
                for (i, w) in g.w2.iter_mut().enumerate() {
                    *w = 0.1 * i as f64 - 0.3;
                }
                g
            };
            let criterion = |g: &Gater| {
                let z = g.mix(&x, &f).unwrap()[0];
                let o = if task == GaterTask::Classification { z.tanh() } else { z };
                0.5 * (1.0 - o) * (1.0 - o)
            };
            // one SGD step of rate lr moves each weight by -lr * gradient
            let lr = 1e-6;
            let mut g1 = g0.clone();
            g1.train(
                &x,
                &all(&f, 2),
                &[1.0],
                task,
                GaterSchedule { epochs: 1, learning_rate: lr, decay: 0.0, seed: 0 },
                &Control::new(),
            )
            .unwrap();
            assert_step_is_gradient(&g0, &g1, lr, criterion, |g| &mut g.w1, [0, 5, 11], &format!("{task:?} w1"));
            assert_step_is_gradient(&g0, &g1, lr, criterion, |g| &mut g.w2, [0, 3, 7], &format!("{task:?} w2"));
        }
    }

    /// Two experts, each right on one half of the line: the gater learns to route by the sign of x.
    #[test]
    fn learns_to_route() {
        let n = 400;
        let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64 * 2.0 - 1.0).collect();
        let y: Vec<f64> = x.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
        // expert 0 says +1 everywhere, expert 1 says -1 everywhere
        let outputs: Vec<f64> = (0..n).flat_map(|_| [1.0, -1.0]).collect();
        let mut g = Gater::new(1, 5, 2, 3).unwrap();
        let losses =
            g.train(&x, &all(&outputs, 2), &y, GaterTask::Classification, schedule(60), &Control::new()).unwrap();
        assert!(losses.last().unwrap() < &(0.5 * losses[0]), "{losses:?}");
        let gates = g.gates(&[0.8, -0.8]).unwrap();
        assert!(gates[0] > 0.9 && gates[3] > 0.9, "{gates:?}");
        assert!((gates[0] + gates[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn mismatched_shapes_are_errors() {
        let mut g = Gater::new(2, 3, 2, 0).unwrap();
        assert!(g.gates(&[1.0, 2.0, 3.0]).is_err());
        assert!(g
            .train(&[1.0, 2.0], &all(&[1.0], 2), &[1.0], GaterTask::Regression, schedule(1), &Control::new())
            .is_err());
        let f = [0.5, -0.5];
        for bad in [[0usize, 2], [1, 1]] {
            let out = ExpertOutputs { values: &f, experts: Some(&bad), width: 2 };
            assert!(g.train(&[1.0, 2.0], &out, &[1.0], GaterTask::Regression, schedule(1), &Control::new()).is_err());
        }
        assert!(Gater::new(0, 3, 2, 0).is_err());
        g.w1.pop();
        assert!(g.check().is_err());
    }

    /// All experts as candidates, listed in any order, is the full criterion: same weights.
    #[test]
    fn all_candidates_in_any_order_is_the_full_gater() {
        let (n, k) = (50, 3);
        let x: Vec<f64> = (0..2 * n).map(|i| ((i * 37 % 11) as f64 - 5.0) / 5.0).collect();
        let f: Vec<f64> = (0..n * k).map(|i| ((i * 13 % 7) as f64 - 3.0) / 3.0).collect();
        let y: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let mut full = Gater::new(2, 4, k, 5).unwrap();
        let mut restricted = full.clone();
        full.train(&x, &all(&f, k), &y, GaterTask::Classification, schedule(3), &Control::new()).unwrap();
        // each row lists the experts rotated by its index
        let cand: Vec<usize> = (0..n).flat_map(|i| (0..k).map(move |c| (c + i) % k)).collect();
        let vals: Vec<f64> = (0..n).flat_map(|i| (0..k).map(|c| f[i * k + (c + i) % k]).collect::<Vec<_>>()).collect();
        let out = ExpertOutputs { values: &vals, experts: Some(&cand), width: k };
        restricted.train(&x, &out, &y, GaterTask::Classification, schedule(3), &Control::new()).unwrap();
        for (a, b) in full
            .w1
            .iter()
            .chain(&full.w2)
            .chain(&full.b2)
            .zip(restricted.w1.iter().chain(&restricted.w2).chain(&restricted.b2))
        {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    /// With two candidates out of four experts, a step moves only the candidates' output weights,
    /// and by the gradient of the criterion restricted to them.
    #[test]
    fn candidate_step_follows_the_restricted_gradient() {
        let x = [0.3, -0.7, 1.1];
        let f = [0.9, -0.4];
        let cand = [3usize, 1];
        let mut g0 = Gater::new(3, 4, 4, 7).unwrap();
        for (i, w) in g0.w2.iter_mut().enumerate() {
            *w = 0.05 * i as f64 - 0.4;
        }
        let criterion = |g: &Gater| {
            let mut hid = vec![0.0; 4];
            g.hidden_row(&x, &mut hid);
            let mut gate = vec![0.0; 2];
            g.candidate_gates(&hid, &ExpertOutputs { values: &f, experts: Some(&cand), width: 2 }, 0, &mut gate);
            let o = (gate[0] * f[0] + gate[1] * f[1]).tanh();
            0.5 * (1.0 - o) * (1.0 - o)
        };
        let lr = 1e-6;
        let mut g1 = g0.clone();
        let out = ExpertOutputs { values: &f, experts: Some(&cand), width: 2 };
        g1.train(
            &x,
            &out,
            &[1.0],
            GaterTask::Classification,
            GaterSchedule { epochs: 1, learning_rate: lr, decay: 0.0, seed: 0 },
            &Control::new(),
        )
        .unwrap();
        assert_step_is_gradient(&g0, &g1, lr, criterion, |g| &mut g.w2, 0..16, "w2");
        assert_step_is_gradient(&g0, &g1, lr, criterion, |g| &mut g.w1, [0, 5, 11], "w1");
        // experts 0 and 2 are not candidates: their output weights stay
        assert_eq!(g0.w2[..4], g1.w2[..4]);
        assert_eq!(g0.w2[8..12], g1.w2[8..12]);
    }
}
