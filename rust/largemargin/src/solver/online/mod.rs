//! The online kernel solvers, one example at a time over an expansion set kept in front of the
//! kernel cache (`expansion`): LaSVM (`lasvm`, with its selection strategies and oracle), the
//! Huller (`huller`) and the kernel perceptron family (`perceptron`).

pub mod expansion;
pub mod huller;
pub mod lasvm;
pub mod perceptron;
