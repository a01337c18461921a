//! libFuzzer target: a data file is read or refused with its line, never panics, and reads the
//! same whole and in pieces.
#![no_main]

use largemargin::io::data_file::{self, IndexBase, LibsvmParser};
use largemargin::Error;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    for base in [IndexBase::Zero, IndexBase::One, IndexBase::Auto] {
        let whole = data_file::read(input, base);
        if let Err(e) = &whole {
            assert!(matches!(e, Error::Parse { line, .. } if *line >= 1), "{e}");
        }
        let mut p = LibsvmParser::new();
        let pieces = input.chunks(7).try_for_each(|c| p.feed(c)).and_then(|_| p.finish(base));
        match (&whole, &pieces) {
            (Ok(a), Ok(b)) => assert!(a.labels == b.labels && a.x == b.x),
            (Err(a), Err(b)) => assert_eq!(a, b),
            _ => panic!("whole and in pieces differ"),
        }
    }
});
