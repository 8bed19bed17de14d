//! Overdraw as the GPU counts it: the world pass's fragment-shader invocations (a pipeline
//! statistics query) over a frame, in the pass's own draw order and depth state. Divided by the
//! pixels some world fragment covers, it is the overdraw vis-check reports.

use super::gpu::Gpu;
use super::pass::{begin, Attachment, Pass, PassTarget};
use super::target::FrameTarget;

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
