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

/// A name that no value of an option takes: the error of every option's `FromStr` (kernel,
/// selection, loss, ...), naming the values it does take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the option is ("kernel", "loss", ...).
    pub what: &'static str,
    /// The name given, shortened when long (see `io::data_file::excerpt`).
    pub name: String,
    /// The names the option takes.
    pub expected: &'static [&'static str],
}

impl UnknownName {
    /// The error for `name`, given for the option `what` that takes `expected`.
    pub fn new(what: &'static str, name: &str, expected: &'static [&'static str]) -> Self {
        UnknownName { what, name: crate::io::data_file::excerpt(name), expected }
    }
    /// The names the option takes, as a message lists them: `'a' or 'b'`, `one of 'a', 'b', 'c'`.
    pub fn expected_text(&self) -> String {
        let quoted: Vec<String> = self.expected.iter().map(|n| format!("'{n}'")).collect();
        match quoted.as_slice() {
            [a, b] => format!("{a} or {b}"),
            _ => format!("one of {}", quoted.join(", ")),
        }
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} '{}': expected {}", self.what, self.name, self.expected_text())
    }
}

impl std::error::Error for UnknownName {}

impl From<UnknownName> for Error {
    fn from(e: UnknownName) -> Self {
        Error::InvalidParameter(e.to_string())
    }
}

/// Names the values of a fieldless option enum, in one place: `NAMES`, `name()`, `FromStr`
/// (also taking the aliases after `|`; an unknown name is an `UnknownName` error naming `NAMES`)
/// and `Display`. Written right after the enum:
///
/// ```ignore
/// option_names!(Clock, "clock", { Cost => "cost", Wall => "wall" });
/// ```
macro_rules! option_names {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        impl $ty {
            /// The names this option takes (`FromStr` also takes a few aliases).
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            /// Every value, in the order of `NAMES`.
            pub const ALL: &'static [Self] = &[$($ty::$variant),+];
            /// The name of this value, as `FromStr` reads it and `Display` writes it.
            pub fn name(&self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }
        impl std::str::FromStr for $ty {
            type Err = $crate::error::UnknownName;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                match s {
                    $($name $(| $alias)* => Ok($ty::$variant),)+
                    _ => Err($crate::error::UnknownName::new($what, s, Self::NAMES)),
                }
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use option_names;

#[cfg(test)]
mod tests {
    use crate::kernel::KernelKind;
    use crate::solver::sgd::loss::MarginLoss;
    use crate::solver::smo::Selection;

    #[test]
    fn option_names_read_back_and_unknown_ones_name_the_choices() {
        for k in KernelKind::ALL {
            assert_eq!(k.name().parse::<KernelKind>(), Ok(*k));
            assert_eq!(KernelKind::from_libsvm_name(k.libsvm_name()), Some(*k));
        }
        assert_eq!("polynomial".parse::<KernelKind>(), Ok(KernelKind::Poly));
        assert_eq!("log".parse::<MarginLoss>(), Ok(MarginLoss::Log));
        assert_eq!(MarginLoss::Log.to_string(), "log_loss");
        let e = "foo".parse::<MarginLoss>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown loss 'foo': expected one of 'hinge', 'squared_hinge', 'log_loss', 'modified_huber'"
        );
        let e = "x".repeat(100).parse::<Selection>().unwrap_err();
        assert!(e.to_string().ends_with("(100 bytes)': expected 'second_order' or 'first_order'"), "{e}");
    }
}
