//! Where a model keeps its float64 weights.

/// Where a model keeps its float64 weights: a vector of its own, or a row of the caller's
/// output (a fit of many problems writes each into its row of one matrix, nothing copied).
#[derive(Debug)]
pub enum Store<'w> {
    /// The model's own vector.
    Owned(Vec<f64>),
    /// A row the caller lends.
    Row(&'w mut [f64]),
}

impl Default for Store<'_> {
    fn default() -> Self {
        Store::Owned(Vec::new())
    }
}

impl std::ops::Deref for Store<'_> {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        match self {
            Store::Owned(v) => v,
            Store::Row(r) => r,
        }
    }
}

impl std::ops::DerefMut for Store<'_> {
    fn deref_mut(&mut self) -> &mut [f64] {
        match self {
            Store::Owned(v) => v,
            Store::Row(r) => r,
        }
    }
}

impl Clone for Store<'_> {
    /// A copy of its own (a lent row cannot be lent twice).
    fn clone(&self) -> Self {
        Store::Owned(self.to_vec())
    }
}

impl PartialEq for Store<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}
