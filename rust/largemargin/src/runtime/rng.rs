//! A small seeded generator (SplitMix64): every random choice in the crate comes from one of these,
//! so results depend on the seed only, never on thread count.

/// SplitMix64's state: a counter advanced by the golden-ratio increment, mixed on output.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose stream depends on `seed` only.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The generator's state, to continue its stream later with `resume` (a fit in several calls).
    pub fn state(&self) -> u64 {
        self.0
    }
    /// The generator that `state` was taken from, at the same point of its stream.
    pub fn resume(state: u64) -> Self {
        Rng(state)
    }
    /// The next 64 uniformly distributed bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
    /// Puts `v` in a uniformly random order (Fisher-Yates, from the end).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}
