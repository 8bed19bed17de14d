//! Levels generated in code or built into the program: the built-in yard and its mirror and
//! teleporter variant (scenes compiled from `assets/levels/builtin.ron` and
//! `assets/levels/portals.ron`), the embedded scene files (`embedded`), synthetic mazes for
//! tests and benches, and seeded Quake-style `.map` levels (`generated`).

pub mod builtin;
pub mod embedded;
pub mod generated;
pub mod synthetic;
