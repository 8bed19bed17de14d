//! What the passes that draw the world's prepared draws again another way (the id pass, the
//! fragment counts, the wireframe) borrow of the world pass.

use super::*;

/// What the passes that draw the world's prepared draws again another way (ids, fragment
/// counts, the wireframe) take of it.
impl WorldPass {
    /// Unique to this world and its shader variant: a pass that made pipelines from
    /// `module()` makes them again when it changes.
    pub(crate) fn shading_stamp(&self) -> u64 {
        self.shading.stamp
    }

    /// The shader module of this variant and the world's pipeline layout (group 0).
    pub(crate) fn shader(&self) -> (&wgpu::ShaderModule, &wgpu::PipelineLayout) {
        (&self.shading.module, &self.shading.pipeline_layout)
    }

    /// The scene format the world draws into.
    pub(crate) fn color_format(&self) -> wgpu::TextureFormat {
        self.shading.color_format
    }

    /// Whether the module clips octagons with clip distances, and whether the device can.
    pub(crate) fn clip_distances(&self) -> (bool, bool) {
        (
            self.shading.clip_distances,
            self.shading.device_clip_distances,
        )
    }

    /// Binds group 0 (filtered as this frame, or with every octagon open: `open_octagons`)
    /// and the mesh.
    pub(crate) fn bind_mesh(&self, pass: &mut wgpu::RenderPass<'_>, open_octagons: bool) {
        let group = match open_octagons {
            true => &self.buffers.open_octagons.1,
            false => &self.shading.bind_groups[self.shading.linear_filtering as usize],
        };
        pass.set_bind_group(0, group, &[]);
        pass.set_vertex_buffer(0, self.buffers.vertex_buffer.slice(..));
        pass.set_index_buffer(
            self.buffers.index_buffer.slice(..),
            wgpu::IndexFormat::Uint32,
        );
    }

    /// This frame's draw list.
    pub(crate) fn draw_list(&self) -> &DrawList {
        self.draws.list()
    }

    /// Whether back faces hide what is behind them (levels with outdoor cells).
    pub(crate) fn back_faces_occlude(&self) -> bool {
        self.debug.back_faces_occlude
    }

    /// The mirrors' and teleporters' polygons as triangles.
    pub(super) fn portal_triangles(&self) -> &id_pass::PortalTriangles {
        &self.debug.portal_triangles
    }
}
