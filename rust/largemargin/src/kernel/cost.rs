//! The engine's cost model: when one pass over all targets beats visiting the requested ones,
//! how much of them the processor's cache holds, when a segment is worth splitting over threads.

use std::sync::OnceLock;

/// A request for at least 1/FULL_PASS_FRACTION of the targets is computed by one pass over all
/// of them in memory order, then gathered; smaller requests visit their targets directly (a pass
/// over all targets to use a few of them, as in a one-vs-one class pair, costs more than it saves).
pub(super) const FULL_PASS_FRACTION: usize = 2;
/// Cost of a sparse row entry read at a random place, relative to one read in memory order by a
/// pass: when the requested rows come from main memory, and when they fit in the processor's
/// cache (measured on adult and MNIST-like data, 5-7 MB, against adult repeated eight times).
pub(super) const DIRECT_VISIT_COST: f64 = 4.0;
pub(super) const DIRECT_VISIT_COST_CACHED: f64 = 0.8;
/// Bytes of a sparse entry (f64 value, i32 index).
pub(super) const SPARSE_ENTRY_BYTES: f64 = 12.0;
/// Cost of a dense column's value read in memory order by a pass, relative to a sparse column's
/// entry (which is 12 bytes to the value's 8, and is added to its row's sum at the row's place).
pub(super) const DENSE_ENTRY_COST: f64 = 0.5;

/// How many bytes of requested rows a direct visit may expect to find in cache: a quarter of the
/// last-level cache (the solver's rows, gradients and the rest of the process share it).
pub(super) fn cache_resident_bytes() -> f64 {
    static BYTES: OnceLock<f64> = OnceLock::new();
    *BYTES.get_or_init(|| last_level_cache_bytes().unwrap_or(8 << 20) as f64 / 4.0)
}

/// The size of the first processor's largest cache, as Linux reports it.
fn last_level_cache_bytes() -> Option<usize> {
    (0..8)
        .filter_map(|k| std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{k}/size")).ok())
        .filter_map(|s| {
            let s = s.trim();
            let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
            let scale = match unit {
                "K" => 1 << 10,
                "M" => 1 << 20,
                "" => 1,
                _ => return None,
            };
            digits.parse::<usize>().ok().map(|v| v * scale)
        })
        .max()
}
/// The same for external kernels, for which gathering the requested rows is the dearer part.
pub(super) const EXTERNAL_WHOLE_FRACTION: usize = 4;

/// Dense data at most this dense (and at least this wide) is held internally in sparse form.
pub(super) const SPARSE_DENSITY: f64 = 0.3;
pub(super) const SPARSE_MIN_WIDTH: usize = 32;

/// Segments shorter than this are computed on the calling thread.
pub(super) const PARALLEL_MIN: usize = 4096;

pub(super) fn chunk_for(len: usize, parallel: bool) -> usize {
    let threads = rayon::current_num_threads();
    if parallel && threads > 1 && len >= PARALLEL_MIN {
        len.div_ceil(2 * threads)
    } else {
        len.max(1)
    }
}
