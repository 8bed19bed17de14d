//! Lightmap baking and atlas packing.

pub mod atlas;
pub mod bvh;
pub mod direct;
pub mod entities;
