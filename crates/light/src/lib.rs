//! Lightmap baking and atlas packing.

#![warn(unreachable_pub)]

pub mod atlas;
mod bounce;
mod bvh;
pub mod entities;
pub mod grid;
pub mod lamps;
pub mod point;
