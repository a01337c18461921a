//! The kernel-cache budget a fit gets when it is not given one (`cache_size="auto"`): sized from
//! the problem and from the memory the machine has available.
//!
//! A fit never needs more than the whole kernel matrix in float32 plus what the engine copies of
//! the data (those copies are charged to the same budget, see `KernelEngine::within`), and it
//! gets that much when it fits in `AUTO_MEMORY_SHARE` of the available memory; it never gets
//! less than LIBSVM's 200 MB unless the machine has less than that to spare. A share, not all of
//! it: fits run side by side (a search's processes, a mixture's experts), and each sizes its
//! budget on its own.

/// LIBSVM's and scikit-learn's default budget, in bytes: a floor for the automatic budget.
pub const DEFAULT_BUDGET: usize = 200 << 20;

/// The automatic budget takes at most this fraction of the available memory.
pub const AUTO_MEMORY_SHARE: f64 = 0.25;

/// Bytes of engine copies charged to the budget per stored value of the data (a sparse copy and a
/// column-major copy of 12 bytes per entry, or a feature-major float64 copy) and per row (norms).
const COPY_BYTES_PER_VALUE: usize = 24;
const COPY_BYTES_PER_ROW: usize = 16;

/// The automatic budget in bytes for a fit over `rows` examples whose data stores `values` values
/// (nonzeros of sparse data, rows x features of dense data), given `available` bytes of memory
/// (None: unknown, and the old default is kept).
pub fn auto_budget_with(rows: usize, values: usize, available: Option<usize>) -> usize {
    let matrix = rows.saturating_mul(rows).saturating_mul(std::mem::size_of::<f32>());
    let copies = values.saturating_mul(COPY_BYTES_PER_VALUE).saturating_add(rows.saturating_mul(COPY_BYTES_PER_ROW));
    let need = matrix.saturating_add(copies);
    let Some(available) = available else { return DEFAULT_BUDGET };
    let cap = (available as f64 * AUTO_MEMORY_SHARE) as usize;
    need.min(cap).max(DEFAULT_BUDGET.min(cap)).max(1 << 20)
}

/// `auto_budget_with` and the memory this machine has available now (`available_memory`).
pub fn auto_budget(rows: usize, values: usize) -> usize {
    auto_budget_with(rows, values, available_memory())
}

/// The memory a new allocation can take without swapping, in bytes: the kernel's estimate of
/// available memory (Linux' `MemAvailable`), less where a control group limits the process to
/// less. None where neither can be read (another system).
pub fn available_memory() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines().find_map(|line| {
            let rest = line.strip_prefix("MemAvailable:")?;
            let kb: usize = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            kb.checked_mul(1024)
        })
    });
    // cgroup v2: the limit (a number, or "max") less what the group uses
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let group = match (read("memory.max"), read("memory.current")) {
        (Some(max), Some(current)) => match (max.trim().parse::<usize>(), current.trim().parse::<usize>()) {
            (Ok(max), Ok(current)) => Some(max.saturating_sub(current)),
            _ => None,
        },
        _ => None,
    };
    match (meminfo, group) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_matrix_when_it_fits_a_share_of_memory() {
        let gb = 1usize << 30;
        // 64k rows of 54 features: 16.4 GB of matrix, capped at a quarter of 24 GB
        assert_eq!(auto_budget_with(64_000, 64_000 * 54, Some(24 * gb)), 6 * gb);
        // 20k rows: the matrix and the copies, within the share
        let b = auto_budget_with(20_000, 20_000 * 54, Some(24 * gb));
        assert_eq!(b, 20_000 * 20_000 * 4 + 20_000 * 54 * 24 + 20_000 * 16);
        // a small problem keeps the old default, which it could not use up anyway
        assert_eq!(auto_budget_with(1000, 1000 * 10, Some(24 * gb)), DEFAULT_BUDGET);
        // a machine with little memory to spare gets its share, even below the old default
        assert_eq!(auto_budget_with(64_000, 64_000, Some(400 << 20)), 100 << 20);
        // unknown memory: the old default
        assert_eq!(auto_budget_with(64_000, 64_000, None), DEFAULT_BUDGET);
        // no overflow, whatever the sizes
        assert_eq!(auto_budget_with(usize::MAX, usize::MAX, Some(8 * gb)), 2 * gb);
    }

    #[test]
    fn available_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let a = available_memory().expect("MemAvailable is in /proc/meminfo");
            assert!(a > 1 << 20, "{a} bytes available");
        }
    }
}
