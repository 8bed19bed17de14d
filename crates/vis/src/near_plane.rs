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
        // A detail surface stands inside cells and bounds none: what the near plane shows
        // through it lies in cells the portals lead to.
        if surface.flags & lanthorn_level::surface_flags::DETAIL != 0 {
            return;
        }
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
            // Each piece on screen alone: pieces off either side would otherwise widen the
            // union (a convex hull) over the pixels between them, as around a doorway the eye
            // stands in.
            let piece = before_near(&self.view_proj, [a, b, c]).intersect(&Octagon::FULL);
            if !piece.is_empty() {
                self.octagon = self.octagon.union(&piece);
            }
            // An eye on the wall itself (a cell is located with a little slack): every ray
            // into the wall's back is in solid from the start. (A surface with no plane, a
            // curved one, has no back to say of.)
            let foot = self.camera.position - surface.normal * d;
            let planar = surface.normal != Vec3::ZERO;
            if planar && d.abs() < ON_WALL && over_triangle(foot, [a, b, c], surface.normal) {
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
    let mut n = clip_polygon(&a[..n], &mut b, |c| c.w - 1e-4);
    // Then to the screen's four sides, before projecting: a piece passing just before the eye
    // projects far off every side, and the octagon of those points would cover the screen
    // where the piece itself is a sliver.
    // (A hair past them, so the screen's edge pixels stay inside.)
    let sides: [fn(Vec4) -> f32; 4] = [
        |c| 1.001 * c.w + c.x,
        |c| 1.001 * c.w - c.x,
        |c| 1.001 * c.w + c.y,
        |c| 1.001 * c.w - c.y,
    ];
    for side in sides {
        n = clip_polygon(&b[..n], &mut a, side);
        b[..n].copy_from_slice(&a[..n]);
    }
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

    /// An eye 1.4 units before a wall, in the middle of a doorway through it (the opening 72
    /// units to each side and above, 64 below): every ray goes through the opening, so nothing
    /// is cut — the wall's triangles around it lie off the screen on every side, and their
    /// regions must not join into one over the screen (brute force over the pixels, and the
    /// cut region itself).
    #[test]
    fn a_doorway_the_eye_stands_in_cuts_nothing() {
        let cam = camera(Vec3::new(480.0, -225.4, 112.0), 90.0);
        let y = -224.0;
        // The wall y = -224 around the opening x 408..552, z 48..184, as four quads.
        let quad = |x0: f32, x1: f32, z0: f32, z1: f32| {
            let p = |x, z| Vec3::new(x, y, z);
            [
                [p(x0, z0), p(x1, z0), p(x1, z1)],
                [p(x0, z0), p(x1, z1), p(x0, z1)],
            ]
        };
        let pieces = [
            quad(0.0, 408.0, 0.0, 400.0),
            quad(552.0, 1000.0, 0.0, 400.0),
            quad(408.0, 552.0, 184.0, 400.0),
            quad(408.0, 552.0, 0.0, 48.0),
        ];
        let vp = cam.view_proj();
        let inv = vp.inverse();
        for i in 0..=32 {
            for j in 0..=18 {
                let ndc = Vec2::new(i as f32 / 16.0 - 1.0, j as f32 / 9.0 - 1.0);
                let q = inv.project_point3(ndc.extend(1.0));
                let through = (408.0..552.0).contains(&q.x) && (48.0..184.0).contains(&q.z);
                assert!(
                    q.y < y || through,
                    "{ndc}: the ray meets the wall before the near plane"
                );
            }
        }
        let mut cut = Octagon::EMPTY;
        for t in pieces.iter().flatten() {
            let piece = before_near(&vp, *t).intersect(&Octagon::FULL);
            if !piece.is_empty() {
                cut = cut.union(&piece);
            }
        }
        assert!(cut.is_empty(), "{cut:?}");
    }

    /// Does the segment `a`→`b` cross triangle `t` (Möller–Trumbore, both sides)?
    fn segment_hits(a: Vec3, b: Vec3, t: [Vec3; 3]) -> bool {
        let (d, e1, e2) = (b - a, t[1] - t[0], t[2] - t[0]);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-9 {
            return false;
        }
        let s = a - t[0];
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let w = e2.dot(q) / det;
        (0.0..=1.0).contains(&u) && v >= 0.0 && u + v <= 1.0 && (0.0..=1.0).contains(&w)
    }

    /// e1m1's default walk at the eyes where the cut was once the whole screen (a doorway's
    /// wall 1.4 units ahead, its pieces off every side; a corner 4 units away), and one before
    /// a wall: the cut region holds every pixel whose ray meets one of the level's faces before
    /// the near plane (brute force against every face nearby), and where no ray is cut it is
    /// empty.
    #[test]
    fn e1m1s_cut_regions_hold_exactly_the_cut_rays() {
        let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
        if !path.exists() {
            return lanthorn_testdata::missing_realdata(&path);
        }
        let level = lanthorn_load::load(&path).unwrap();
        let eyes = [
            (Vec3::new(480.0, -225.41052, 112.06988), 90.0, true),
            (Vec3::new(480.0, -96.51461, 102.666664), 90.0, true),
            (Vec3::new(553.8855, -25.990068, 47.00648), 30.0, true),
            // Beside the first doorway, 1.4 units before its wall: that wall is cut.
            (Vec3::new(396.0, -225.4, 112.0), 90.0, false),
        ];
        for (eye, yaw, clear) in eyes {
            let cam = camera(eye, yaw);
            let reach = near_reach(&cam);
            let cells = (0..level.cells.len() as u32).collect::<Vec<_>>();
            let cut = cut_wall_octagon(&level, &cam, cells, std::iter::empty());
            let near: Vec<[Vec3; 3]> = level
                .surfaces
                .iter()
                .filter(|s| s.vertices.iter().any(|v| v.position.distance(eye) < 400.0))
                .flat_map(|s| {
                    s.indices
                        .chunks_exact(3)
                        .map(move |t| [0, 1, 2].map(|k| s.vertices[t[k] as usize].position))
                })
                .collect();
            let inv = cam.view_proj().inverse();
            let mut cut_rays = 0;
            for i in 0..=64 {
                for j in 0..=36 {
                    let ndc = Vec2::new(i as f32 / 32.0 - 1.0, j as f32 / 18.0 - 1.0);
                    let q = inv.project_point3(ndc.extend(1.0));
                    assert!(q.distance(eye) <= reach * 1.001);
                    if near.iter().any(|t| segment_hits(eye, q, *t)) {
                        cut_rays += 1;
                        assert!(
                            cut.contains(ndc),
                            "{eye}: a cut ray at {ndc} outside {cut:?}"
                        );
                    }
                }
            }
            if clear {
                assert_eq!(cut_rays, 0, "{eye}");
                assert!(cut.is_empty(), "{eye}: {cut:?}");
            } else {
                assert!(cut_rays > 0, "{eye}: the wall ahead is cut");
            }
        }
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
