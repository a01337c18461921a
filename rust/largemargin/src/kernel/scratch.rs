//! Per-thread scratch buffers of the kernel loops, reused between rows.

use std::cell::RefCell;

thread_local! {
    /// A sparse query scattered into a dense buffer; only touched entries are cleared after use.
    pub(super) static SCATTER: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// Dot products of one query with every target row, reused between rows.
    pub(super) static FULL_PASS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Runs f with a zeroed thread-local scratch vector of at least `len` entries (a fresh one if this
/// thread's is in use, as happens when work stealing re-enters on the same thread).
pub(super) fn with_scratch<R>(
    key: &'static std::thread::LocalKey<RefCell<Vec<f64>>>, len: usize, f: impl FnOnce(&mut Vec<f64>) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                buf.resize(len, 0.0);
            }
            f(&mut buf)
        }
        Err(_) => f(&mut vec![0.0; len]),
    })
}

/// The packed panels of a blocked product: the rows', a column chunk's, a strip of dot products.
type Panels = (Vec<f64>, Vec<f64>, Vec<f64>);

thread_local! {
    static PANELS: RefCell<Panels> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// Runs f with this thread's panel buffers (fresh ones if they are in use), which f sizes itself.
pub(super) fn with_panels<R>(f: impl FnOnce(&mut Vec<f64>, &mut Vec<f64>, &mut Vec<f64>) -> R) -> R {
    PANELS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut p) => {
            let (a, b, s) = &mut *p;
            f(a, b, s)
        }
        Err(_) => f(&mut Vec::new(), &mut Vec::new(), &mut Vec::new()),
    })
}
