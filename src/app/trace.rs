//! `--trace FILE.json`: the frames as a Chrome trace (the JSON trace event format that
//! Perfetto and chrome://tracing load): CPU stages on one track, GPU passes on another.
//!
//! GPU timestamps (wgpu-profiler's, on the GPU's own clock, converted with the queue's
//! timestamp period) are anchored per frame by pairing the frame's first pass begin with the
//! CPU time of the frame's submit. The GPU cannot start before the submit and has finished by the end of
//! the readback, so a scope's true start lies within [submit, readback − the frame's GPU span]
//! of where it is drawn: each frame's `error_bound_us` (in its args) is that interval's length.

use std::time::Instant;

use crate::render::FrameStats;

/// Trace events of the frames so far.
#[derive(Clone, Debug)]
pub struct Trace {
    origin: Instant,
    events: Vec<serde_json::Value>,
}

const PID: u32 = 1;
const CPU_TRACK: u32 = 1;
const GPU_TRACK: u32 = 2;

/// Refuses, before any rendering, a trace path that is not `.json` or whose folder is missing.
pub fn check_path(path: &std::path::Path) -> anyhow::Result<()> {
    super::check_output_path(path, "json", "--trace")
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new()
    }
}

impl Trace {
    pub fn new() -> Trace {
        let name = |tid: u32, name: &str| {
            serde_json::json!({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid,
                "args": {"name": name}})
        };
        Trace {
            origin: Instant::now(),
            events: vec![name(CPU_TRACK, "CPU"), name(GPU_TRACK, "GPU")],
        }
    }

    fn micros(&self, t: Instant) -> f64 {
        t.saturating_duration_since(self.origin).as_secs_f64() * 1e6
    }

    fn complete(&mut self, name: &str, tid: u32, ts: f64, dur: f64, args: serde_json::Value) {
        self.events.push(serde_json::json!({
            "name": name, "cat": if tid == GPU_TRACK { "gpu" } else { "cpu" }, "ph": "X",
            "pid": PID, "tid": tid, "ts": ts, "dur": dur, "args": args,
        }));
    }

    /// Adds frame `frame`: its CPU stages, and its GPU passes anchored at its submit.
    pub fn frame(&mut self, frame: usize, stats: &FrameStats) {
        for s in &stats.cpu_spans {
            let ts = self.micros(s.start);
            let dur = (s.end - s.start).as_secs_f64() * 1e6;
            self.complete(
                s.name,
                CPU_TRACK,
                ts,
                dur,
                serde_json::json!({ "frame": frame }),
            );
        }
        let (Some(submitted), Some(read_back)) = (stats.submitted, stats.read_back) else {
            return;
        };
        let Some(first) = stats.gpu_scopes.iter().map(|t| t.1).reduce(f64::min) else {
            return;
        };
        let last = stats.gpu_scopes.iter().map(|t| t.2).fold(first, f64::max);
        let anchor = self.micros(submitted);
        let window = (read_back - submitted).as_secs_f64() * 1e6;
        let bound = (window - (last - first) * 1e6).max(0.0);
        for &(name, begin, end) in &stats.gpu_scopes {
            let args = serde_json::json!({
                "frame": frame, "gpu_begin_s": begin, "gpu_end_s": end, "error_bound_us": bound,
            });
            let ts = anchor + (begin - first) * 1e6;
            self.complete(name, GPU_TRACK, ts, (end - begin) * 1e6, args);
        }
    }

    /// Writes the trace (whole or not at all).
    pub fn write(&self, path: &std::path::Path) -> anyhow::Result<()> {
        let json = serde_json::json!({ "traceEvents": self.events, "displayTimeUnit": "ms" });
        let text = serde_json::to_string(&json)?;
        crate::files::write_atomically(path, text.as_bytes()).map_err(|e| {
            anyhow::anyhow!("{}: cannot write the trace: {}", path.display(), e.error)
        })?;
        eprintln!(
            "wrote the trace {} ({} events)",
            path.display(),
            self.events.len()
        );
        Ok(())
    }
}
