//! Geometry shared by the compiler, the traverser and the renderer: planes, convex polygons,
//! boxes, the camera and the screen-space octagon; and `rng`, the small seeded generator the
//! level generator and the samplers of views share. Pure CPU code, no GPU types.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod rng;

pub mod aabb;
pub mod camera;
pub mod cascades;
pub mod half;
pub mod lamp;
pub mod octagon;
pub mod plane;
pub mod polygon;
pub mod sh;
pub mod tjunctions;
pub mod triangulate;

pub use aabb::Aabb;
pub use camera::{Camera, CameraSpec};
pub use lamp::Lamp;
pub use octagon::Octagon;
pub use plane::{DPlane, Plane};
pub use polygon::DPolygon;
pub use tjunctions::fix_tjunctions;
