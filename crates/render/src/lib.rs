//! Everything that touches wgpu. Every pass has the shape of `pass::Pass`: created with what its
//! level fixes, `prepare` (per-frame uploads from one `FrameInputs`), `record` (commands into a
//! render pass begun on the attachments it declares).

#![warn(unreachable_pub)]
#![warn(missing_docs)]

mod bindings;
pub mod bloom;
pub mod depth_bands;
pub mod fog;
pub mod frame;
pub mod gpu;
pub mod materials;
pub mod overdraw;
pub mod overlay;
pub mod pass;
pub mod present;
pub mod profiler;
pub mod renderdoc;
pub mod settings;
#[cfg(test)]
mod shader_layout;
pub mod shaders;
pub mod shadow;
pub mod skybox;
pub mod sun_cascades;
pub mod target;
pub mod terrain;
pub mod tonemap;
pub mod ui_cover;
pub mod ui_paint;
pub mod world;

pub use frame::{stage, FrameStats, Renderer};
pub use gpu::{FeatureSet, Gpu, GpuError, GpuOptions, OptionalFeature};
pub use target::FrameTarget;
pub use terrain::{Terrain, TerrainOverlay, TerrainStats};

/// Reverse-Z depth: cleared to 0, nearer is larger.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
