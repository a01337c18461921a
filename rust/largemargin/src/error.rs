//! The one error type of the core crate. Every failure a user can cause is a variant with a
//! message that names the problem; the bindings map variants to Python exception types.

use std::fmt;

/// Every way a call into the core crate can fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A parameter outside its domain (negative C, gamma, ...).
    InvalidParameter(String),
    /// Data that cannot be used (NaN, shape mismatch, empty, one class, ...).
    InvalidData(String),
    /// A malformed line in a LIBSVM/svmlight file or model file.
    Parse {
        /// The line the problem is on, counted from 1.
        line: usize,
        /// What is wrong with that line.
        message: String,
    },
    /// The caller asked the computation to stop (Ctrl-C).
    Interrupted,
    /// An operating-system I/O failure, as its message (kept as text so that `Error` stays
    /// `Clone` and `PartialEq`).
    Io(String),
    /// A kernel computed outside the engine (a plugin) failed or returned unusable values.
    Kernel(String),
    /// An error in reading or writing the named file.
    File {
        /// The file's path, as displayed.
        path: String,
        /// What went wrong in it; never itself a `File` error.
        error: Box<Error>,
    },
}

impl Error {
    /// This error, as met in the file at `path`.
    pub fn in_file(self, path: &std::path::Path) -> Error {
        match self {
            e @ Error::File { .. } => e,
            e => Error::File { path: path.display().to_string(), error: Box::new(e) },
        }
    }
    /// The error without the file it happened in.
    pub fn cause(&self) -> &Error {
        match self {
            Error::File { error, .. } => error.cause(),
            e => e,
        }
    }
}

/// The result of every fallible call in the core crate.
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
            Error::File { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}
