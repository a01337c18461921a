//! The one error type of the core crate. Every failure a user can cause is a variant with a
//! message that names the problem; the bindings map variants to Python exception types.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A parameter outside its domain (negative C, gamma, ...).
    InvalidParameter(String),
    /// Data that cannot be used (NaN, shape mismatch, empty, one class, ...).
    InvalidData(String),
    /// A malformed line in a LIBSVM/svmlight file or model file.
    Parse { line: usize, message: String },
    /// The caller asked the computation to stop (Ctrl-C).
    Interrupted,
    Io(String),
    /// A kernel computed outside the engine (a plugin) failed or returned unusable values.
    Kernel(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter(m) => write!(f, "invalid parameter: {m}"),
            Error::InvalidData(m) => write!(f, "invalid data: {m}"),
            Error::Parse { line, message } => write!(f, "line {line}: {message}"),
            Error::Interrupted => write!(f, "interrupted"),
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::Kernel(m) => write!(f, "kernel failed: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}
