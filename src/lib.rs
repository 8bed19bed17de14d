//! Lanthorn: a portal-culling renderer for brush-built worlds with clipmap terrain.
//!
//! Data flow (docs/ARCHITECTURE.md): `compile` / `import` / `scenes` → `level::Level` (one
//! loader, `load`) → `vis` / `terrain` → `render` → `app`. The CPU core (everything above
//! `render`) knows nothing of wgpu, winit or egui; only `render` and `app` do, and the test in
//! `layering` keeps it so.

#![warn(unreachable_pub)]

pub mod compile;
pub use lanthorn_level::files;
pub use lanthorn_geom as geom;
pub mod import;
pub use lanthorn_level as level;
pub mod light;
pub mod load;
pub use lanthorn_geom::rng;
pub mod scenes;
pub mod terrain;
pub mod vis;

pub mod app;
pub mod render;

#[cfg(test)]
mod layering;
#[cfg(test)]
mod testutil;

/// Where the shared real data lives (../shared/realdata relative to the crate), overridable
/// with `LANTHORN_REALDATA`: the tests' data, never a user's (their files come from their
/// arguments and a game's search path).
#[cfg(any(test, feature = "test-hooks"))]
pub fn realdata_dir() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("LANTHORN_REALDATA") {
        return p.into();
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata")
}
