//! Levels generated in code or built into the program: the built-in yard and its mirror and
//! teleporter variant (scenes compiled from `assets/levels/builtin.ron` and
//! `assets/levels/portals.ron`), the embedded scene files (`embedded`), and synthetic mazes for
//! tests and benches.

pub mod builtin;
pub mod embedded;
pub mod synthetic;
