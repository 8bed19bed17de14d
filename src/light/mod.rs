//! Lightmap baking and atlas packing.

pub mod atlas;
pub mod direct;
