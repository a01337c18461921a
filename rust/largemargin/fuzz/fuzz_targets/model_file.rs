//! libFuzzer target: a model file is read or refused with its line, never panics; a model read
//! survives its check, a write/read round trip and a prediction.
#![no_main]

use largemargin::data::{DenseView, Matrix};
use largemargin::io::data_file::IndexBase;
use largemargin::model::LibsvmModel;
use largemargin::Error;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    for base in [IndexBase::Zero, IndexBase::One] {
        match LibsvmModel::read(input, base) {
            Ok(model) => {
                model.check().expect("a model read passes its check");
                let mut text = Vec::new();
                model.write(&mut text, base).expect("a model read can be written");
                assert_eq!(LibsvmModel::read(&text[..], base).expect("and read back"), model);
                let width = if model.kernel.is_precomputed() { model.sv_indices.iter().max().map_or(0, |m| m + 1) } else { 3 };
                let dense = vec![0.5f64; 2 * width];
                let x = Matrix::Dense64(DenseView::new(&dense, 2, width).unwrap());
                if let Err(e) = model.predict(&x) {
                    assert!(matches!(e, Error::InvalidData(_)), "{e}");
                }
            }
            Err(Error::Parse { line, .. }) => assert!(line >= 1),
            Err(e) => panic!("refused without a line: {e}"),
        }
    }
});
