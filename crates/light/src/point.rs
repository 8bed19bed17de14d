//! The light at a point, Quake's `R_LightPoint` idea: straight down from the point to the first
//! world surface with a lightmap, and that lightmap there, each style slot weighed by its
//! style's brightness now. Moving objects are lit by it each frame until a light grid exists.

use glam::{Vec2, Vec3};

use lanthorn_level::{styles, Level, Surface};

/// How far down a point looks for a floor (units).
const MAX_DROP: f32 = 4096.0;

/// The light multiplier at `p` (linear RGB, as the world shader applies a lightmap: capped at
/// 1, then × `light_scale`, Quake's overbright 2), or `None` when no lit floor lies below.
pub fn light_below(
    level: &Level,
    p: Vec3,
    style_scales: &[f32; styles::MAX_STYLES],
    light_scale: f32,
) -> Option<[f32; 3]> {
    let hit = floor_below(level, p)?;
    let s = &level.surfaces[hit.surface as usize];
    let luxels = sample(level, s, hit.lightmap_uv, style_scales);
    Some(luxels.map(|v| v.min(1.0) * light_scale))
}

/// A surface hit straight below a point, and its lightmap coordinates there.
struct Hit {
    surface: u32,
    lightmap_uv: Vec2,
}

/// The nearest lit, upward-facing world surface straight below `p`.
fn floor_below(level: &Level, p: Vec3) -> Option<Hit> {
    let mut best: Option<(f32, Hit)> = None;
    for cell in &level.cells {
        let b = &cell.aabb;
        if p.x < b.min.x || p.x > b.max.x || p.y < b.min.y || p.y > b.max.y {
            continue;
        }
        if b.min.z > p.z || b.max.z < p.z - MAX_DROP {
            continue;
        }
        for &si in &cell.surfaces {
            let s = &level.surfaces[si as usize];
            if s.lightmap.is_none() || s.normal.z <= 0.0 {
                continue;
            }
            if let Some((drop, uv)) = drop_onto(s, p) {
                if drop <= MAX_DROP && best.as_ref().is_none_or(|(d, _)| drop < *d) {
                    best = Some((
                        drop,
                        Hit {
                            surface: si,
                            lightmap_uv: uv,
                        },
                    ));
                }
            }
        }
    }
    best.map(|(_, h)| h)
}

/// Where the vertical line down from `p` meets one of the surface's triangles: the drop and
/// the interpolated lightmap coordinates.
fn drop_onto(s: &Surface, p: Vec3) -> Option<(f32, Vec2)> {
    for t in s.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| s.vertices[i as usize]);
        // Barycentric coordinates of p projected onto the XY plane.
        let (pa, pb, pc) = (
            a.position.truncate(),
            b.position.truncate(),
            c.position.truncate(),
        );
        let area = (pb - pa).perp_dot(pc - pa);
        if area.abs() < 1e-9 {
            continue;
        }
        let q = p.truncate();
        let wb = (q - pa).perp_dot(pc - pa) / area;
        let wc = (pb - pa).perp_dot(q - pa) / area;
        let wa = 1.0 - wb - wc;
        if wa < -1e-4 || wb < -1e-4 || wc < -1e-4 {
            continue;
        }
        let z = wa * a.position.z + wb * b.position.z + wc * c.position.z;
        if z > p.z {
            continue;
        }
        let uv = a.lightmap_uv * wa + b.lightmap_uv * wb + c.lightmap_uv * wc;
        return Some((p.z - z, uv));
    }
    None
}

/// The surface's lightmap at `uv` (luxels from its rect's origin, luxel centres at +0.5),
/// bilinear, every style slot weighed; 0..1 per channel before the cap.
fn sample(
    level: &Level,
    s: &Surface,
    uv: Vec2,
    style_scales: &[f32; styles::MAX_STYLES],
) -> [f32; 3] {
    let (Some(rect), lm) = (s.lightmap, &level.lightmaps) else {
        return [1.0; 3];
    };
    let layer_bytes = lm.width as usize * lm.height as usize * 3;
    let texel = |layer: usize, x: i64, y: i64| -> Vec3 {
        let x = x.clamp(rect.x as i64, (rect.x + rect.width).max(1) as i64 - 1) as usize;
        let y = y.clamp(rect.y as i64, (rect.y + rect.height).max(1) as i64 - 1) as usize;
        let i = layer * layer_bytes + (y * lm.width as usize + x) * 3;
        match lm.texels.get(i..i + 3) {
            Some(t) => Vec3::new(t[0] as f32, t[1] as f32, t[2] as f32) / 255.0,
            None => Vec3::ZERO,
        }
    };
    let f = uv - Vec2::splat(0.5) + Vec2::new(rect.x as f32, rect.y as f32);
    let (x0, y0) = (f.x.floor(), f.y.floor());
    let (fx, fy) = (f.x - x0, f.y - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let mut sum = Vec3::ZERO;
    for (k, style) in s.styles.0.iter().enumerate() {
        if *style == styles::NO_STYLE {
            continue;
        }
        let bilinear = texel(k, x0, y0) * (1.0 - fx) * (1.0 - fy)
            + texel(k, x0 + 1, y0) * fx * (1.0 - fy)
            + texel(k, x0, y0 + 1) * (1.0 - fx) * fy
            + texel(k, x0 + 1, y0 + 1) * fx * fy;
        sum += bilinear * style_scales.get(*style as usize).copied().unwrap_or(1.0);
    }
    sum.to_array()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_geom::Aabb;
    use lanthorn_level::{Cell, LightStyles, LightmapRect, Lightmaps, Vertex};

    /// A floor quad at z = `z` over 0..64², its lightmap a 5×5 block whose luxel (i, j) has
    /// red = 10·i, green = 10·j, blue = 50, at rect (2, 3) of an 8×8 atlas.
    fn floor_level(z: f32) -> Level {
        let mut texels = vec![0u8; 8 * 8 * 3];
        for j in 0..5 {
            for i in 0..5 {
                let o = ((3 + j) * 8 + 2 + i) * 3;
                texels[o..o + 3].copy_from_slice(&[10 * i as u8, 10 * j as u8, 50]);
            }
        }
        let v = |x: f32, y: f32| Vertex {
            position: Vec3::new(x, y, z),
            uv: Vec2::ZERO,
            // 16 units a luxel, centres at +0.5.
            lightmap_uv: Vec2::new(x / 16.0 + 0.5, y / 16.0 + 0.5),
        };
        Level {
            cells: vec![Cell {
                aabb: Aabb::new(Vec3::new(0.0, 0.0, z), Vec3::new(64.0, 64.0, z + 128.0)),
                surfaces: vec![0],
                ..Default::default()
            }],
            surfaces: vec![Surface {
                vertices: vec![v(0.0, 0.0), v(64.0, 0.0), v(64.0, 64.0), v(0.0, 64.0)],
                indices: vec![0, 1, 2, 0, 2, 3],
                normal: Vec3::Z,
                lightmap: Some(LightmapRect {
                    x: 2,
                    y: 3,
                    width: 5,
                    height: 5,
                }),
                styles: LightStyles::default(),
                ..Default::default()
            }],
            lightmaps: Lightmaps {
                width: 8,
                height: 8,
                texels,
            },
            ..Default::default()
        }
    }

    /// Analytic: the lightmap is linear in x and y, so bilinear sampling gives red = 10·x/16,
    /// green = 10·y/16 (in bytes) wherever x, y lie between luxel centres.
    #[test]
    fn the_light_below_is_the_floors_lightmap_there() {
        let level = floor_level(8.0);
        let mut scales = [1.0; styles::MAX_STYLES];
        for (x, y) in [(8.0, 8.0), (20.0, 33.0), (40.5, 12.25), (50.0, 60.0)] {
            let l = light_below(&level, Vec3::new(x, y, 100.0), &scales, 1.0).unwrap();
            let want = [
                10.0 * x / 16.0 / 255.0,
                10.0 * y / 16.0 / 255.0,
                50.0 / 255.0,
            ];
            for k in 0..3 {
                assert!(
                    (l[k] - want[k]).abs() < 1e-4,
                    "({x}, {y}): {l:?} vs {want:?}"
                );
            }
        }
        // Style 0 at half brightness halves it; the overbright scale multiplies after.
        scales[0] = 0.5;
        let l = light_below(&level, Vec3::new(32.0, 32.0, 50.0), &scales, 2.0).unwrap();
        assert!((l[2] - 50.0 / 255.0).abs() < 1e-4, "{l:?}");
        // Nothing below a point under the floor, or beside it.
        assert!(light_below(&level, Vec3::new(32.0, 32.0, 4.0), &scales, 1.0).is_none());
        assert!(light_below(&level, Vec3::new(-5.0, 32.0, 50.0), &scales, 1.0).is_none());
    }

    /// Two floors below a point: the nearer one (the higher) lights it.
    #[test]
    fn the_nearest_floor_below_wins() {
        let mut level = floor_level(0.0);
        let upper = floor_level(40.0);
        level.cells.push(upper.cells[0].clone());
        level.cells[1].surfaces = vec![1];
        let mut s = upper.surfaces[0].clone();
        // The upper floor's luxels are the atlas's zeros: rect at the atlas origin, black.
        s.lightmap = Some(LightmapRect {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        });
        level.surfaces.push(s);
        let scales = [1.0; styles::MAX_STYLES];
        let above = light_below(&level, Vec3::new(32.0, 32.0, 90.0), &scales, 1.0).unwrap();
        assert_eq!(above, [0.0; 3]);
        let between = light_below(&level, Vec3::new(32.0, 32.0, 30.0), &scales, 1.0).unwrap();
        assert!(between[2] > 0.1);
    }
}
