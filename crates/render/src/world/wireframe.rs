//! The wireframe overlay: the world's prepared draws again as polygon-mode lines over the
//! frame, right after the world pass, each edge pulled towards the eye over its own face.

use super::draws::{batch_class_kind, ViewClass};
use super::pipelines::wire_pipeline;
use super::WorldPass;
use crate::gpu::Gpu;
use crate::pass::{Attachment, FrameInputs, Load, Pass, PassAttachments, Prepared, Scope};

/// The wireframe's pipelines (`ViewClass` order), made on first use for the world's shading
/// (again when its variant changes).
#[derive(Default)]
pub struct Wireframe {
    pipelines: Option<(u64, [wgpu::RenderPipeline; 3])>,
}

/// The wireframe over what `world` prepared this frame.
pub struct WireframePass<'a> {
    /// Its pipelines.
    pub wireframe: &'a mut Wireframe,
    /// The world pass, prepared this frame.
    pub world: &'a WorldPass,
}

impl Pass for WireframePass<'_> {
    fn scope(&self) -> Scope {
        Scope {
            name: "wireframe",
            prepare: "wireframe prepare",
            record: "wireframe record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::SceneColorGamma, Load::Keep),
            depth: Some((Attachment::FrameDepth, Load::Keep)),
        }
    }

    /// Skipped unless the wireframe is on and the device draws polygon-mode lines.
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        if !inputs.settings.wireframe || !self.world.can_draw_wireframe() {
            return Prepared::Skipped;
        }
        let stamp = self.world.shading_stamp();
        if self.wireframe.pipelines.as_ref().map(|p| p.0) != Some(stamp) {
            let (module, layout) = self.world.shader();
            let format = self.world.color_format();
            let pipelines = std::array::from_fn(|i| {
                wire_pipeline(&gpu.device, layout, module, format, ViewClass::ALL[i])
            });
            self.wireframe.pipelines = Some((stamp, pipelines));
        }
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some((_, pipelines)) = &self.wireframe.pipelines else {
            return;
        };
        self.world.bind_mesh(pass, false);
        for (batch, (first, count)) in self
            .world
            .draw_list()
            .batches_in_order(self.world.liquids_first())
        {
            if count > 0 {
                pass.set_pipeline(&pipelines[batch_class_kind(batch).0 as usize]);
                self.world.draw_batch(pass, first, count);
            }
        }
    }
}
