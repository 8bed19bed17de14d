//! The sun's shadow cascades against two oracles: a pillar on flat terrain casts the shadow the
//! analytic projection of its box along the sunlight gives, to within two texels of the cascade
//! the ground point falls in (a low camera sees the near cascade, a high one the far); and hills
//! shadow the ground where a ray march over the heightmap towards the sun says.

use glam::{DVec2, DVec3, Vec3};
use lanthorn::geom::cascades::{fit_cascades, CascadeConfig};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::render::settings::FrameSettings;
use lanthorn::terrain::{ClipmapConfig, ClipmapTerrain, Heightmap};

use crate::support::gpu;
use crate::terrain::pixel_direction;

/// A 64² pillar 256 high standing on flat terrain at z = 0 in an open-air envelope, under a sun
/// 40° up.
pub(crate) const PILLAR_SCENE: &str = r#"Scene(
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

pub(crate) const PILLAR_MIN: Vec3 = Vec3::new(-32.0, -32.0, 0.0);
pub(crate) const PILLAR_MAX: Vec3 = Vec3::new(32.0, 32.0, 256.0);

/// Where a ray first enters the box, if it does (slab test).
pub(crate) fn ray_box(origin: Vec3, dir: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
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

/// The level drawn from `spec` over flat terrain, with shadows off and on.
fn pillar_frames(
    gpu: &lanthorn::render::Gpu,
    level: &lanthorn::level::Level,
    spec: CameraSpec,
    size: (u32, u32),
) -> (image::RgbaImage, image::RgbaImage) {
    let frame = |shadows: bool| {
        let hm = Heightmap::flat(256).with_scales(32.0, 1.0);
        let cfg = ClipmapConfig::for_heightmap(&hm);
        let settings = FrameSettings {
            shadows,
            ..Default::default()
        };
        lanthorn::app::capture::capture_with_terrain(
            gpu,
            level,
            Some(ClipmapTerrain::new(hm, cfg).unwrap()),
            spec,
            size,
            lanthorn::vis::CullMode::Portal,
            &settings,
            &Default::default(),
        )
        .0
    };
    (frame(false), frame(true))
}

/// How a frame's ground pixels agree with an analytic shadow.
#[derive(Debug, Default)]
struct ShadowCount {
    /// Ground pixels more than two texels of their cascade from the outline, and of those the
    /// ones darkened where the ground is lit or the other way round.
    certain: usize,
    wrong: usize,
    /// Darkened pixels, and pixels the analytic shadow covers.
    in_shadow: usize,
    analytic: usize,
    /// The farthest a disagreeing pixel lies from the outline, in texels of its cascade.
    outline_error: f64,
    /// Ground pixels in the near and the far cascade.
    cascades: [usize; 2],
}

/// Compares `shaded` (shadows on) with `lit` (off) over the ground at z = 0 seen by `cam`
/// outside the pillar, against the convex shadow polygon `shadow`.
fn count_pillar_shadow(
    (lit, shaded): (&image::RgbaImage, &image::RgbaImage),
    cam: &Camera,
    cascades: &[lanthorn::geom::cascades::Cascade; 2],
    shadow: &[DVec2],
) -> ShadowCount {
    let size = shaded.dimensions();
    let mut n = ShadowCount::default();
    for (x, y, p) in shaded.enumerate_pixels() {
        let d = pixel_direction(cam, size, x, y);
        if d.z >= -0.05 || ray_box(cam.position, d, PILLAR_MIN, PILLAR_MAX).is_some() {
            continue; // the sky, the horizon's haze, the pillar itself
        }
        let g = cam.position + d * (-cam.position.z / d.z);
        // The cascade the shader picks: the near one where the point is well inside it.
        let near = cascades[0].project(g.as_dvec3());
        let margin = 1.0 - 4.0 / CascadeConfig::default().resolution as f64;
        let inside = near.x.abs() < margin && near.y.abs() < margin && near.z > 0.0;
        let c = usize::from(!inside);
        n.cascades[c] += 1;
        let dist = signed_distance(shadow, g.truncate().as_dvec2());
        // Lit ground is drawn the same with shadows on; shadow darker (by less in the haze).
        let darkened = luma(p) < luma(lit.get_pixel(x, y)) - 2.0;
        n.in_shadow += darkened as usize;
        n.analytic += (dist < 0.0) as usize;
        let disagree = darkened != (dist < 0.0);
        if disagree {
            n.outline_error = n.outline_error.max(dist.abs() / cascades[c].texel);
        }
        // The pixel's centre sees exactly `g`: two texels of its cascade.
        if dist.abs() > 2.0 * cascades[c].texel {
            n.certain += 1;
            n.wrong += disagree as usize;
        }
    }
    n
}

#[test]
fn a_pillar_on_flat_terrain_casts_its_analytic_shadow() {
    let Some(gpu) = gpu() else { return };
    let scene = lanthorn::compile::scene::parse(PILLAR_SCENE).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let sun = lanthorn::light::lights::level_lights(&level)
        .sun
        .expect("the scene has a sun")
        .direction
        .normalize();
    assert!(sun.z < -0.5, "{sun}");
    // The pillar's top square projected along the sunlight onto z = 0, hulled with its foot.
    let shift = sun.truncate().as_dvec2() * (PILLAR_MAX.z / -sun.z) as f64;
    let corners = [(-32.0, -32.0), (32.0, -32.0), (32.0, 32.0), (-32.0, 32.0)];
    let foot = corners.map(|(x, y)| DVec2::new(x, y));
    let shadow = hull(foot.iter().flat_map(|&p| [p, p + shift]).collect());
    let size = (480u32, 270u32);
    let centre = (shift * 0.5).as_vec2().extend(0.0);
    for (height, expect_cascade) in [(420.0f32, 0usize), (1500.0, 1)] {
        let spec = CameraSpec {
            position: centre + Vec3::new(0.0, -0.4 * height, height),
            yaw: 90.0,
            pitch: -68.0,
        };
        let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
        let cascades = fit_cascades(&cam, sun, &CascadeConfig::default());
        let (lit, shaded) = pillar_frames(gpu, &level, spec, size);
        let n = count_pillar_shadow((&lit, &shaded), &cam, &cascades, &shadow);
        println!(
            "camera {height}: {n:?}; texels {:.2} / {:.2}",
            cascades[0].texel, cascades[1].texel
        );
        assert!(n.cascades[expect_cascade] * 2 > n.cascades.iter().sum::<usize>());
        assert!(n.in_shadow > 200 && n.certain > 10_000, "{n:?}");
        assert_eq!(
            n.wrong, 0,
            "pixels disagree with the analytic shadow: {n:?}"
        );
        let ratio = n.in_shadow as f64 / n.analytic as f64;
        assert!(
            (0.9..1.1).contains(&ratio),
            "shadow area {ratio} of the analytic one"
        );
    }
}

/// A height grid sampled once from the heightmap (the oracle marches through it bilinearly).
struct Grid {
    origin: glam::DVec2,
    spacing: f64,
    n: usize,
    h: Vec<f32>,
}

impl Grid {
    /// Heights under `floor` (the flat water surface) read as `floor`.
    fn new(hm: &Heightmap, centre: glam::DVec2, half: f64, spacing: f64, floor: f32) -> Grid {
        let n = (2.0 * half / spacing) as usize + 1;
        let origin = centre - glam::DVec2::splat(half);
        let mut h = Vec::with_capacity(n * n);
        for j in 0..n {
            for i in 0..n {
                let z = hm.height_at(origin.x + i as f64 * spacing, origin.y + j as f64 * spacing);
                h.push(z.max(floor));
            }
        }
        Grid {
            origin,
            spacing,
            n,
            h,
        }
    }

    /// Bilinear height at (x, y); `None` off the grid.
    fn at(&self, x: f64, y: f64) -> Option<f32> {
        let u = (x - self.origin.x) / self.spacing;
        let v = (y - self.origin.y) / self.spacing;
        if u < 0.0 || v < 0.0 || u >= (self.n - 1) as f64 || v >= (self.n - 1) as f64 {
            return None;
        }
        let (i, j) = (u as usize, v as usize);
        let (fu, fv) = ((u - i as f64) as f32, (v - j as f64) as f32);
        let g = |a: usize, b: usize| self.h[b * self.n + a];
        let lo = g(i, j) + (g(i + 1, j) - g(i, j)) * fu;
        let hi = g(i, j + 1) + (g(i + 1, j + 1) - g(i, j + 1)) * fu;
        Some(lo + (hi - lo) * fv)
    }

    /// Where a ray from `eye` along `d` first goes under the ground (4-unit steps).
    fn ray_hit(&self, eye: DVec3, d: DVec3) -> Option<DVec3> {
        (1..3000).map(|k| eye + d * (k as f64 * 4.0)).find_map(|q| {
            let h = self.at(q.x, q.y)? as f64;
            (q.z < h).then_some(q)
        })
    }

    /// The ground's normal at `g` (central differences 8 units wide).
    fn normal(&self, g: DVec3) -> Option<DVec3> {
        let e = 8.0;
        let dx = self.at(g.x + e, g.y)? - self.at(g.x - e, g.y)?;
        let dy = self.at(g.x, g.y + e)? - self.at(g.x, g.y - e)?;
        Some(DVec3::new(-dx as f64 / (2.0 * e), -dy as f64 / (2.0 * e), 1.0).normalize())
    }

    /// Marches from `g` towards the sun (`toward`) until it is above `top`: `Some(true)`
    /// clearly blocked (somewhere more than `tol` under the ground), `Some(false)` clearly clear
    /// (everywhere above it by a margin growing from nothing at `g` to `tol`), `None` neither.
    fn sun_blocked(&self, g: DVec3, toward: DVec3, tol: f64, top: f64) -> Option<bool> {
        let (mut deepest, mut clear) = (f64::INFINITY, true);
        for k in 1..4000 {
            let s = k as f64 * 4.0;
            let q = g + toward * s;
            let Some(h) = self.at(q.x, q.y) else { break };
            let clearance = q.z - h as f64;
            deepest = deepest.min(clearance);
            clear &= clearance > (0.5 * s * toward.z).min(tol);
            if q.z > top {
                break;
            }
        }
        if deepest < -tol {
            Some(true)
        } else {
            clear.then_some(false)
        }
    }
}

/// The terrain shadows itself where the heightmap says: under a low sun, seen from above the
/// hills, every ground pixel that a ray march towards the sun finds clearly blocked (by more
/// than three texels of its cascade, which also covers the clipmap's coarser levels) is
/// darker with shadows on, and every one clearly clear is unchanged (at most 1 % of either
/// disagree: the march and the clipmap's mesh differ between samples).
#[test]
fn hills_shadow_the_valleys_the_heightmap_says() {
    use lanthorn::render::Renderer;
    use lanthorn::vis::VisibleSet;
    let Some(gpu) = gpu() else { return };
    let mut level = lanthorn::level::Level::default();
    level.entities.push(lanthorn::level::Entity {
        pairs: [
            ("classname", "worldspawn"),
            ("_sunlight", "200"),
            ("_sun_mangle", "20 -20 0"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    });
    let sun = lanthorn::light::lights::level_lights(&level)
        .sun
        .unwrap()
        .direction
        .normalize();
    let hm = Heightmap::procedural(1024, 5).with_scales(32.0, 1.0);
    let cfg = ClipmapConfig::for_heightmap(&hm);
    let shading = lanthorn::terrain::TerrainShading::for_heightmap(&hm, &cfg);
    let floor = if shading.flat_water {
        shading.sea_level
    } else {
        f32::NEG_INFINITY
    };
    let size = (320u32, 180u32);
    // Look at the highest of a coarse scan of the middle of the map: hills, not sea.
    let centre = (0..64)
        .map(|k| {
            glam::DVec2::new(
                8000.0 + (k % 8) as f64 * 2000.0,
                8000.0 + (k / 8) as f64 * 2000.0,
            )
        })
        .max_by(|a, b| hm.height_at(a.x, a.y).total_cmp(&hm.height_at(b.x, b.y)))
        .unwrap();
    let ground = hm.height_at(centre.x, centre.y);
    // Across the sunlight, onto the peak's slopes and the valleys beside it.
    let yaw: f32 = 290.0;
    let back = Vec3::new(yaw.to_radians().cos(), yaw.to_radians().sin(), 0.0) * -1200.0;
    let spec = CameraSpec {
        position: Vec3::new(centre.x as f32, centre.y as f32, ground + 900.0) + back,
        yaw,
        pitch: -35.0,
    };
    let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
    let grid = Grid::new(&hm, centre, 6000.0, 8.0, floor);
    let mut r = Renderer::new(gpu, &level, size);
    r.set_terrain(gpu, ClipmapTerrain::new(hm, cfg).unwrap());
    let mut frame = |shadows: bool| {
        let settings = FrameSettings {
            shadows,
            ..Default::default()
        };
        r.render(gpu, &cam, &VisibleSet::default(), &settings);
        r.read_color(gpu)
    };
    let (lit, shaded) = (frame(false), frame(true));
    let cascades = fit_cascades(&cam, sun, &CascadeConfig::default());
    let toward = -sun.as_dvec3();
    let eye = cam.position.as_dvec3();
    let (mut blocked, mut clear, mut wrong_blocked, mut wrong_clear) = (0, 0, 0, 0);
    for (x, y, p) in shaded.enumerate_pixels() {
        let d = pixel_direction(&cam, size, x, y).as_dvec3();
        let Some(g) = grid.ray_hit(eye, d) else {
            continue;
        };
        // Facing the sun, not seen at a grazing angle (where the hit is uncertain), and short
        // of where the shadows start fading out.
        let Some(n) = grid.normal(g) else { continue };
        let fading = (g - eye).length() > 0.85 * CascadeConfig::default().far as f64;
        if n.dot(toward) < 0.2 || n.dot(-d) < 0.3 || fading {
            continue;
        }
        let near = cascades[0].project(g);
        let c = usize::from(near.x.abs() >= 0.99 || near.y.abs() >= 0.99 || near.z <= 0.0);
        let tol = 3.0 * cascades[c].texel;
        let darker = luma(p) < luma(lit.get_pixel(x, y)) - 2.0;
        match grid.sun_blocked(g, toward, tol, ground as f64 + 2000.0) {
            Some(true) => {
                blocked += 1;
                wrong_blocked += usize::from(!darker);
            }
            Some(false) => {
                clear += 1;
                wrong_clear += usize::from(darker);
            }
            None => {}
        }
    }
    println!(
        "hills: {blocked} clearly blocked ({wrong_blocked} not darker), {clear} clearly clear ({wrong_clear} darker); texels {:.2} / {:.2}",
        cascades[0].texel, cascades[1].texel
    );
    assert!(blocked > 500 && clear > 2000, "{blocked} {clear}");
    assert!(
        wrong_blocked * 100 <= blocked && wrong_clear * 100 <= clear,
        "{wrong_blocked} of {blocked} blocked pixels lit, {wrong_clear} of {clear} clear ones shadowed"
    );
}

/// The pillar scene with a grey slab lying in the pillar's shadow and reaching out of it into
/// the sun (it slides away after 2 s; at 0 s it rests).
const SLAB_SCENE: &str = r#"Scene(
ops: [
    (brush: Box(min: (-2048, -2048, -64), max: (2048, 2048, 2048)), medium: Air),
    (brush: Box(min: (-32, -32, -64), max: (32, 32, 256)), medium: Solid),
],
objects: [(name: "slab", brushes: [(brush: Box(min: (92, 26, 16), max: (220, 154, 24)))],
    motion: Some(Path(points: [(0, 0, 0), (600, 0, 0)], speed: 100, wait: 2)))],
entities: [
    [("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "30 -40 0"), ("light", "20")],
],
terrain: Some((heightmap: "flat:256", origin: (-4096, -4096, 0), horizontal_scale: 32, vertical_scale: 1)),
outdoor: [Box(min: (-2048, -2048, -64), max: (2048, 2048, 2048))],
)"#;

/// A moving object takes the sun's shadow cascades per pixel, drawn earlier in the same frame
/// (`render::sun_cascades`): every pixel of the slab's top more than two texels of its
/// cascade from the pillar's analytic shadow outline on it is dark where a ray from it towards
/// the sun meets the pillar and bright where it does not, and with shadows off the grid's
/// coarse sun (64-unit points) draws no such outline. So in the scene under its terrain, and
/// in the same scene without one: a sunlit level gets its cascades all the same.
#[test]
fn a_moving_object_takes_the_pillars_shadow_per_pixel() {
    let terrain_line = SLAB_SCENE
        .lines()
        .find(|l| l.starts_with("terrain:"))
        .unwrap();
    let without_terrain = SLAB_SCENE.replace(terrain_line, "");
    for (name, text) in [
        ("under a terrain", SLAB_SCENE),
        ("without a terrain", &without_terrain),
    ] {
        println!("{name}:");
        if !slab_takes_the_pillars_shadow(text) {
            return;
        }
    }
}

/// The slab check in one version of the scene; false without a GPU.
fn slab_takes_the_pillars_shadow(text: &str) -> bool {
    let Some(gpu) = gpu() else { return false };
    let scene = lanthorn::compile::scene::parse(text).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let sun = lanthorn::light::lights::level_lights(&level)
        .sun
        .unwrap()
        .direction
        .normalize();
    let size = (480u32, 270u32);
    let spec = CameraSpec {
        position: Vec3::new(156.0, -250.0, 400.0),
        yaw: 90.0,
        pitch: -47.9,
    };
    let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
    let frame = |shadows: bool| {
        let terrain = level.terrain.as_ref().map(|_| {
            let hm = Heightmap::flat(256).with_scales(32.0, 1.0);
            let cfg = ClipmapConfig::for_heightmap(&hm);
            ClipmapTerrain::new(hm, cfg).unwrap()
        });
        let mut session = lanthorn::app::session::Session::new(
            gpu,
            &level,
            terrain,
            size,
            lanthorn::vis::CullMode::Portal,
        )
        .with(
            FrameSettings {
                shadows,
                ..Default::default()
            },
            Default::default(),
        );
        session.settle(gpu, &cam, 0.0);
        session.frame(gpu, &cam, 0.0);
        session.read_color(gpu)
    };
    let (off, on) = (frame(false), frame(true));
    let texel = fit_cascades(&cam, sun, &CascadeConfig::default())[0].texel as f32;
    let (slab_min, slab_max) = (Vec3::new(92.0, 26.0, 16.0), Vec3::new(220.0, 154.0, 24.0));
    let shadowed = |p: Vec3| ray_box(p, -sun, PILLAR_MIN, PILLAR_MAX).is_some();
    let (mut lit, mut dark) = (Vec::new(), Vec::new());
    let mut edges_off = 0;
    for (x, y, px) in on.enumerate_pixels() {
        let d = pixel_direction(&cam, size, x, y);
        let Some(t) = ray_box(cam.position, d, slab_min, slab_max) else {
            continue;
        };
        let p = cam.position + d * t;
        let blocked = ray_box(cam.position, d, PILLAR_MIN, PILLAR_MAX).is_some_and(|u| u < t);
        if (p.z - slab_max.z).abs() > 0.5 || blocked {
            continue; // a side face, or behind the pillar
        }
        let r = 2.0 * texel;
        let around = [Vec3::X * r, -Vec3::X * r, Vec3::Y * r, -Vec3::Y * r];
        let s = shadowed(p);
        if around.iter().any(|&o| shadowed(p + o) != s) {
            continue; // near the outline
        }
        let l = luma(px);
        if s {
            dark.push(l);
        } else {
            lit.push(l);
        }
        edges_off += usize::from((luma(off.get_pixel(x, y)) - l).abs() > 40.0 && !s);
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
    let (max_dark, min_lit) = (
        dark.iter().copied().fold(0.0, f32::max),
        lit.iter().copied().fold(255.0, f32::min),
    );
    println!(
        "slab: {} lit pixels (mean {:.1}, least {min_lit:.1}), {} in shadow (mean {:.1}, most {max_dark:.1}), texel {texel:.2}; lit pixels off by > 40 without cascades: {edges_off}",
        lit.len(),
        mean(&lit),
        dark.len(),
        mean(&dark)
    );
    assert!(
        lit.len() > 300 && dark.len() > 300,
        "{} lit, {} dark",
        lit.len(),
        dark.len()
    );
    assert!(
        min_lit > max_dark + 20.0,
        "lit {min_lit} vs shadowed {max_dark}"
    );
    true
}

/// The keep's outside camera with shadows, lit per vertex (the default) and per pixel (the
/// oracle: every term at every pixel). Lit per vertex the picture is the per-pixel one within
/// a small mean, and the keep's shadow on the hills — drawn per pixel on the pieces a brush's
/// shadow can fall on — darkens the same pixels: of those the per-pixel frame's shadow
/// darkens by more than 20 steps, the vertex-lit one darkens all but 0.5 % (4,712 of 4,712;
/// with every piece shadowed per vertex, 4,648: the keep's shadow edge follows the vertices).
#[test]
fn terrain_lit_per_vertex_keeps_the_picture_and_the_keeps_shadow() {
    use lanthorn::render::settings::TerrainLighting;
    let Some(gpu) = gpu() else { return };
    let spec = crate::support::KEEP_OUTSIDE;
    let size = (640, 360);
    let frame = |lighting, shadows| {
        let world = crate::support::keep_world(spec);
        let settings = FrameSettings {
            shadows,
            terrain_lighting: lighting,
            ..Default::default()
        };
        lanthorn::app::capture::capture_with_terrain(
            gpu,
            &world.level,
            world.terrain,
            spec,
            size,
            lanthorn::vis::CullMode::Portal,
            &settings,
            &Default::default(),
        )
        .0
    };
    let pixel_lit = frame(TerrainLighting::Pixel, true);
    let pixel_unshadowed = frame(TerrainLighting::Pixel, false);
    let vertex_lit = frame(TerrainLighting::Vertex, true);
    let vertex_unshadowed = frame(TerrainLighting::Vertex, false);
    let luma = |p: &image::Rgba<u8>| (p[0] as i32 + p[1] as i32 + p[2] as i32) / 3;
    let (mut sum, mut n) = (0.0f64, 0usize);
    for (a, b) in pixel_lit.pixels().zip(vertex_lit.pixels()) {
        sum += (0..3).map(|k| a[k].abs_diff(b[k]) as f64).sum::<f64>() / 3.0;
        n += 1;
    }
    let mean = sum / n as f64;
    let (mut shadow, mut kept) = (0usize, 0usize);
    for (((a, b), c), d) in pixel_lit
        .pixels()
        .zip(pixel_unshadowed.pixels())
        .zip(vertex_lit.pixels())
        .zip(vertex_unshadowed.pixels())
    {
        if luma(b) - luma(a) > 20 {
            shadow += 1;
            kept += (luma(d) - luma(c) > 10) as usize;
        }
    }
    eprintln!("vertex vs pixel lighting: mean {mean:.2} steps; shadow {shadow} pixels, {kept} darkened lit per vertex");
    assert!(shadow > 3_000, "only {shadow} pixels in the keep's shadow");
    assert!(
        mean < 2.0,
        "lit per vertex {mean:.2} steps from per pixel on average"
    );
    assert!(
        kept * 1000 >= shadow * 995,
        "{kept} of {shadow} shadow pixels kept"
    );
}

/// The lean lit-per-vertex stages (`vs_lit`/`fs_lit` and `vs_lit_shadowed`/`fs_lit_shadowed`,
/// handing on only what their fragment stage reads) draw what the full stages draw (`vs_main`
/// with `fs_vertex_lit` and `fs_vertex_lit_shadowed`): the keep from outside, with its shadow
/// on the terrain's per-pixel pieces, and without the shadows.
#[test]
fn lean_lit_stages_draw_what_the_full_stages_draw() {
    let Some(gpu) = gpu() else { return };
    let spec = crate::support::KEEP_OUTSIDE;
    let size = (640, 360);
    for shadows in [true, false] {
        let frame = |full: bool| {
            let world = crate::support::keep_world(spec);
            let settings = FrameSettings {
                shadows,
                ..Default::default()
            };
            let mut session = lanthorn::app::session::Session::new(
                gpu,
                &world.level,
                world.terrain,
                size,
                lanthorn::vis::CullMode::Portal,
            )
            .with(settings, Default::default());
            if full {
                let terrain = session
                    .renderer
                    .terrain
                    .as_mut()
                    .expect("the keep's terrain");
                terrain.draw.use_full_stages();
            }
            let cam = lanthorn::geom::Camera::new(spec, size.0 as f32 / size.1 as f32);
            session.settle(gpu, &cam, settings.time);
            let stats = session.frame(gpu, &cam, settings.time);
            assert!(stats.terrain.triangles > 0);
            session.read_color(gpu)
        };
        let (lean, full) = (frame(false), frame(true));
        let (mut worst, mut differ) = (0u8, 0usize);
        for (a, b) in lean.pixels().zip(full.pixels()) {
            let d = (0..3).map(|k| a[k].abs_diff(b[k])).max().unwrap_or(0);
            worst = worst.max(d);
            differ += (d > 0) as usize;
        }
        eprintln!("shadows {shadows}: lean vs full stages, {differ} pixels differ, worst {worst}");
        assert!(
            worst <= 1 && differ * 1000 <= lean.len() / 4,
            "{differ} pixels, worst {worst}"
        );
    }
}
