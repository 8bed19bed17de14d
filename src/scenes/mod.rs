//! Levels generated in code or built into the program: the built-in yard (a scene compiled from
//! `assets/levels/builtin.ron`, with its mirror and teleporter variant still built in code), the
//! embedded scene files (`embedded`), and synthetic mazes for tests and benches.

pub mod builtin;
pub mod embedded;
pub mod synthetic;
