//! Which pipeline draws each batch of the world's draws this frame, and drawing a batch.

use super::*;

impl WorldPass {
    /// The surface cache's bake passes this frame (see `Pass::offscreen`).
    pub(super) fn bake_passes(&self) -> Vec<Offscreen<'_>> {
        self.cache
            .atlas
            .as_ref()
            .map(|a| a.bake_passes())
            .unwrap_or_default()
    }

    /// Which camera surfaces go through `fs_main` this frame (`WorldPipelines::full_kinds`),
    /// making their pipelines on first use.
    pub(super) fn use_full_shading(&mut self, gpu: &Gpu, reflects: bool) {
        let tinted = self.debug.tinted;
        self.shading.camera.full_kinds = SurfaceKind::ALL.map(|kind| match kind {
            SurfaceKind::Fence => false,
            SurfaceKind::Liquid => tinted || reflects,
            SurfaceKind::Opaque | SurfaceKind::Sky => tinted,
        });
        if self.shading.camera.liquids_can_cover
            && !self.shading.camera.full_kinds[SurfaceKind::Liquid as usize]
        {
            self.shading.camera.covering_liquids.get_or_init(|| {
                pipelines::covering_liquid_pipeline(
                    &gpu.device,
                    self.color_layout(),
                    &self.shading.module,
                    self.shading.color_format,
                )
            });
        }
        for kind in SurfaceKind::ALL {
            if !self.shading.camera.full_kinds[kind as usize] {
                continue;
            }
            self.shading.camera.full[kind as usize].get_or_init(|| {
                pipelines::full_shading_pipeline(
                    &gpu.device,
                    self.color_layout(),
                    &self.shading.module,
                    self.shading.color_format,
                    kind,
                )
            });
        }
    }

    /// This frame's camera liquids cover what is under them: the level's can (no glow) and the
    /// frame neither tints nor reflects water (whose top blends over its reflection). They are
    /// then drawn unblended, writing depth.
    pub(crate) fn liquids_cover(&self) -> bool {
        self.covering_liquids().is_some()
    }

    /// This frame's covering liquids are drawn first (`draws::LIQUIDS_FIRST_ORDER`): cells
    /// under them may be drawn (`VisibleSet::nothing_under_liquids` false: the portal flow
    /// stops at them, other culling does not), and
    /// there a pool's floor is not shaded under its liquid. Otherwise they go last, and what
    /// stands in front of them is not shaded over them (e2m7's third intermission: 7.30 → 6.17
    /// ms).
    pub(crate) fn liquids_first(&self) -> bool {
        self.liquids_cover() && !self.draw_list().nothing_under_liquids
    }

    /// The level's liquids hide what is under them, in every frame (`liquids_can_cover`): the
    /// flow stops at the portals they cover, and the vis-check truth draws them as occluders.
    pub(crate) fn liquids_hide(&self) -> bool {
        self.shading.camera.liquids_can_cover
    }

    /// The camera liquids' pipeline where they cover this frame (see `liquids_cover`).
    fn covering_liquids(&self) -> Option<&wgpu::RenderPipeline> {
        let reflects_or_tints = self.shading.camera.full_kinds[SurfaceKind::Liquid as usize];
        (self.shading.camera.liquids_can_cover && !reflects_or_tints)
            .then(|| self.shading.camera.covering_liquids.get())
            .flatten()
    }

    /// The pipeline a colour batch other than the cached one draws with this frame.
    pub(super) fn batch_pipeline(&self, batch: usize) -> &wgpu::RenderPipeline {
        let (class, kind) = draws::batch_class_kind(batch);
        if class == draws::ViewClass::Camera && kind == SurfaceKind::Liquid {
            if let Some(p) = self.covering_liquids() {
                return p;
            }
        }
        let full = (class == draws::ViewClass::Camera
            && self.shading.camera.full_kinds[kind as usize])
            .then(|| self.shading.camera.full[kind as usize].get())
            .flatten();
        full.unwrap_or(&self.shading.pipelines[batch])
    }

    /// The atlas pipeline (`CacheAtlas::pipelines`) that draws cached `batch`: the magnified
    /// and two-level ones their own unless the frame's settings send them through the sampler.
    pub(super) fn cached_pipeline(&self, batch: usize) -> usize {
        match batch {
            MAGNIFIED_BATCH if self.debug.magnified_fetch => 1,
            TWO_LEVELS_BATCH if self.debug.two_level_blend => 2,
            _ => 0,
        }
    }

    /// Draws batch commands `first..first + count` with the pipeline set.
    pub(crate) fn draw_batch(&self, pass: &mut wgpu::RenderPass<'_>, first: u32, count: u32) {
        let stride = std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>() as u64;
        if self.use_indirect {
            pass.multi_draw_indexed_indirect(&self.buffers.indirect, first as u64 * stride, count);
            return;
        }
        let list = self.draws.list();
        for c in &list.commands[first as usize..(first + count) as usize] {
            pass.draw_indexed(
                c.first_index..c.first_index + c.index_count,
                0,
                c.first_instance..c.first_instance + 1,
            );
        }
    }
}
