//! GPU time per pass from timestamp queries, where the adapter grants them.

use super::gpu::Gpu;

pub const MAX_PASSES: u32 = 8;

pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f32,
    names: Vec<&'static str>,
}

impl GpuTimer {
    /// `None` when timestamps are not granted (or switched off).
    pub fn create(gpu: &Gpu) -> Option<GpuTimer> {
        if !gpu.features.timestamp_query {
            return None;
        }
        let count = MAX_PASSES * 2;
        let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let size = count as u64 * 8;
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp resolve"),
            size,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp readback"),
            size,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Some(GpuTimer {
            queries,
            resolve,
            readback,
            period_ns: gpu.queue.get_timestamp_period(),
            names: Vec::new(),
        })
    }

    /// Starts a frame: forgets last frame's passes.
    pub fn begin_frame(&mut self) {
        self.names.clear();
    }

    /// Timestamp writes for the next pass named `name` (None once MAX_PASSES are used).
    pub fn pass(&mut self, name: &'static str) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        let i = self.names.len() as u32;
        if i >= MAX_PASSES {
            return None;
        }
        self.names.push(name);
        Some(wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        })
    }

    /// Resolves this frame's queries; call before finishing the encoder.
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        let n = self.names.len() as u32 * 2;
        if n == 0 {
            return;
        }
        enc.resolve_query_set(&self.queries, 0..n, &self.resolve, 0);
        enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, n as u64 * 8);
    }

    /// Waits for the frame and returns milliseconds per pass.
    pub fn read(&self, gpu: &Gpu) -> Vec<(&'static str, f64)> {
        self.to_ms(&self.read_ticks(gpu))
    }

    /// Nanoseconds per tick (the queue's timestamp period).
    pub fn period_ns(&self) -> f64 {
        self.period_ns as f64
    }

    /// Milliseconds per pass of raw (name, begin, end) ticks.
    pub fn to_ms(&self, ticks: &[(&'static str, u64, u64)]) -> Vec<(&'static str, f64)> {
        ticks
            .iter()
            .map(|&(name, b, e)| (name, e.saturating_sub(b) as f64 * self.period_ns as f64 / 1e6))
            .collect()
    }

    /// Waits for the frame and returns each pass's raw begin and end ticks.
    pub fn read_ticks(&self, gpu: &Gpu) -> Vec<(&'static str, u64, u64)> {
        let n = self.names.len() as u64 * 2;
        if n == 0 {
            return Vec::new();
        }
        let slice = self.readback.slice(..n * 8);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        if gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .is_err()
        {
            return Vec::new();
        }
        let times: Vec<u64> = {
            let data = slice
                .get_mapped_range()
                .expect("timestamp buffer is mapped");
            bytemuck::pod_collect_to_vec(&data)
        };
        self.readback.unmap();
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| (*name, times[2 * i], times[2 * i + 1]))
            .collect()
    }
}
