use super::*;
use lanthorn_level::Vertex;

/// A wall of `w × h` material texels at `origin` (texels) of a 64² material, one world unit
/// per texel, in the plane y = 0, style 0 (and a second slot of `style2` when given).
fn wall(origin: Vec2, w: f32, h: f32, style2: Option<u8>) -> CacheSurface {
    let styles = 0 | (style2.unwrap_or(NO_STYLE) as u32) << 8 | 0xffff_0000;
    CacheSurface {
        min: origin,
        max: origin + Vec2::new(w, h),
        size: Vec2::splat(64.0),
        texel_world: 1.0,
        texel_stretch: 1.0,
        plane: Vec4::new(0.0, 1.0, 0.0, 0.0),
        lm_base: Vec2::ZERO,
        lm_du: Vec2::new(4.0, 0.0),
        lm_dv: Vec2::new(0.0, 4.0),
        lm_min: Vec2::ZERO,
        lm_max: Vec2::splat(100.0),
        bounds_min: Vec3::new(origin.x, 0.0, origin.y),
        bounds_max: Vec3::new(origin.x + w, 0.0, origin.y + h),
        styles,
        layer: 0,
        flags: 0,
        unlit: 1.0,
        style_tints: [0x00ff_ffff; 4],
    }
}

fn plan_of(surfaces: Vec<CacheSurface>) -> SurfacePlan {
    SurfacePlan::of(surfaces.into_iter().map(Some).collect())
}

/// Every level of a region is whole (origin and size multiples of ALIGN cache texels, the
/// origin on the material's own mip grid) and holds the surface with PAD cache texels to spare.
#[test]
fn regions_are_aligned_and_padded_at_every_level() {
    let s = wall(Vec2::new(-37.25, 130.5), 93.0, 41.0, None);
    for level in 0..=MAX_LEVEL {
        let r = Region::around(&s, level);
        let step = 1i64 << level;
        for i in 0..2 {
            assert_eq!(r.origin[i] % (ALIGN as i64 * step), 0, "level {level}");
            assert_eq!(r.size[i] % ALIGN, 0, "level {level}");
        }
        let [lo, hi] = r.texel_corners();
        let pad = PAD as f64 * step as f64;
        assert!(lo[0] <= s.min.x as f64 - pad && lo[1] <= s.min.y as f64 - pad);
        assert!(hi[0] >= s.max.x as f64 + pad && hi[1] >= s.max.y as f64 + pad);
        // No more than one alignment unit of slack beyond the padding on each side.
        assert!(lo[0] > s.min.x as f64 - pad - (ALIGN as i64 * step) as f64);
        assert!(hi[1] < s.max.y as f64 + pad + (ALIGN as i64 * step) as f64);
    }
    // x: -37.25..55.75 padded to -45.25..63.75, out to multiples of 8: -48..64.
    assert_eq!(Region::around(&s, 0).size, [112, 64]);
}

/// The uv map sends the region's corners to its place in the atlas.
#[test]
fn the_uv_map_sends_region_corners_to_the_atlas_place() {
    let s = wall(Vec2::new(10.0, -20.0), 100.0, 60.0, None);
    for level in [0, 2] {
        let r = Region {
            atlas: [512, 1024],
            ..Region::around(&s, level)
        };
        let m = r.uv_map(&s);
        for (corner, atlas) in r.texel_corners().iter().zip([
            [512.0, 1024.0],
            [512.0 + r.size[0] as f64, 1024.0 + r.size[1] as f64],
        ]) {
            let uv = [corner[0] / 64.0, corner[1] / 64.0];
            for i in 0..2 {
                let got = uv[i] as f32 * m[i] + m[2 + i];
                let want = (atlas[i] / ATLAS_SIZE as f64) as f32;
                assert!((got - want).abs() < 1e-6, "level {level}: {got} vs {want}");
            }
        }
    }
}

#[test]
fn affine_fit_recovers_the_map_and_rejects_what_is_not_one() {
    let from = [
        Vec2::new(0.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(2.0, 1.0),
        Vec2::new(0.5, 1.5),
    ];
    let map =
        |p: Vec2| Vec2::new(3.0, -1.0) + p.x * Vec2::new(4.0, 0.5) + p.y * Vec2::new(-1.0, 8.0);
    let to: Vec<Vec2> = from.iter().map(|&p| map(p)).collect();
    let (base, du, dv) = affine_fit(&from, &to).expect("an affine map");
    assert!((base - Vec2::new(3.0, -1.0)).length() < 1e-5);
    assert!((du - Vec2::new(4.0, 0.5)).length() < 1e-5);
    assert!((dv - Vec2::new(-1.0, 8.0)).length() < 1e-5);
    let mut bent = to.clone();
    bent[3].x += 0.5;
    assert_eq!(affine_fit(&from, &bent), None);
    let line = [Vec2::ZERO, Vec2::ONE, Vec2::splat(2.0)];
    assert_eq!(affine_fit(&line, &line), None);
}

/// At distance d a texel of one world unit covers 640 / d pixels: level floor(log2(d / 640)).
#[test]
fn the_needed_level_follows_the_nearest_distance() {
    let mut plan = plan_of(vec![wall(Vec2::ZERO, 64.0, 64.0, None)]);
    let s = plan.surfaces[0].unwrap();
    for (y, level) in [
        (10.0, 0),
        (700.0, 0),
        (1300.0, 1),
        (2600.0, 2),
        (1e6, MAX_LEVEL),
    ] {
        // The eye straight in front of the wall's middle, y units away.
        plan.eye = Vec3::new(32.0, -y, 32.0);
        assert_eq!(plan.needed_level(&s), level, "at {y}");
    }
    // Off to the side: the distance to the wall's nearest edge counts.
    plan.eye = Vec3::new(64.0 + 2600.0, 0.0, 32.0);
    assert_eq!(plan.needed_level(&s), 2);
}

/// A baked surface is drawn from the cache while its styles and the level it needs hold; it
/// wants a new bake when a style's brightness changes or the eye comes closer. Surfaces with
/// an animated style are never cached while styles animate.
#[test]
fn states_follow_styles_and_distance() {
    let mut plan = plan_of(vec![
        wall(Vec2::ZERO, 64.0, 64.0, Some(40)),
        wall(Vec2::ZERO, 64.0, 64.0, Some(1)),
    ]);
    let far = Vec3::new(32.0, -1300.0, 32.0);
    let mut scales = [1.0; MAX_STYLES];
    let st = plan
        .states(far, 640.0, &scales, StyleMode::Animated)
        .to_vec();
    assert_eq!(st, [state::BAKE, state::DIRECT]);
    let bakes = plan.plan(&[], &[0]);
    assert_eq!(bakes.len(), 1);
    assert_eq!(bakes[0].region.level, 1);
    let st = plan
        .states(far, 640.0, &scales, StyleMode::Animated)
        .to_vec();
    // 1,300 units from a wall at level 1 a pixel spans about a texel: at most two.
    assert_eq!(st, [state::CACHED_TWO_LEVELS, state::DIRECT]);
    // Style 40 switched off: bake again.
    scales[40] = 0.0;
    assert_eq!(
        plan.states(far, 640.0, &scales, StyleMode::Animated)[0],
        state::BAKE
    );
    scales[40] = 1.0;
    assert_eq!(
        plan.states(far, 640.0, &scales, StyleMode::Animated)[0],
        state::CACHED_TWO_LEVELS
    );
    // Closer than the baked level serves: bake again, finer.
    let near = Vec3::new(32.0, -100.0, 32.0);
    assert_eq!(
        plan.states(near, 640.0, &scales, StyleMode::Animated)[0],
        state::BAKE
    );
    assert_eq!(plan.plan(&[], &[0])[0].region.level, 0);
    // 100 units in front of a 64-unit wall every texel covers over 5 pixels: magnified.
    assert_eq!(
        plan.states(near, 640.0, &scales, StyleMode::Animated)[0],
        state::CACHED_MAGNIFIED
    );
    // With every style held at "m", the flickering surface is cached too.
    let st = plan
        .states(near, 640.0, &scales, StyleMode::Normal)
        .to_vec();
    assert_eq!(st, [state::CACHED_MAGNIFIED, state::BAKE]);
}

/// A full atlas makes room by evicting what was drawn longest ago, never what this frame drew
/// from the cache; with nothing to evict, the bake goes one level coarser.
#[test]
fn a_full_atlas_evicts_the_least_recently_drawn() {
    // Each wall's level-0 region is 4048 texels square: one fills the atlas.
    let big = |x: f32| wall(Vec2::new(x, 0.0), 4030.0, 4030.0, None);
    let mut plan = plan_of(vec![big(0.0), big(0.0), big(0.0)]);
    let eye = Vec3::new(2000.0, -10.0, 2000.0);
    let scales = [1.0; MAX_STYLES];
    plan.states(eye, 640.0, &scales, StyleMode::Normal);
    assert_eq!(plan.plan(&[], &[0])[0].region.level, 0);
    // Next frame surface 0 is not drawn: surface 1 takes its place.
    plan.states(eye, 640.0, &scales, StyleMode::Normal);
    let b = plan.plan(&[], &[1]);
    assert_eq!(
        (b[0].surface, b[0].region.level, b[0].region.atlas),
        (1, 0, [0, 0])
    );
    assert_eq!(plan.region(0), None);
    // Surface 1 is drawn from the cache this frame: surface 2 cannot evict it and fits one
    // level coarser only if there is room beside it, which there is not: it goes without.
    plan.states(eye, 640.0, &scales, StyleMode::Normal);
    let b = plan.plan(&[1], &[2]);
    assert!(b.is_empty(), "{b:?}");
    assert!(plan.region(1).is_some());
    // A smaller surface beside a drawn one: placed one level coarser when level 0 is too big.
    let mut plan = plan_of(vec![big(0.0), wall(Vec2::ZERO, 2000.0, 8000.0, None)]);
    plan.states(eye, 640.0, &scales, StyleMode::Normal);
    plan.plan(&[], &[0]);
    plan.states(
        Vec3::new(1000.0, -10.0, 1000.0),
        640.0,
        &scales,
        StyleMode::Normal,
    );
    // Level 0 (8032 rows) fits not even an empty atlas: surface 0, not drawn this frame, is
    // evicted on the way, and level 1 (4016 rows) fits.
    let b = plan.plan(&[], &[1]);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].region.level, 1);
    assert_eq!(plan.region(0), None);
}

/// A wall wider than the atlas at the level it needs is baked at the finest level that fits,
/// and the next frame draws it from the cache instead of baking it again (Quake 3's large
/// faces under 512-texel pictures were baked every frame).
#[test]
fn a_surface_larger_than_the_atlas_is_baked_once_at_the_finest_level_that_fits() {
    let wide = ATLAS_SIZE as f32 * 1.5;
    let mut plan = plan_of(vec![wall(Vec2::ZERO, wide, 64.0, None)]);
    let eye = Vec3::new(wide / 2.0, -8.0, 32.0);
    let scales = [1.0; MAX_STYLES];
    assert_eq!(plan.needed_level(&plan.surfaces[0].unwrap()), 0);
    assert_eq!(
        plan.states(eye, 640.0, &scales, StyleMode::Normal)[0],
        state::BAKE
    );
    let bakes = plan.plan(&[], &[0]);
    assert_eq!(bakes.len(), 1);
    assert_eq!(
        bakes[0].region.level, 1,
        "the finest level whose region fits"
    );
    for _ in 0..3 {
        assert_eq!(
            plan.states(eye, 640.0, &scales, StyleMode::Normal)[0],
            state::CACHED
        );
        assert!(plan.plan(&[0], &[]).is_empty());
    }
}

/// A surface the full atlas holds only one level coarser than it asked for is drawn from
/// that region on the frames after, not baked again each frame (oa_dm5's first spawn point:
/// 2.5 million texels a frame, 10 ms); it is baked again once it needs a finer level than it
/// asked for.
#[test]
fn a_surface_placed_coarser_for_want_of_room_is_not_baked_again_until_it_needs_finer() {
    let scales = [1.0; MAX_STYLES];
    // Surface 0 fills most of the atlas and is drawn every frame; surface 1, 1500 units
    // away, needs level 1 and fits beside it only at level 2.
    let mut plan = plan_of(vec![
        wall(Vec2::ZERO, 4030.0, 3500.0, None),
        wall(Vec2::ZERO, 1500.0, 1500.0, None),
    ]);
    let (near, far) = (
        Vec3::new(700.0, -1.0, 700.0),
        Vec3::new(700.0, -1500.0, 700.0),
    );
    plan.states(near, 640.0, &scales, StyleMode::Normal);
    assert_eq!(plan.plan(&[], &[0])[0].region.level, 0);
    plan.states(far, 640.0, &scales, StyleMode::Normal);
    assert_eq!(plan.needed_level(&plan.surfaces[1].unwrap()), 1);
    let b = plan.plan(&[0], &[1]);
    assert_eq!((b[0].surface, b[0].region.level), (1, 2));
    // Drawn from the cache: surface 1's level-2 texels are magnified from there.
    let cached = [
        state::CACHED,
        state::CACHED_MAGNIFIED,
        state::CACHED_TWO_LEVELS,
    ];
    for _ in 0..3 {
        let states = plan.states(far, 640.0, &scales, StyleMode::Normal);
        assert!(
            cached.contains(&states[0]) && cached.contains(&states[1]),
            "{states:?}"
        );
        assert!(plan.plan(&[0, 1], &[]).is_empty());
    }
    assert_eq!(
        plan.states(near, 640.0, &scales, StyleMode::Normal)[1],
        state::BAKE
    );
}

/// The largest of |M d| over unit directions d, by brute force over 3,600 directions.
fn largest_stretch(m: [Vec2; 2]) -> f32 {
    (0..3600)
        .map(|k| {
            let a = k as f32 * std::f32::consts::TAU / 3600.0;
            (m[0] * a.cos() + m[1] * a.sin()).length()
        })
        .fold(0.0, f32::max)
}

/// A 3×2 quad surface in a tilted plane whose texel coordinates are `m` applied to its
/// in-plane coordinates along `a` and `b` (an orthonormal pair), of a 64² material.
fn sheared_quad(a: Vec3, b: Vec3, m: [Vec2; 2]) -> lanthorn_level::Surface {
    let corners = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (0.0, 2.0)];
    let origin = Vec3::new(5.0, -7.0, 11.0);
    lanthorn_level::Surface {
        vertices: corners
            .iter()
            .map(|&(x, y)| Vertex {
                position: origin + a * x + b * y,
                uv: (m[0] * x + m[1] * y) / 64.0,
                lightmap_uv: Vec2::ZERO,
            })
            .collect(),
        indices: vec![0, 1, 2, 0, 2, 3],
        normal: a.cross(b),
        ..Default::default()
    }
}

/// `texel_stretch` is the most texels a unit step along the surface crosses, in any
/// direction (brute force over directions), for sheared and rotated maps in tilted planes.
#[test]
fn texel_stretch_is_the_most_texels_a_unit_step_crosses() {
    let mut rng = lanthorn_geom::rng::XorShift::seeded(7);
    let mut r = || rng.range_f64(-1.0, 1.0) as f32;
    for _ in 0..200 {
        let a = Vec3::new(r(), r(), r()).normalize();
        let b = a.cross(Vec3::new(r(), r(), r())).normalize();
        let m = [
            Vec2::new(4.0 * r(), 4.0 * r()),
            Vec2::new(4.0 * r(), 4.0 * r()),
        ];
        if m[0].perp_dot(m[1]).abs() < 0.1 {
            continue;
        }
        let got = texel_stretch(&sheared_quad(a, b, m), Vec2::splat(64.0)).unwrap();
        let want = largest_stretch(m);
        assert!((got - want).abs() <= 1e-3 * want, "{got} against {want}");
    }
}

/// Texels a pixel spans along the frame's x and y at pixel (x, y) of a camera at `eye` with
/// basis `frame` (forward, right, up) and focal length `f` pixels, on the plane `plane`, whose
/// texel coordinates are `texel(p)`: central differences of the ray's hit point.
fn texels_per_pixel(
    eye: Vec3,
    frame: [Vec3; 3],
    f: f32,
    plane: Vec4,
    texel: impl Fn(Vec3) -> Vec2,
    (x, y): (f32, f32),
) -> f32 {
    let hit = |x: f32, y: f32| {
        let d = frame[0] + frame[1] * (x / f) + frame[2] * (y / f);
        let t = (plane.w - plane.xyz().dot(eye)) / plane.xyz().dot(d);
        texel(eye + d * t)
    };
    let dx = hit(x + 0.5, y) - hit(x - 0.5, y);
    let dy = hit(x, y + 0.5) - hit(x, y - 0.5);
    dx.length().max(dy.length())
}

/// A wall in y = 0 of random size seen from a random eye in front of it: the surface, its map
/// from world to texels at a random level, its size (x, z) and the eye.
struct RandomWall {
    surface: CacheSurface,
    texel: Box<dyn Fn(Vec3) -> Vec2>,
    level: u32,
    size: (f32, f32),
    eye: Vec3,
}

impl RandomWall {
    fn new(r: &mut impl FnMut(f64, f64) -> f32) -> RandomWall {
        // `m`: texels a unit along x and z (sheared).
        let (w, h) = (r(8.0, 512.0), r(8.0, 256.0));
        let m = [
            Vec2::new(r(0.2, 4.0), r(-1.0, 1.0)),
            Vec2::new(r(-1.0, 1.0), r(0.2, 4.0)),
        ];
        let level = r(0.0, 3.99) as u32;
        let mut surface = wall(Vec2::ZERO, w, h, None);
        surface.texel_stretch = largest_stretch(m);
        let eye = Vec3::new(r(-300.0, 800.0), r(-900.0, -0.5), r(-200.0, 500.0));
        let texel = move |p: Vec3| (m[0] * p.x + m[1] * p.z) / (1u32 << level) as f32;
        RandomWall {
            surface,
            texel: Box::new(texel),
            level,
            size: (w, h),
            eye,
        }
    }

    /// A random point of the wall.
    fn point(&self, r: &mut impl FnMut(f64, f64) -> f32) -> Vec3 {
        Vec3::new(r(0.0, self.size.0 as f64), 0.0, r(0.0, self.size.1 as f64))
    }

    /// A camera's axes (forward, right, up) looking from the eye towards `p`, turned a little.
    fn axes_towards(&self, p: Vec3, r: &mut impl FnMut(f64, f64) -> f32) -> [Vec3; 3] {
        let turn = Vec3::new(r(-0.5, 0.5), r(-0.5, 0.5), r(-0.5, 0.5)) * 0.5;
        let forward = ((p - self.eye).normalize() + turn).normalize();
        let right = forward.cross(Vec3::Z).normalize();
        [forward, right, right.cross(forward)]
    }

    /// Texels a pixel spans at `p` for a camera with `axes` (none where p is not in front).
    fn texels_at(&self, p: Vec3, axes: [Vec3; 3]) -> Option<f32> {
        let v = p - self.eye;
        let z = v.dot(axes[0]);
        let at = (640.0 * v.dot(axes[1]) / z, 640.0 * v.dot(axes[2]) / z);
        let plane = self.surface.plane;
        (z > 1.0).then(|| texels_per_pixel(self.eye, axes, 640.0, plane, &self.texel, at))
    }
}

/// A surface called magnified spans at most one texel of its region a pixel wherever a camera
/// at the eye, turned any way, sees it (so the GPU's level of detail is below 0 all over it
/// and its finest level is what it samples); and the call is not vacuous: close walls are
/// magnified, far and grazing ones are not.
#[test]
fn a_surface_called_magnified_spans_under_a_texel_a_pixel_everywhere() {
    let mut rng = lanthorn_geom::rng::XorShift::seeded(11);
    let mut r = |lo: f64, hi: f64| rng.range_f64(lo, hi) as f32;
    let mut plan = plan_of(vec![wall(Vec2::ZERO, 64.0, 64.0, None)]);
    plan.focal_px = 640.0;
    let (mut magnified, mut not) = (0, 0);
    for _ in 0..2000 {
        let wall = RandomWall::new(&mut r);
        plan.eye = wall.eye;
        if !plan.magnified(&Look::of(&wall.surface, 0), wall.level) {
            not += 1;
            continue;
        }
        magnified += 1;
        for _ in 0..20 {
            let p = wall.point(&mut r);
            // A camera looking at p from any direction the eye can see it from.
            let axes = wall.axes_towards(p, &mut r);
            if let Some(n) = wall.texels_at(p, axes) {
                assert!(n <= 1.0, "{n} texels a pixel at {p} from {}", wall.eye);
            }
        }
    }
    assert!(
        magnified > 100 && not > 100,
        "{magnified} magnified, {not} not"
    );
}

/// A surface the frame's camera sees at most two texels a pixel (`two_levels`, by its own axes
/// or the bound for any camera) spans at most two along its pixel rows and columns wherever in
/// front of it the wall is, not only on the screen; and the view's axes pass walls that the
/// bound for any camera does not.
#[test]
fn a_surface_called_two_level_spans_at_most_two_texels_a_pixel_everywhere() {
    holds_along_the_views_axes(12, TWO_LEVEL_TEXELS, SurfacePlan::two_levels);
}

/// With the frame's camera told, `magnified` takes its axes' bound too: a surface it calls
/// magnified spans at most one texel along that camera's pixel rows and columns wherever in
/// front of it the wall is; and the axes pass walls the bound for any camera does not.
#[test]
fn a_surface_called_magnified_by_the_views_axes_spans_under_a_texel_along_them() {
    holds_along_the_views_axes(13, MAGNIFIED_TEXELS, SurfacePlan::magnified);
}

/// Over 3,000 random walls, each seen by a camera turned towards a point of it: where `called`
/// says the wall spans at most `texels` a pixel, 20 random points of it in front of the eye do
/// along the camera's pixel rows and columns (central differences of the hit point); and
/// `called` is not vacuous, nor only the bound for any camera at the eye.
fn holds_along_the_views_axes(
    seed: u64,
    texels: f32,
    called: fn(&SurfacePlan, &Look, u32) -> bool,
) {
    let mut rng = lanthorn_geom::rng::XorShift::seeded(seed);
    let mut r = |lo: f64, hi: f64| rng.range_f64(lo, hi) as f32;
    let mut plan = plan_of(vec![wall(Vec2::ZERO, 64.0, 64.0, None)]);
    plan.focal_px = 640.0;
    let (mut within, mut only_seen, mut not) = (0, 0, 0);
    for _ in 0..3000 {
        let wall = RandomWall::new(&mut r);
        plan.eye = wall.eye;
        let axes = wall.axes_towards(wall.point(&mut r), &mut r);
        plan.axes = Some(axes);
        let look = Look::of(&wall.surface, 0);
        if !called(&plan, &look, wall.level) {
            not += 1;
            continue;
        }
        within += 1;
        let [most, scale] = plan.any_camera_span(&look, wall.level);
        only_seen += (most > texels * scale) as u32;
        for _ in 0..20 {
            let p = wall.point(&mut r);
            if let Some(n) = wall.texels_at(p, axes) {
                assert!(n <= texels * 1.0001, "{n} texels a pixel at {p}");
            }
        }
    }
    assert!(
        within > 100 && not > 100 && only_seen > 50,
        "{within} within {texels} ({only_seen} by the view's axes only), {not} not"
    );
}
