//! Lanthorn: a portal-culling renderer for brush-built worlds with clipmap terrain.
//!
//! Data flow (docs/ARCHITECTURE.md): `compile` / `import` / `scenes` → `level::Level` (one
//! loader, `load`) → `vis` / `terrain` → `render` → `app`. The CPU core (everything above
//! `render`) knows nothing of wgpu, winit or egui; only `render` and `app` do, and the test in
//! `layering` keeps it so.

#![warn(unreachable_pub)]

pub use lanthorn_compile as compile;
pub use lanthorn_compile::scenes;
pub use lanthorn_geom as geom;
pub use lanthorn_geom::rng;
pub use lanthorn_import as import;
pub use lanthorn_level as level;
pub use lanthorn_level::files;
pub use lanthorn_light as light;
pub use lanthorn_load as load;
pub use lanthorn_render as render;
pub use lanthorn_scene as scene;
pub use lanthorn_terrain as terrain;
pub use lanthorn_vis as vis;

pub mod app;

/// Where the shared real data lives (see `lanthorn_testdata::realdata_dir`).
#[cfg(any(test, feature = "test-hooks"))]
pub use lanthorn_testdata::realdata_dir;
