//! Rows asked for ahead (`Decomposition::Auto`): where the kernel engine computes rows by blocks, a
//! missing row is computed together with those of the variables the next selections will likely
//! ask for.

use super::{Smo, DOWN, SIGN_SHIFT, UP};

impl Smo<'_> {
    /// Where the matrix computes rows by blocks and row `first` over the active set is not held:
    /// the rows the next selections will likely ask for are computed with it, those of the most
    /// violating variables not held either (half from the top of the gradients of the variables
    /// that may increase, half from the bottom of those that may decrease), so that the kernel
    /// engine computes them as one block rather than one row at a time. Their values are the
    /// ones single rows would get: the path does not depend on it.
    pub(super) fn prefetch_around(&mut self, first: usize) {
        let n = self.active;
        if self.q.holds(first, n) {
            return;
        }
        let count = self.q.block_rows(n);
        if count <= 1 {
            return;
        }
        let (up, down) = (UP | (UP << SIGN_SHIFT), DOWN | (DOWN << SIGN_SHIFT));
        let (mut ups, mut downs) = (Vec::new(), Vec::new());
        for t in 0..n {
            if t == first || self.status[t] & (up | down) == 0 || self.q.holds(t, n) {
                continue;
            }
            if self.status[t] & up != 0 {
                ups.push((self.g[t], t));
            }
            if self.status[t] & down != 0 {
                downs.push((self.g[t], t));
            }
        }
        let half = (count - 1) / 2;
        let mut rows = vec![first];
        for (list, descending) in [(&mut ups, true), (&mut downs, false)] {
            let take = half.min(list.len());
            if take == 0 {
                continue;
            }
            let order = |a: &(f64, usize), b: &(f64, usize)| {
                let o = a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                if descending {
                    o.reverse()
                } else {
                    o
                }
            };
            if take < list.len() {
                list.select_nth_unstable_by(take - 1, order);
            }
            rows.extend(list[..take].iter().map(|&(_, t)| t));
        }
        rows[1..].sort_unstable();
        rows.dedup();
        self.q.prefetch(&rows, n);
    }
}
