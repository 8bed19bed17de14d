//! Quake 3's curved patches drawn side by side: two patches sharing a curved border (the second
//! with its rows the other way round), tessellated by `import::q3::patch`, white and fullbright
//! over the black background, seen from five cameras. A pixel whose ray meets either patch
//! well inside a triangle (a CPU ray cast) must not show the background: no crack along the
//! seam, nor anywhere else.

use glam::Vec3;

use crate::support::{capture, gpu};
use crate::terrain::pixel_direction;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::import::q3::{patch::tessellate, Vertex as PatchVertex};
use lanthorn::level::{Cell, Level, Material, Surface, Vertex};

/// A control point of the bumpy surface over (x, y).
fn control(x: f32, y: f32) -> PatchVertex {
    PatchVertex {
        position: [x, y, 24.0 * (x / 40.0).sin() * (y / 50.0).cos()],
        st: [0.0; 2],
        lightmap_st: [0.0; 2],
        normal: [0.0, 0.0, 1.0],
        color: [255; 4],
    }
}

/// The two patches' triangles (both windings, so either side is drawn).
fn seam_level() -> (Level, Vec<[Vec3; 3]>) {
    // A over x 0..64, B over x 64..128; B's first column is A's last, in the other order.
    let a: Vec<PatchVertex> = (0..3)
        .flat_map(|r| (0..3).map(move |c| control(32.0 * c as f32, 40.0 * r as f32)))
        .collect();
    let b: Vec<PatchVertex> = (0..3)
        .flat_map(|r| (0..3).map(move |c| control(64.0 + 32.0 * c as f32, 80.0 - 40.0 * r as f32)))
        .collect();
    let mut level = Level::default();
    level.materials.push(Material {
        name: "white".into(),
        color: [1.0; 3],
        ..Default::default()
    });
    let mut triangles = Vec::new();
    for control in [a, b] {
        let (vertices, indices) = tessellate(&control, 3, 3, lanthorn::import::q3::PATCH_STEPS);
        let positions: Vec<Vec3> = vertices.iter().map(|v| Vec3::from(v.position)).collect();
        let both: Vec<u32> = indices
            .chunks_exact(3)
            .flat_map(|t| [t[0], t[1], t[2], t[0], t[2], t[1]])
            .collect();
        triangles.extend(
            indices
                .chunks_exact(3)
                .map(|t| [0, 1, 2].map(|k| positions[t[k] as usize])),
        );
        level.surfaces.push(Surface {
            vertices: positions
                .iter()
                .map(|&position| Vertex {
                    position,
                    ..Default::default()
                })
                .collect(),
            indices: both,
            ..Default::default()
        });
    }
    let mut cell = Cell {
        surfaces: vec![0, 1],
        ..Default::default()
    };
    cell.aabb = lanthorn::geom::Aabb::new(Vec3::splat(-1000.0), Vec3::splat(1000.0));
    level.cells.push(cell);
    (level, triangles)
}

/// Whether the ray meets a triangle at least `margin` (barycentric) inside its edges.
fn meets_well_inside(eye: Vec3, dir: Vec3, triangles: &[[Vec3; 3]], margin: f32) -> bool {
    triangles.iter().any(|&[p0, p1, p2]| {
        let (e1, e2) = (p1 - p0, p2 - p0);
        let h = dir.cross(e2);
        let det = e1.dot(h);
        if det.abs() < 1e-9 {
            return false;
        }
        let o = eye - p0;
        let u = o.dot(h) / det;
        let q = o.cross(e1);
        let v = dir.dot(q) / det;
        let t = e2.dot(q) / det;
        t > 0.0 && u > margin && v > margin && u + v < 1.0 - margin
    })
}

#[test]
fn neighbouring_patches_show_no_crack_at_five_cameras() {
    let Some(_) = gpu() else { return };
    let (level, triangles) = seam_level();
    let size = (320u32, 180u32);
    let cameras = [
        (Vec3::new(64.0, -60.0, 60.0), 90.0, -30.0),
        (Vec3::new(64.0, 40.0, 120.0), 0.0, -89.0),
        (Vec3::new(-40.0, 40.0, 10.0), 0.0, -5.0),
        (Vec3::new(150.0, 100.0, 40.0), 220.0, -25.0),
        (Vec3::new(64.0, 130.0, 5.0), 270.0, -2.0),
    ];
    let (mut covered, mut cracks) = (0, 0);
    for (position, yaw, pitch) in cameras {
        let spec = CameraSpec {
            position,
            yaw,
            pitch,
        };
        let settings = lanthorn::render::settings::FrameSettings::default();
        let img = capture(&level, spec, size, lanthorn::vis::CullMode::None, &settings);
        let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
        for y in 0..size.1 {
            for x in 0..size.0 {
                let dir = pixel_direction(&cam, size, x, y);
                if !meets_well_inside(position, dir, &triangles, 1e-3) {
                    continue;
                }
                covered += 1;
                let p = img.get_pixel(x, y).0;
                if p[0].max(p[1]).max(p[2]) < 16 {
                    cracks += 1;
                    eprintln!("crack at {x},{y} from {position} yaw {yaw} pitch {pitch}: {p:?}");
                }
            }
        }
    }
    eprintln!("{covered} pixels on the patches, {cracks} showing the background");
    assert!(covered > 20_000, "the cameras see the patches");
    assert_eq!(cracks, 0);
}
