//! Seeded mutation fuzzing of the two file readers, on stable Rust: LIBSVM data files
//! (`io::data_file`, whole and fed in pieces) and LIBSVM model files (`io::model_file`), from seeds written
//! by LIBSVM itself and by this crate, mutated byte-, token- and line-wise with the numbers that
//! break readers (huge counts, indices past i32, NaN, overflowing floats).
//!
//! Every input must be read or refused: no panic, an error that names its line, memory at most a
//! small multiple of the input's size plus a constant (a counting allocator measures the peak),
//! and a model that is read must survive checking, a write/read round trip and a prediction.
//!
//! `LARGEMARGIN_FUZZ_INPUTS` (default 10,000) and `LARGEMARGIN_FUZZ_SEED` (default 1) set the run;
//! `cargo test --release --test fuzz_readers -- --nocapture` prints its summary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use largemargin::data::{CsrMatrix, DenseView, Matrix};
use largemargin::io::data_file::{self, IndexBase, LibsvmData, LibsvmParser};
use largemargin::model::LibsvmModel;
use largemargin::Error;

/// The system allocator, counting the bytes held and their peak.
struct Counting;
static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let now = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes a reader may hold beyond the input: this many per input byte, plus a constant.
const BYTES_PER_INPUT_BYTE: usize = 40;
const CONSTANT_BYTES: usize = 1 << 20;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "0.5",
    "2147483646",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967297",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "100000000000",
    "1000000000000000000",
    "1e308",
    "1e309",
    "-1e309",
    "1e-320",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "+1",
    "1e",
    ".",
    "-",
    "",
    "0x10",
    "1_0",
];
const TOKENS: &[&str] = &[
    " ",
    "\n",
    "\t",
    ":",
    "#",
    "\r\n",
    "0:",
    "1:",
    ":1",
    "qid:",
    "SV\n",
    "nr_class ",
    "total_sv ",
    "rho ",
    "label ",
    "nr_sv ",
    "probA ",
    "probB ",
    "gamma ",
    "degree ",
    "coef0 ",
    "kernel_type ",
    "svm_type ",
    "precomputed",
    "rbf",
    "polynomial",
    "epsilon_svr",
    "c_svc",
    "\u{0}",
    "\u{ff}",
    "é",
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    let len = input.len();
    let at = rng.below(len + 1);
    match rng.below(11) {
        0 if len > 0 => input[rng.below(len)] ^= 1 << rng.below(8),
        1 if len > 0 => input[rng.below(len)] = *rng.pick(b" \n\t:#0123456789-+.eE"),
        2 => {
            let t = rng.pick(TOKENS).as_bytes().to_vec();
            input.splice(at..at, t);
        }
        3 => {
            let end = (at + 1 + rng.below(16)).min(len);
            input.drain(at.min(end)..end);
        }
        4 | 5 => {
            // a number-like token replaced by one of the numbers that break readers
            let is_num = |b: u8| b.is_ascii_alphanumeric() || b"+-.".contains(&b);
            let mut s = at.min(len.saturating_sub(1));
            while s < len && !is_num(input[s]) {
                s += 1;
            }
            let mut e = s;
            while e < len && is_num(input[e]) {
                e += 1;
            }
            let n = rng.pick(NUMBERS).as_bytes().to_vec();
            input.splice(s..e, n);
        }
        6 | 7 => {
            let mut lines: Vec<Vec<u8>> = input.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
            let i = rng.below(lines.len());
            match rng.below(4) {
                0 => {
                    let l = lines[i].clone();
                    lines.insert(i, l);
                }
                3 => {
                    // a line repeated: large inputs, to hold the reader to its memory bound
                    let l = lines[i].clone();
                    let times = 1 + rng.below(2000);
                    lines.splice(i..i, std::iter::repeat_n(l, times));
                }
                1 => {
                    lines.remove(i);
                }
                _ => {
                    let j = rng.below(lines.len());
                    lines.swap(i, j);
                }
            }
            *input = lines.join(&b'\n');
        }
        8 => input.truncate(at),
        9 => {
            let other = rng.pick(seeds);
            let s = rng.below(other.len());
            let e = (s + 1 + rng.below(64)).min(other.len());
            input.splice(at..at, other[s..e].iter().copied());
        }
        _ => {
            let t = rng.pick(NUMBERS).as_bytes().to_vec();
            input.splice(at..at, t);
        }
    }
}

/// Seeds: data files of both bases and model files of every kind, from LIBSVM and from us.
fn seeds() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let (mut data, mut models) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        if path.extension().is_some_and(|e| e == "model") {
            models.push(bytes);
        } else {
            data.push(bytes);
        }
    }
    data.push(b"1 1:0.5 2:1\n-1 3:2\n1 1:1 3:-1\n".to_vec());
    data.push(b"0 0:1 7:2\n1 1:1\n".to_vec());
    for kernel in ["linear", "polynomial\ndegree 2\ngamma 0.5\ncoef0 1", "sigmoid\ngamma 0.1\ncoef0 0"] {
        models.push(
            format!(
                "svm_type c_svc\nkernel_type {kernel}\nnr_class 2\ntotal_sv 3\nrho 0.25\nlabel 1 -1\nnr_sv 2 1\nSV\n\
                 0.5 1:1 4:-2\n0.5 2:1.5\n-1 1:-1 3:1e-3\n"
            )
            .into_bytes(),
        );
    }
    models.push(large_model(3, 1500, 40, IndexBase::One));
    models.push(large_model(2, 3000, 12, IndexBase::Zero));
    assert!(data.len() >= 3 && models.len() >= 9, "{} data and {} model seeds", data.len(), models.len());
    (data, models)
}

/// A valid model file with many support vectors (large inputs that the reader accepts).
fn large_model(classes: usize, n_sv: usize, features: usize, base: IndexBase) -> Vec<u8> {
    let mut rng = Rng(n_sv as u64 * 7919 + 1);
    let mut sv = CsrMatrix::new();
    for _ in 0..n_sv {
        let mut row = Vec::new();
        for j in 0..features {
            if rng.below(3) > 0 {
                row.push((j, (rng.below(2000) as f64 - 1000.0) / 997.0));
            }
        }
        sv.push_row(row).unwrap();
    }
    sv.set_cols(features).unwrap();
    let pairs = classes * (classes - 1) / 2;
    let per = n_sv / classes;
    let mut n_support = vec![per; classes];
    n_support[0] += n_sv - per * classes;
    let model = LibsvmModel {
        svm_type: largemargin::model::SvmType::CSvc,
        kernel: largemargin::KernelSpec::Rbf { gamma: 0.1 },
        labels: (0..classes as i64).map(|c| 3 - 2 * c).collect(),
        n_support,
        rho: (0..pairs).map(|p| p as f64 / 10.0).collect(),
        prob_a: Vec::new(),
        prob_b: Vec::new(),
        sv_coef: (0..(classes - 1) * n_sv).map(|i| ((i % 13) as f64 - 6.0) / 7.0).collect(),
        sv,
        sv_indices: Vec::new(),
    };
    let mut text = Vec::new();
    model.write(&mut text, base).unwrap();
    text
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    accepted: usize,
    refused: usize,
    largest_input: usize,
    /// The most bytes held per input byte, over inputs of at least `LARGE` bytes.
    worst_ratio: f64,
    slowest: Duration,
}

/// Inputs this long or longer are where the per-byte memory ratio is measured (below, the
/// readers' fixed buffers dominate).
const LARGE: usize = 16 << 10;

/// Runs `f` on `input`, checking that it neither panics nor holds more memory than allowed.
fn bounded<T>(input: &[u8], what: &str, tally: &mut Tally, f: impl FnOnce() -> T) -> T {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let out = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| panic!("{what} panicked on input {:?}", String::from_utf8_lossy(input)));
    tally.slowest = tally.slowest.max(started.elapsed());
    let used = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    let allowed = BYTES_PER_INPUT_BYTE * input.len() + CONSTANT_BYTES;
    assert!(
        used <= allowed,
        "{what} held {used} bytes for a {}-byte input: {:?}",
        input.len(),
        String::from_utf8_lossy(input)
    );
    tally.largest_input = tally.largest_input.max(input.len());
    if input.len() >= LARGE {
        tally.worst_ratio = tally.worst_ratio.max(used as f64 / input.len() as f64);
    }
    out
}

fn refused_with_a_line(e: &Error, input: &[u8], what: &str) {
    let lines = input.split(|&b| b == b'\n').count().max(1);
    match e.cause() {
        Error::Parse { line, .. } => assert!(*line >= 1 && *line <= lines, "{what}: line {line} of {lines}: {e}"),
        other => panic!("{what} refused without a line ({other}) on {:?}", String::from_utf8_lossy(input)),
    }
}

fn check_rows(d: &LibsvmData) {
    let x = d.x.view();
    assert_eq!(x.rows(), d.labels.len());
    assert!(d.labels.iter().all(|l| l.is_finite()));
    for i in 0..x.rows() {
        let row = x.row_entries(i);
        assert!(row.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(row.iter().all(|&(j, v)| j < x.cols() && v.is_finite()));
    }
}

fn fuzz_data(input: &[u8], rng: &mut Rng, tally: &mut Tally) {
    for base in [IndexBase::Zero, IndexBase::One, IndexBase::Auto] {
        let whole = bounded(input, "the data reader", tally, || data_file::read(input, base));
        match &whole {
            Ok(d) => {
                check_rows(d);
                tally.accepted += 1;
            }
            Err(e) => {
                refused_with_a_line(e, input, "the data reader");
                tally.refused += 1;
            }
        }
        // the same bytes fed in pieces read the same
        let pieces = bounded(input, "the data reader in pieces", tally, || {
            let mut p = LibsvmParser::new();
            let mut rest = input;
            while !rest.is_empty() {
                let n = 1 + rng.below(rest.len().min(64));
                p.feed(&rest[..n])?;
                rest = &rest[n..];
            }
            p.finish(base)
        });
        match (&whole, &pieces) {
            (Ok(a), Ok(b)) => assert!(a.labels == b.labels && a.x == b.x),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("whole {:?} and in pieces {:?} differ", a.as_ref().err(), b.as_ref().err()),
        }
    }
}

fn fuzz_model(input: &[u8], tally: &mut Tally) {
    for base in [IndexBase::Zero, IndexBase::One] {
        let read = bounded(input, "the model reader", tally, || LibsvmModel::read(input, base));
        let model = match read {
            Ok(m) => m,
            Err(e) => {
                refused_with_a_line(&e, input, "the model reader");
                tally.refused += 1;
                continue;
            }
        };
        tally.accepted += 1;
        model
            .check()
            .unwrap_or_else(|e| panic!("a model read from {:?} fails its check: {e}", String::from_utf8_lossy(input)));
        let mut text = Vec::new();
        model.write(&mut text, base).expect("a model read can be written");
        assert_eq!(LibsvmModel::read(&text[..], base).expect("and read back"), model);
        // a prediction: it may find the kernel overflowing (an error), never panic or blow up. A
        // precomputed model's query is as wide as its largest training index (up to 2^31 - 2),
        // so it is given sparse.
        let dense = [0.5f64; 4 * 3];
        let mut sparse = CsrMatrix::new();
        for r in 0..4 {
            sparse.push_row([(r % 3, 0.5), (3 + r, -1.0)]).unwrap();
        }
        let precomputed = model.kernel.is_precomputed();
        sparse
            .set_cols(if precomputed { model.sv_indices.iter().max().map_or(0, |m| m + 1).max(8) } else { 8 })
            .unwrap();
        let mut queries = vec![sparse.view()];
        if !precomputed {
            queries.push(Matrix::Dense64(DenseView::new(&dense, 4, 3).unwrap()));
        }
        for q in queries {
            match bounded(input, "prediction", tally, || model.predict(&q)) {
                Ok(p) => assert_eq!(p.len(), 4),
                Err(e) => assert!(matches!(e, Error::InvalidData(_)), "prediction failed with {e}"),
            }
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn readers_survive_mutated_files() {
    let inputs = env_number("LARGEMARGIN_FUZZ_INPUTS", 10_000) as usize;
    let seed = env_number("LARGEMARGIN_FUZZ_SEED", 1);
    let (data_seeds, model_seeds) = seeds();
    let all: Vec<Vec<u8>> = data_seeds.iter().chain(&model_seeds).cloned().collect();
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut data, mut model) = (Tally::default(), Tally::default());
    let started = Instant::now();
    for i in 0..inputs {
        let is_model = i % 2 == 1;
        let mut input = rng.pick(if is_model { &model_seeds } else { &data_seeds }).clone();
        for _ in 0..1 + rng.below(8) {
            mutate(&mut rng, &mut input, &all);
        }
        if is_model {
            model.inputs += 1;
            fuzz_model(&input, &mut model);
        } else {
            data.inputs += 1;
            fuzz_data(&input, &mut rng, &mut data);
        }
    }
    for (name, t) in [("data files", &data), ("model files", &model)] {
        println!(
            "fuzz seed {seed}: {name}: {} inputs (largest {} bytes), {} reads accepted, {} refused with their \
             line; at most {:.1} bytes held per input byte (inputs of {} KiB or more); slowest call {:.2} ms",
            t.inputs,
            t.largest_input,
            t.accepted,
            t.refused,
            t.worst_ratio,
            LARGE >> 10,
            t.slowest.as_secs_f64() * 1e3
        );
    }
    println!("fuzz seed {seed}: {inputs} inputs in {:.1} s", started.elapsed().as_secs_f64());
    assert!(data.accepted > 0 && data.refused > 0 && model.accepted > 0 && model.refused > 0);
}
