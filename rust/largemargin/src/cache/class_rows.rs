//! Kernel rows of a one-vs-one problem that its class pairs share: pair (a, b) needs, for an
//! example of class a, its kernel with every example of a, and so does every other pair of a.
//! Each such row over the example's own class is computed by the first pair that asks (twice at
//! most rarely, by two pairs asking at once), and read by the others from any thread.
//!
//! The rows are kept for the whole fit, so only classes whose rows all fit in the budget take
//! part: nothing is evicted, so a row is not computed again later. Classes are taken in order while
//! they fit (each saves the same per byte: its rows are read by all its pairs).

use std::sync::OnceLock;

/// The rows of each example over its own class, for the classes that fit in a byte budget.
pub struct ClassRows<'c> {
    /// The class of every example.
    class: &'c [usize],
    /// The members of each class, ascending.
    members: &'c [Vec<usize>],
    /// Every example's place among its class's members.
    place: Vec<u32>,
    /// Whether the rows of each class are kept.
    kept: Vec<bool>,
    rows: Vec<OnceLock<Box<[f32]>>>,
}

impl<'c> ClassRows<'c> {
    /// Rows for the examples whose class index is `class[e]`, `members` listing each class's
    /// examples in ascending order; a class takes part if its rows fit in what the classes before
    /// it left of `bytes`.
    pub fn new(class: &'c [usize], members: &'c [Vec<usize>], bytes: usize) -> Self {
        assert!(u32::try_from(class.len()).is_ok(), "places are kept as u32");
        let mut place = vec![0u32; class.len()];
        for m in members {
            for (k, &e) in m.iter().enumerate() {
                place[e] = k as u32;
            }
        }
        let mut room = bytes;
        let kept = members
            .iter()
            .map(|m| {
                let need = m.len() * m.len() * std::mem::size_of::<f32>();
                let fits = need <= room;
                if fits {
                    room -= need;
                }
                fits
            })
            .collect();
        ClassRows { class, members, place, kept, rows: (0..class.len()).map(|_| OnceLock::new()).collect() }
    }

    /// The class of example e.
    pub fn class(&self, e: usize) -> usize {
        self.class[e]
    }
    /// Example e's place among its class's members: its entry in the rows of its class.
    pub fn place(&self, e: usize) -> usize {
        self.place[e] as usize
    }
    /// The members of class c, ascending.
    pub fn members(&self, c: usize) -> &[usize] {
        &self.members[c]
    }
    /// Whether the rows of class c are kept.
    pub fn kept(&self, c: usize) -> bool {
        self.kept[c]
    }
    /// Whether any class's rows are kept.
    pub fn any_kept(&self) -> bool {
        self.kept.contains(&true)
    }

    /// Example e's row over its class, if computed.
    pub fn get(&self, e: usize) -> Option<&[f32]> {
        self.rows[e].get().map(|r| &r[..])
    }

    /// Example e's row over its class (whose rows must be kept), filled by `fill` if it is not
    /// there yet. The fill runs outside any lock: it may run rayon loops, and a thread waiting in
    /// one can be handed another pair that asks for this same row, which must not wait on a fill
    /// its own thread started. Two pairs asking at once for a new row may both compute it; the
    /// values are the same, and the first stored is kept.
    pub fn row(&self, e: usize, fill: impl FnOnce(&mut [f32])) -> &[f32] {
        let c = self.class[e];
        assert!(self.kept[c], "the rows of class {c} are not kept");
        if let Some(row) = self.rows[e].get() {
            return row;
        }
        let mut row = vec![0.0f32; self.members[c].len()].into_boxed_slice();
        fill(&mut row);
        // Err: another thread stored the same row first.
        let _ = self.rows[e].set(row);
        self.rows[e].get().expect("the row was just stored")
    }

    /// Bytes held by the rows computed so far.
    pub fn used_bytes(&self) -> usize {
        self.rows.iter().filter_map(OnceLock::get).map(|r| r.len() * std::mem::size_of::<f32>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_computed_once_for_the_classes_that_fit() {
        let class = [0, 1, 0, 2, 1, 0];
        let members = vec![vec![0, 2, 5], vec![1, 4], vec![3]];
        // classes 0 (36 bytes) and 2 (4 bytes) fit in 40 bytes once class 1 (16) does not after 0
        let rows = ClassRows::new(&class, &members, 40);
        assert_eq!((rows.kept(0), rows.kept(1), rows.kept(2)), (true, false, true));
        assert_eq!((rows.place(5), rows.place(4), rows.class(4)), (2, 1, 1));
        let mut computed = 0;
        for _ in 0..3 {
            let r = rows.row(2, |out| {
                computed += 1;
                out.copy_from_slice(&[1.0, 2.0, 3.0]);
            });
            assert_eq!(r, &[1.0, 2.0, 3.0]);
        }
        assert_eq!(computed, 1);
        assert_eq!(rows.used_bytes(), 12);
    }

    #[test]
    #[should_panic(expected = "not kept")]
    fn a_row_of_a_class_left_out_is_refused() {
        let class = [0, 1];
        let members = vec![vec![0], vec![1]];
        ClassRows::new(&class, &members, 4).row(1, |_| {});
    }

    #[test]
    fn threads_share_rows() {
        let class: Vec<usize> = (0..40).map(|e| e % 2).collect();
        let members: Vec<Vec<usize>> = (0..2).map(|c| (c..40).step_by(2).collect()).collect();
        let rows = ClassRows::new(&class, &members, 1 << 20);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for e in 0..40 {
                        assert_eq!(rows.row(e, |out| out.fill(e as f32))[19], e as f32);
                    }
                });
            }
        });
        assert_eq!(rows.used_bytes(), 40 * 20 * 4);
    }
}
