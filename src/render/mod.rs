//! Everything that touches wgpu.
