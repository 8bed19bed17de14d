//! Lightmap baking and atlas packing.

pub mod atlas;
mod bvh;
pub mod entities;
pub mod point;
