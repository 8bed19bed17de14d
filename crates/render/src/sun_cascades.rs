//! The pass that draws the sun's shadow cascades (`render::shadow`): fitted to the frame's
//! camera, the world's casters and the terrain's drawn into each cascade's map, depth only, as
//! offscreen passes (`shadow cascade 0`, `shadow cascade 1`) before the scene passes that
//! sample them.

use super::gpu::Gpu;
use super::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, Prepared, Scope,
};
use super::shadow::{SunCaster, SunShadows, CASCADES};

/// The cascades and what casts into them besides the world, lent for one frame.
pub struct SunCascadesPass<'a> {
    /// The Renderer's cascades.
    pub sun: &'a mut SunShadows,
    /// The terrain, when there is one.
    pub terrain: Option<&'a mut dyn SunCaster>,
}

impl Pass for SunCascadesPass<'_> {
    fn scope(&self) -> Scope {
        Scope {
            name: "shadow cascades",
            prepare: "shadow prepare",
            record: "shadow record",
        }
    }

    /// None is drawn into (`Prepared::OffscreenOnly`).
    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Keep),
            depth: None,
        }
    }

    /// Fits the cascades to the camera and picks the casters of each.
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        self.sun.prepare(gpu, inputs.camera);
        if let Some(terrain) = &mut self.terrain {
            terrain.pick_casters(gpu, self.sun, inputs.camera, inputs.settings);
        }
        Prepared::OffscreenOnly
    }

    fn record(&self, _pass: &mut wgpu::RenderPass<'_>) {}

    /// One depth-only pass a cascade.
    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        const LABELS: [&str; CASCADES] = ["shadow cascade 0", "shadow cascade 1"];
        (0..CASCADES)
            .map(|i| Offscreen {
                label: LABELS[i],
                color: None,
                depth: Some(self.sun.map(i)),
                // Reverse-Z: cleared to 0, the farthest from the sun.
                clear: Some(wgpu::Color::BLACK),
            })
            .collect()
    }

    /// Cascade `index`: the world's casters, then the terrain's.
    fn record_offscreen(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        self.sun.record_world(index, pass);
        if let Some(terrain) = &self.terrain {
            terrain.record_casters(index, pass);
        }
    }
}
