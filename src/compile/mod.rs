//! The level compilers: Quake `.map` sources (`map`) and ordered-CSG scenes (`scene`) → `Level`.

pub mod map;
pub mod polyhedron;
pub mod scene;
pub mod surfaces;

pub use map::{compile, compile_map_text, compile_to_file, CompileError, CompileOptions, CompileStats};
