//! GPU time per pass from timestamp queries, where the adapter grants them, through
//! wgpu-profiler: one pass query per render pass (the pass's own timestamp writes), resolved
//! with the frame, read back once the GPU has finished it.

use wgpu_profiler::{GpuProfiler, GpuProfilerQuery, GpuProfilerSettings};

use super::gpu::Gpu;

/// Passes timed in one frame at most (later passes go untimed).
pub const MAX_PASSES: usize = 24;

/// Each render pass's GPU time in a frame, from timestamp queries read back after the
/// frame's submit.
pub struct GpuTimer {
    profiler: GpuProfiler,
    /// This frame's open pass queries, closed by `resolve`.
    queries: Vec<GpuProfilerQuery>,
    names: Vec<&'static str>,
    period_ns: f32,
}

impl GpuTimer {
    /// `None` when timestamps are not granted (or switched off).
    pub fn create(gpu: &Gpu) -> Option<GpuTimer> {
        if !gpu.features.timestamp_query {
            return None;
        }
        let settings = GpuProfilerSettings {
            enable_timer_queries: true,
            // The passes carry their own debug labels.
            enable_debug_groups: false,
            max_num_pending_frames: 4,
        };
        let profiler = GpuProfiler::new(&gpu.device, settings)
            .map_err(|e| log::warn!("GPU pass timing is off: {e}"))
            .ok()?;
        Some(GpuTimer {
            profiler,
            queries: Vec::new(),
            names: Vec::new(),
            period_ns: gpu.queue.get_timestamp_period(),
        })
    }

    /// Starts a frame: forgets last frame's passes.
    pub fn begin_frame(&mut self) {
        self.names.clear();
        self.queries.clear();
    }

    /// Timestamp writes for the next pass named `name`, recorded into `enc` (None once
    /// MAX_PASSES are used).
    pub fn pass(
        &mut self,
        name: &'static str,
        enc: &mut wgpu::CommandEncoder,
    ) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        if self.queries.len() >= MAX_PASSES {
            return None;
        }
        self.names.push(name);
        self.queries.push(self.profiler.begin_pass_query(name, enc));
        self.queries.last()?.render_pass_timestamp_writes()
    }

    /// Closes this frame's queries and resolves them; call before finishing the encoder.
    pub fn resolve(&mut self, enc: &mut wgpu::CommandEncoder) {
        for query in self.queries.drain(..) {
            self.profiler.end_query(enc, query);
        }
        self.profiler.resolve_queries(enc);
    }

    /// After the frame's submit: waits for the GPU and returns each pass's begin and end on the
    /// GPU's clock, in seconds (the queue's timestamp period applied), in pass order.
    pub fn read(&mut self, gpu: &Gpu) -> Vec<(&'static str, f64, f64)> {
        if let Err(e) = self.profiler.end_frame() {
            log::warn!("GPU pass timing: {e}");
            return Vec::new();
        }
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        let Some(results) = self.profiler.process_finished_frame(self.period_ns) else {
            return Vec::new();
        };
        let names = &self.names;
        results
            .iter()
            .filter_map(|r| {
                let name = names.iter().copied().find(|n| *n == r.label)?;
                r.time.as_ref().map(|t| (name, t.start, t.end))
            })
            .collect()
    }

    /// Milliseconds per pass of `read`'s scopes.
    pub fn to_ms(scopes: &[(&'static str, f64, f64)]) -> Vec<(&'static str, f64)> {
        scopes.iter().map(|&(n, b, e)| (n, (e - b) * 1e3)).collect()
    }
}
