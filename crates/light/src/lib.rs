//! Light: the model a level's entities describe (`lights`, read once per level), the lightmap
//! baker (`bake`: direct, bounce, sky, the light grid), atlas packing, lamps and the light at a
//! point.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod atlas;
pub mod bake;
mod bounce;
mod bvh;
pub mod grid;
pub mod lights;
pub mod parallel;
pub mod point;
