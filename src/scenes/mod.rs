//! Levels generated in code: the built-in yard (with its mirror and teleporter variant) and
//! synthetic mazes for tests and benches.

pub mod builtin;
pub mod synthetic;
