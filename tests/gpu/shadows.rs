//! The sun's shadow cascades: a pillar on flat terrain casts the shadow the analytic projection
//! of its box along the sunlight gives, to within two texels of the cascade the ground point
//! falls in, seen from a low camera (the near cascade) and a high one (the far cascade).

use glam::{DVec2, Vec3};
use lanthorn::geom::cascades::{fit_cascades, CascadeConfig};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::render::settings::FrameSettings;
use lanthorn::terrain::{ClipmapConfig, ClipmapTerrain, Heightmap};

use crate::support::gpu;
use crate::terrain::pixel_direction;

/// A 64² pillar 256 high standing on flat terrain at z = 0 in an open-air envelope, under a sun
/// 40° up.
const PILLAR_SCENE: &str = r#"Scene(
ops: [
    (brush: Box(min: (-2048, -2048, -64), max: (2048, 2048, 2048)), medium: Air),
    (brush: Box(min: (-32, -32, -64), max: (32, 32, 256)), medium: Solid),
],
entities: [
    [("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "30 -40 0")],
],
terrain: Some((heightmap: "flat:256", origin: (-4096, -4096, 0), horizontal_scale: 32, vertical_scale: 1)),
outdoor: [Box(min: (-2048, -2048, -64), max: (2048, 2048, 2048))],
)"#;

const PILLAR_MIN: Vec3 = Vec3::new(-32.0, -32.0, 0.0);
const PILLAR_MAX: Vec3 = Vec3::new(32.0, 32.0, 256.0);

/// Where a ray first enters the box, if it does (slab test).
fn ray_box(origin: Vec3, dir: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for k in 0..3 {
        let inv = 1.0 / dir[k];
        let (a, b) = ((min[k] - origin[k]) * inv, (max[k] - origin[k]) * inv);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}

/// The convex hull of `points` (counter-clockwise, monotone chain).
fn hull(mut points: Vec<DVec2>) -> Vec<DVec2> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    let mut out: Vec<DVec2> = Vec::new();
    for pass in 0..2 {
        let start = out.len();
        let iter: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in iter {
            while out.len() >= start + 2 && cross(out[out.len() - 2], out[out.len() - 1], p) <= 0.0
            {
                out.pop();
            }
            out.push(p);
        }
        out.pop();
    }
    out
}

/// Signed distance from `p` to the convex polygon `poly` (negative inside).
fn signed_distance(poly: &[DVec2], p: DVec2) -> f64 {
    let mut inside = true;
    let mut best = f64::INFINITY;
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        inside &= (b - a).perp_dot(p - a) >= 0.0;
        let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        best = best.min((a + (b - a) * t - p).length());
    }
    if inside {
        -best
    } else {
        best
    }
}

fn luma(p: &image::Rgba<u8>) -> f32 {
    0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32
}

#[test]
fn a_pillar_on_flat_terrain_casts_its_analytic_shadow() {
    let Some(gpu) = gpu() else { return };
    let scene = lanthorn::compile::scene::parse(PILLAR_SCENE).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let sun = lanthorn::light::entities::level_lights(&level)
        .sun
        .expect("the scene has a sun")
        .direction
        .normalize();
    assert!(sun.z < -0.5, "{sun}");
    // The pillar's top square projected along the sunlight onto z = 0, hulled with its foot.
    let shift = sun.truncate() * (PILLAR_MAX.z / -sun.z);
    let corners = [(-32.0, -32.0), (32.0, -32.0), (32.0, 32.0), (-32.0, 32.0)];
    let mut points: Vec<DVec2> = corners.iter().map(|&(x, y)| DVec2::new(x, y)).collect();
    points.extend(
        corners
            .iter()
            .map(|&(x, y)| DVec2::new(x, y) + shift.as_dvec2()),
    );
    let shadow = hull(points);
    let size = (480u32, 270u32);
    let centre = (shift * 0.5).extend(0.0);
    for (height, expect_cascade) in [(420.0f32, 0usize), (1500.0, 1)] {
        let spec = CameraSpec {
            position: centre + Vec3::new(0.0, -0.4 * height, height),
            yaw: 90.0,
            pitch: -68.0,
        };
        let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
        let cascades = fit_cascades(&cam, sun, &CascadeConfig::default());
        let frame = |shadows: bool| {
            let hm = Heightmap::flat(256).with_scales(32.0, 1.0);
            let cfg = ClipmapConfig::for_heightmap(&hm);
            let terrain = ClipmapTerrain::new(hm, cfg).unwrap();
            let settings = FrameSettings {
                shadows,
                ..Default::default()
            };
            lanthorn::app::capture::capture_with_terrain(
                gpu,
                &level,
                Some(terrain),
                spec,
                size,
                lanthorn::vis::CullMode::Portal,
                &settings,
                &Default::default(),
            )
            .0
        };
        let (lit, shaded) = (frame(false), frame(true));
        if std::env::var("SHADOW_DEBUG").is_ok() {
            shaded.save(format!("/tmp/sh/pillar_{height}.png")).unwrap();
        }
        let (mut certain, mut wrong, mut worst, mut in_shadow) = (0, 0, 0.0f64, 0);
        // Over every ground pixel: the analytic shadow's size, and how far a
        // disagreeing pixel lies from the outline (texels).
        let (mut analytic, mut outline_error) = (0usize, 0.0f64);
        let mut cascade_seen = [0usize; 2];
        for (x, y, p) in shaded.enumerate_pixels() {
            let d = pixel_direction(&cam, size, x, y);
            if d.z >= -0.05 || ray_box(cam.position, d, PILLAR_MIN, PILLAR_MAX).is_some() {
                continue; // the sky, the horizon's haze, the pillar itself
            }
            let g = cam.position + d * (-cam.position.z / d.z);
            // The cascade the shader picks: the near one where the point is well inside it.
            let near = cascades[0].project(g.as_dvec3());
            let margin = 1.0 - 4.0 / CascadeConfig::default().resolution as f64;
            let c = if near.x.abs() < margin && near.y.abs() < margin && near.z > 0.0 {
                0
            } else {
                1
            };
            cascade_seen[c] += 1;
            // The pixel's centre sees exactly `g`: two texels of its cascade.
            let tolerance = 2.0 * cascades[c].texel;
            let dist = signed_distance(&shadow, g.truncate().as_dvec2());
            // Lit ground is drawn the same with shadows on; shadow (fogged, at a distance, by
            // less) darker.
            let darkened = luma(p) < luma(lit.get_pixel(x, y)) - 2.0;
            in_shadow += darkened as usize;
            analytic += (dist < 0.0) as usize;
            if darkened != (dist < 0.0) {
                let error = dist.abs() / cascades[c].texel;
                outline_error = outline_error.max(error);
            }
            if dist.abs() > tolerance {
                certain += 1;
                if darkened != (dist < 0.0) {
                    wrong += 1;
                    worst = worst.max(dist.abs() / cascades[c].texel);
                }
            }
        }
        println!(
            "camera {height}: {certain} pixels away from the outline, {wrong} wrong (worst {worst:.1} texels in); {in_shadow} in shadow ({analytic} analytic), outline off by at most {outline_error:.2} texels; cascades {cascade_seen:?}, texels {:.2} / {:.2}",
            cascades[0].texel, cascades[1].texel
        );
        assert!(
            cascade_seen[expect_cascade] * 2 > cascade_seen.iter().sum::<usize>(),
            "{cascade_seen:?}"
        );
        assert!(in_shadow > 200 && certain > 10_000, "{in_shadow} {certain}");
        assert_eq!(wrong, 0, "{wrong} pixels disagree with the analytic shadow");
        let ratio = in_shadow as f64 / analytic as f64;
        assert!(
            (0.9..1.1).contains(&ratio),
            "shadow area {ratio} of the analytic one"
        );
    }
}
