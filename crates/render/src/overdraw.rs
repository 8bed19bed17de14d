//! Overdraw: fragments shaded by the world pass per pixel it covers, in the pass's own draw
//! order and depth state.
//!
//! Two counters. `OverdrawCounter` counts the fragments that pass the depth test when they are
//! drawn (a count pass with additive blending: `world::CountDraw`) — the
//! fragment shading of a GPU whose depth test runs before the shader, and the number vis-check
//! and bench report as `overdraw`. `FragmentCounter` reads the pipeline-statistics query of
//! fragment-shader invocations; on a software rasterizer it counts every rasterized fragment, depth-tested
//! away or not (four stacked walls count four a pixel in either order), so it is reported
//! beside it as `fragments_rasterized`, not as overdraw.

use super::gpu::Gpu;
use super::pass::{begin, Attachment, Load, Pass, PassAttachments, PassTarget};
use super::target::{read_texture_layers, FrameTarget};
use super::world::{CountDraw, CountTarget, OctagonClip, WorldPass};

/// Fragments counted over a frame and the pixels they covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragmentCount {
    /// Fragments counted, summed over every pixel.
    pub fragments: u64,
    /// Pixels with at least one counted fragment.
    pub covered: u64,
}

/// Counts, per pixel, the world fragments that pass the depth test when drawn (its own
/// submit: a measurement between frames, for bench and vis-check; the overdraw overlay counts
/// inside the frame: `world::FragmentCountPass`).
pub struct OverdrawCounter {
    target: CountTarget,
    draw: CountDraw,
}

impl OverdrawCounter {
    /// A counter for frames of `size` pixels, with its own count target and depth.
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> OverdrawCounter {
        OverdrawCounter {
            target: CountTarget::create(gpu, size),
            draw: CountDraw::new(gpu),
        }
    }

    /// The per-pixel counts of what `world` has prepared, drawn with octagon clipping `clip`,
    /// row-major; `None` for clip distances on an adapter without them.
    pub fn per_pixel(&self, gpu: &Gpu, world: &WorldPass, clip: OctagonClip) -> Option<Vec<u8>> {
        if clip == OctagonClip::Off {
            world.open_octagons(&gpu.queue);
        }
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let recorded = {
            let attachments = PassAttachments {
                color: (Attachment::FrameColor, Load::Clear),
                depth: Some((Attachment::FrameDepth, Load::Clear)),
            };
            let mut rp = begin(
                &mut enc,
                "world fragment count",
                &attachments,
                &self.target,
                None,
            );
            self.draw.record(world, &mut rp, clip)
        };
        gpu.queue.submit([enc.finish()]);
        recorded?;
        Some(read_counts(gpu, &self.target.count))
    }

    /// The frame's totals (see `per_pixel`).
    pub fn count(&self, gpu: &Gpu, world: &WorldPass, clip: OctagonClip) -> Option<FragmentCount> {
        Some(FragmentCount::of(&self.per_pixel(gpu, world, clip)?))
    }
}

/// A count texture's per-pixel counts, row-major.
pub fn read_counts(gpu: &Gpu, count: &wgpu::Texture) -> Vec<u8> {
    // Unorm bytes are the counts themselves (k/255 stored as k).
    read_texture_layers(gpu, count, 1, 1)
}

impl FragmentCount {
    /// The totals of per-pixel counts.
    pub fn of(pixels: &[u8]) -> FragmentCount {
        FragmentCount {
            fragments: pixels.iter().map(|&n| n as u64).sum(),
            covered: pixels.iter().filter(|&&n| n > 0).count() as u64,
        }
    }

    /// Fragments per covered pixel.
    pub fn overdraw(&self) -> f64 {
        self.fragments as f64 / self.covered.max(1) as f64
    }
}

/// Counts the fragment-shader invocations of one pass recording.
pub struct FragmentCounter {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

/// A frame target seen by a pass being counted: cleared to black, reverse-Z depth.
struct Counted<'a>(&'a FrameTarget);

impl PassTarget for Counted<'_> {
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView {
        match attachment {
            Attachment::FrameDepth | Attachment::IdDepth => &self.0.depth_view,
            Attachment::SceneColorGamma => &self.0.color_gamma_view,
            _ => &self.0.color_view,
        }
    }

    fn clear_color(&self, _: Attachment) -> wgpu::Color {
        wgpu::Color::BLACK
    }
}

impl FragmentCounter {
    /// `None` where the adapter has no pipeline statistics (or they were switched off).
    pub fn create(gpu: &Gpu) -> Option<FragmentCounter> {
        if !gpu.features.pipeline_statistics {
            return None;
        }
        let device = &gpu.device;
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 8,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(FragmentCounter {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("fragment invocations"),
                ty: wgpu::QueryType::PipelineStatistics(
                    wgpu::PipelineStatisticsTypes::FRAGMENT_SHADER_INVOCATIONS,
                ),
                count: 1,
            }),
            resolve: buffer(
                "fragment invocations resolve",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "fragment invocations readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
        })
    }

    /// Records the prepared `pass` into `target` (cleared first), submits, and returns how many
    /// times the fragment shader ran.
    pub fn count(&self, gpu: &Gpu, pass: &dyn Pass, target: &FrameTarget) -> u64 {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut rp = begin(
                &mut enc,
                "counted",
                &pass.attachments(),
                &Counted(target),
                None,
            );
            rp.begin_pipeline_statistics_query(&self.queries, 0);
            pass.record(&mut rp);
            rp.end_pipeline_statistics_query();
        }
        enc.resolve_query_set(&self.queries, 0..1, &self.resolve, 0);
        enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 8);
        gpu.queue.submit([enc.finish()]);
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        let value = match slice.get_mapped_range() {
            Ok(bytes) => u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8])),
            Err(_) => 0,
        };
        self.readback.unmap();
        value
    }
}
