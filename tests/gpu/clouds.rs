//! Quake 3's cloud layers (`level::Clouds`): a sky of two layers, a checkerboard that replaces
//! what is under it and scrolls half a repeat a second, and a dark red added over it, on a sky
//! cube around the eye. The oracle is ioquake3's `R_InitSkyTexCoords` written out
//! here as the game has it (its `p` for the meeting with the cloud sphere, unsimplified): at
//! every pixel away from a square's edge the checkerboard's square must be the one the game
//! puts there, at 0 s and at 1 s, and through the box's bottom face nothing is drawn (black).

use glam::{Vec2, Vec3, Vec4};

use crate::support::{capture, gpu, in_one_cell};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::{
    surface_flags, CloudBlend, CloudLayer, Clouds, Level, Material, Sky, Surface, Vertex,
};

const HEIGHT: f32 = 700.0;
const SCALE: Vec2 = Vec2::new(6.0, 4.0);
const SCROLL: Vec2 = Vec2::new(0.5, 0.0);

/// An 8 × 8 picture, white where both or neither coordinate is in its first half, else black.
fn checkerboard() -> Material {
    let texels = (0..64)
        .flat_map(|i| {
            let v = if ((i % 8) < 4) == ((i / 8) < 4) {
                255
            } else {
                0
            };
            [v, v, v, 255]
        })
        .collect();
    Material {
        name: "checker".into(),
        width: 8,
        height: 8,
        texels: Some(texels),
        color: [0.5; 3],
        ..Default::default()
    }
}

fn flat(name: &str, rgb: [u8; 3]) -> Material {
    Material {
        name: name.into(),
        width: 1,
        height: 1,
        texels: Some(vec![rgb[0], rgb[1], rgb[2], 255]),
        ..Default::default()
    }
}

/// A sky cube 600 units a side around the eye at the origin, its faces towards it.
fn sky_cube() -> Surface {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let at = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                (p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3]) = (300.0 * sign, a, b);
                Vertex {
                    position: Vec3::from(p),
                    ..Default::default()
                }
            };
            let first = vertices.len() as u32;
            vertices.extend([
                at(-300.0, -300.0),
                at(300.0, -300.0),
                at(300.0, 300.0),
                at(-300.0, 300.0),
            ]);
            // Both windings: whichever faces the eye is drawn.
            indices.extend([0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2].map(|k| first + k));
        }
    }
    Surface {
        vertices,
        indices,
        flags: surface_flags::SKY,
        ..Default::default()
    }
}

fn cloudy_level() -> Level {
    let mut level = Level::default();
    level.materials = vec![
        flat("sky", [90, 90, 90]),
        checkerboard(),
        flat("red", [90, 0, 0]),
    ];
    level.surfaces = vec![sky_cube()];
    let layer = |material, scroll, blend| CloudLayer {
        material,
        scale: if material == 1 { SCALE } else { Vec2::ONE },
        scroll,
        blend,
    };
    level.sky = Some(Sky {
        material: Some(0),
        clouds: Some(Clouds {
            height: HEIGHT,
            layers: vec![
                layer(1, SCROLL, CloudBlend::Replace),
                layer(2, Vec2::ZERO, CloudBlend::Add),
            ],
        }),
        ..Default::default()
    });
    in_one_cell(level)
}

/// What the game shows in direction `d` at `time`: `None` through the bottom face, else
/// whether the checkerboard is white there and how far from a square's edge (in repeats).
fn game_square(d: Vec3, time: f32) -> Option<(bool, f32)> {
    if -d.z > d.x.abs().max(d.y.abs()) {
        return None;
    }
    // R_InitSkyTexCoords: p = (−2·z·R + 2·√(z²R² + 2x²Rh + x²h² + 2y²Rh + y²h² + 2z²Rh +
    // z²h²)) / (2·|d|²), the point p·d + (0, 0, R) normalised, its acos to x and y.
    let (r, h) = (4096.0f32, HEIGHT);
    let root = d.z * d.z * r * r
        + 2.0 * d.x * d.x * r * h
        + d.x * d.x * h * h
        + 2.0 * d.y * d.y * r * h
        + d.y * d.y * h * h
        + 2.0 * d.z * d.z * r * h
        + d.z * d.z * h * h;
    let p = (-2.0 * d.z * r + 2.0 * root.sqrt()) / (2.0 * d.dot(d));
    let v = (d * p + Vec3::new(0.0, 0.0, r)).normalize();
    let st = Vec2::new(v.x.acos(), v.y.acos()) * SCALE + SCROLL * time;
    let f = st - st.floor();
    let edge = |c: f32| c.min((c - 0.5).abs()).min(1.0 - c);
    Some(((f.x < 0.5) == (f.y < 0.5), edge(f.x).min(edge(f.y))))
}

/// The unit direction from the eye through pixel (x, y)'s centre.
fn through_pixel(camera: &Camera, (x, y): (u32, u32), size: (u32, u32)) -> Vec3 {
    let ndc = Vec2::new(
        (x as f32 + 0.5) / size.0 as f32 * 2.0 - 1.0,
        1.0 - (y as f32 + 0.5) / size.1 as f32 * 2.0,
    );
    let far = camera.view_proj().inverse() * Vec4::new(ndc.x, ndc.y, 0.5, 1.0);
    (far.truncate() / far.w - camera.position).normalize()
}

#[test]
fn cloud_layers_lie_where_the_game_puts_them_and_scroll() {
    let Some(_) = gpu() else { return };
    let level = cloudy_level();
    lanthorn::level::validate::validate(&level).unwrap();
    let size = (160u32, 90u32);
    for (pitch, time) in [(40.0, 0.0), (40.0, 1.0), (-50.0, 0.0), (10.0, 1.5)] {
        let spec = CameraSpec {
            position: Vec3::ZERO,
            yaw: 20.0,
            pitch,
        };
        let settings = lanthorn::render::settings::FrameSettings {
            time,
            ..Default::default()
        };
        let img = capture(&level, spec, size, lanthorn::vis::CullMode::None, &settings);
        let camera = Camera::new(spec, size.0 as f32 / size.1 as f32);
        let (mut checked, mut wrong, mut bottom) = (0, Vec::new(), 0);
        for y in 0..size.1 {
            for x in 0..size.0 {
                let [r, g, b, _] = img.get_pixel(x, y).0;
                let d = through_pixel(&camera, (x, y), size);
                let verdict = match game_square(d, time) {
                    None if -d.z > d.x.abs().max(d.y.abs()) + 0.03 => {
                        bottom += 1;
                        r.max(g).max(b) < 12
                    }
                    Some((white, edge))
                        if edge > 0.06 && -d.z + 0.03 < d.x.abs().max(d.y.abs()) =>
                    {
                        // White under dark red, or black under it.
                        match white {
                            true => g > 150 && r >= g,
                            false => g < 60 && r > g + 30,
                        }
                    }
                    _ => continue,
                };
                checked += 1;
                if !verdict {
                    wrong.push((x, y, [r, g, b]));
                }
            }
        }
        assert!(checked > 4000, "pitch {pitch}: {checked} pixels checked");
        assert!(
            wrong.len() * 200 <= checked,
            "pitch {pitch}, {time} s: {} of {checked} pixels not as the game has them, first {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(5)]
        );
        if pitch < 0.0 {
            assert!(bottom > 500, "looking down sees the bottom face: {bottom}");
        }
    }
}
