//! Walls the near plane cuts. An eye closer to a wall than the near plane's corners (about 6
//! units at the default near distance and field of view) sees past it: the GPU clips the wall
//! away and the pixels behind show whatever lies beyond, through solid, where no portal leads.
//! The flow cannot reach those cells; the culler draws every cell in the frustum there, limited
//! to the screen region where a wall is cut (`cut_wall_octagon`).

use glam::{Mat4, Vec2, Vec3, Vec4};

use lanthorn_geom::octagon::{clip_polygon, MAX_CLIPPED};
use lanthorn_geom::{Camera, Octagon};
use lanthorn_level::Level;

/// How far from the eye the near plane's rectangle reaches (its corners).
pub fn near_reach(camera: &Camera) -> f32 {
    let tx = (camera.fov_x.to_radians() * 0.5).tan();
    let ty = (camera.fov_y() * 0.5).tan(); // fov_y is in radians
    camera.near * (1.0 + tx * tx + ty * ty).sqrt()
}

/// The screen region (NDC octagon, `Octagon::EMPTY` when none) where a surface of `cells`,
/// or of an object near the eye (`objects`: surfaces, translation), lies between the eye and
/// the near plane: the pixels whose wall the near plane cuts away.
pub fn cut_wall_octagon<'a>(
    level: &Level,
    camera: &Camera,
    cells: impl IntoIterator<Item = u32>,
    objects: impl IntoIterator<Item = (&'a [u32], Vec3)>,
) -> Octagon {
    let mut cut = Cut {
        camera,
        view_proj: camera.view_proj(),
        reach: near_reach(camera),
        octagon: Octagon::EMPTY,
        back_faces: None,
    };
    for c in cells {
        let Some(cell) = level.cells.get(c as usize) else {
            continue;
        };
        if cell.aabb.distance_to(camera.position) <= cut.reach {
            for &s in &cell.surfaces {
                cut.surface(level, s, Vec3::ZERO);
            }
        }
    }
    for (surfaces, origin) in objects {
        for &s in surfaces {
            cut.surface(level, s, origin);
        }
    }
    cut.octagon.intersect(&Octagon::FULL)
}

/// The cut region so far.
struct Cut<'a> {
    camera: &'a Camera,
    view_proj: Mat4,
    reach: f32,
    octagon: Octagon,
    back_faces: Option<bool>,
}

impl Cut<'_> {
    /// The level draws back faces as occluders (it has outdoor cells); looked up once.
    fn back_faces_hide(&mut self, level: &Level) -> bool {
        *self.back_faces.get_or_insert_with(|| {
            level
                .cells
                .iter()
                .any(|c| c.flags & lanthorn_level::cell_flags::OUTDOOR != 0)
        })
    }

    /// Adds where surface `s` (translated by `origin`) lies before the near plane.
    fn surface(&mut self, level: &Level, s: u32, origin: Vec3) {
        let Some(surface) = level.surfaces.get(s as usize) else {
            return;
        };
        let Some(v0) = surface.vertices.first() else {
            return;
        };
        let eye = self.camera.position - origin;
        let d = surface.normal.dot(eye - v0.position);
        // A face seen from behind hides nothing when cut (back faces are not drawn), except
        // in a level with outdoor cells, whose back faces stand for the unbuilt outside.
        if d > self.reach || (d < -ON_WALL && !self.back_faces_hide(level)) {
            return;
        }
        for t in surface.indices.chunks_exact(3) {
            let corner = |i: u32| {
                surface
                    .vertices
                    .get(i as usize)
                    .map(|v| v.position + origin)
            };
            let (Some(a), Some(b), Some(c)) = (corner(t[0]), corner(t[1]), corner(t[2])) else {
                continue;
            };
            self.octagon = self.octagon.union(&before_near(&self.view_proj, [a, b, c]));
            // An eye on the wall itself (a cell is located with a little slack): every ray
            // into the wall's back is in solid from the start.
            let foot = self.camera.position - surface.normal * d;
            if d.abs() < ON_WALL && over_triangle(foot, [a, b, c], surface.normal) {
                self.octagon = self
                    .octagon
                    .union(&behind_plane(self.camera, surface.normal));
            }
        }
    }
}

/// An eye nearer a wall's plane than this (or behind it) is on the wall.
const ON_WALL: f32 = 0.01;

/// The eye's foot point lies on the triangle (with `ON_WALL` to spare at its edges).
fn over_triangle(p: Vec3, t: [Vec3; 3], normal: Vec3) -> bool {
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let edge = b - a;
        normal.dot(edge.cross(p - a)) >= -ON_WALL * edge.length()
    })
}

/// The screen octagon of the rays that leave the eye toward the back of a plane through it.
fn behind_plane(camera: &Camera, normal: Vec3) -> Octagon {
    // A pixel's point on the near plane is affine in its NDC, so is the ray's side.
    let inv = camera.view_proj().inverse();
    let side = |ndc: Vec2| normal.dot(inv.project_point3(ndc.extend(1.0)) - camera.position);
    let corners = [
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
    ];
    let rect = corners.map(|c| Vec4::new(c.x, c.y, side(c), 1.0));
    // Keep where the ray goes behind (side <= 0), a hair past the line.
    let slack = 1e-3 * camera.near;
    let mut kept = [Vec4::ZERO; MAX_CLIPPED];
    let n = clip_polygon(&rect, &mut kept, |c| slack - c.z);
    Octagon::from_points(kept[..n].iter().map(|c| Vec2::new(c.x, c.y)))
}

/// The screen octagon of the part of a triangle between the eye and the near plane.
fn before_near(view_proj: &Mat4, triangle: [Vec3; 3]) -> Octagon {
    let clip = triangle.map(|c| *view_proj * c.extend(1.0));
    // Reverse-Z: nearer than the near plane where z > w; in front of the eye where w > 0 (a
    // small margin keeps the projection finite).
    let (mut a, mut b) = ([Vec4::ZERO; MAX_CLIPPED], [Vec4::ZERO; MAX_CLIPPED]);
    let n = clip_polygon(&clip, &mut a, |c| c.z - c.w);
    let n = clip_polygon(&a[..n], &mut b, |c| c.w - 1e-4);
    Octagon::from_points(b[..n].iter().map(|c| Vec2::new(c.x, c.y) / c.w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_geom::CameraSpec;

    fn camera(position: Vec3, yaw: f32) -> Camera {
        Camera::new(
            CameraSpec {
                position,
                yaw,
                pitch: 0.0,
            },
            16.0 / 9.0,
        )
    }

    /// A wall 2 units to the eye's right, looking along it: the near plane cuts it on the right
    /// of the screen only; 10 units away it is not cut at all. The cut region is checked
    /// against rays: a pixel is in it exactly when its ray meets the wall nearer than the near
    /// plane (brute force over a grid of pixels).
    #[test]
    fn cut_region_is_where_rays_meet_the_wall_before_the_near_plane() {
        // The wall: the plane y = -2 (to the right when looking along +x), facing +y.
        let wall = [
            Vec3::new(-50.0, -2.0, -50.0),
            Vec3::new(50.0, -2.0, -50.0),
            Vec3::new(50.0, -2.0, 50.0),
        ];
        let wall2 = [wall[0], wall[2], Vec3::new(-50.0, -2.0, 50.0)];
        let cam = camera(Vec3::ZERO, 0.0);
        let vp = cam.view_proj();
        let o = before_near(&vp, wall).union(&before_near(&vp, wall2));
        assert!(!o.is_empty());
        let inv = vp.inverse();
        for i in 0..=32 {
            for j in 0..=18 {
                let ndc = Vec2::new(i as f32 / 16.0 - 1.0, j as f32 / 9.0 - 1.0);
                // The pixel's point on the near plane (reverse-Z: depth 1).
                let q = inv.project_point3(ndc.extend(1.0));
                let hits_before_near = q.y < -2.0;
                let inside = o.intersect(&Octagon::FULL).contains(ndc);
                // Octagons bound: every ray that meets the wall first is inside; rays well
                // clear of the wall (0.1 units) are outside.
                if hits_before_near {
                    assert!(inside, "{ndc}: cut pixel outside the region");
                }
                if q.y > -1.9 {
                    assert!(!inside, "{ndc}: uncut pixel inside the region");
                }
            }
        }
        let far = camera(Vec3::new(0.0, 8.0, 0.0), 0.0);
        assert!(before_near(&far.view_proj(), wall)
            .intersect(&Octagon::FULL)
            .is_empty());
        assert!(near_reach(&cam) > 6.0 && near_reach(&cam) < 6.2);
    }

    /// An eye standing on a floor, looking level: every ray into the lower half of the screen
    /// goes into the floor at once; the upper half stays clear (rays checked one by one).
    #[test]
    fn eye_on_a_floor_cuts_the_lower_half() {
        let cam = camera(Vec3::ZERO, 30.0);
        let o = behind_plane(&cam, Vec3::Z);
        for i in 0..=20 {
            for j in 0..=20 {
                let ndc = Vec2::new(i as f32 / 10.0 - 1.0, j as f32 / 10.0 - 1.0);
                let down = cam.view_proj().inverse().project_point3(ndc.extend(1.0)).z < 0.0;
                if down {
                    assert!(o.contains(ndc), "{ndc}");
                } else if ndc.y > 0.01 {
                    assert!(!o.contains(ndc), "{ndc}");
                }
            }
        }
        assert!(over_triangle(
            Vec3::ZERO,
            [
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0)
            ],
            Vec3::Z
        ));
        assert!(!over_triangle(
            Vec3::new(3.0, 0.0, 0.0),
            [
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0)
            ],
            Vec3::Z
        ));
    }
}
