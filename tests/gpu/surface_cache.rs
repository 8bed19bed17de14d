//! The surface cache against the direct shading it replaces: on the id maps, the frame drawn
//! from the cache (texture × light baked once, one fetch) is the frame shaded directly (a
//! material fetch, a lightmap fetch, the styles) within a small tolerance, and a cache baked
//! under other light styles is never drawn.

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::styles::StyleMode;
use lanthorn::level::Level;
use lanthorn::render::world::WorldStats;
use lanthorn::render::{settings::FrameSettings, Renderer};
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::golden::{diff, quake_level};
use crate::support::gpu;

const SIZE: (u32, u32) = (640, 360);

/// The cameras: e1m1's player start (walls near and far), start's 4th intermission (large
/// dark walls close to the eye), dm1's corridor with the pulsing light of style 2.
fn cameras() -> [(&'static str, CameraSpec); 3] {
    let at = |x, y, z, yaw, pitch| CameraSpec {
        position: Vec3::new(x, y, z),
        yaw,
        pitch,
    };
    [
        ("e1m1", at(480.0, -352.0, 110.0, 90.0, 0.0)),
        ("start", at(-304.0, 1720.0, -80.0, 45.0, -20.0)),
        ("dm1", at(320.0, 1504.0, -80.0, 90.0, 0.0)),
    ]
}

fn settings(cache: bool, styles: StyleMode, time: f32) -> FrameSettings {
    FrameSettings {
        time,
        light_styles: styles,
        surface_cache: cache,
        ..Default::default()
    }
}

/// Renders `frames` frames from one renderer, each with its settings; returns the last.
fn frames(
    level: &Level,
    camera: CameraSpec,
    each: &[FrameSettings],
) -> (image::RgbaImage, lanthorn::render::world::WorldStats) {
    let gpu = gpu().expect("checked by the caller");
    let mut renderer = Renderer::new(gpu, level, SIZE);
    let cam = Camera::new(camera, SIZE.0 as f32 / SIZE.1 as f32);
    let mut culler = Culler::new(level, CullMode::Portal);
    let mut visible = VisibleSet::default();
    culler.cull(level, &cam, &mut visible);
    let mut stats = Default::default();
    for s in each {
        stats = renderer.render(gpu, &cam, &visible, s).world;
    }
    (renderer.read_color(gpu), stats)
}

/// After a frame that bakes, the camera draws most of its opaque surfaces from the cache, and
/// the frame matches the directly shaded one: mean difference under 1 of 255, and fewer than
/// 0.3 % of pixels off by more than 32. What differs: the light is taken at each texel's
/// centre, not at each pixel's; the cache's mips average lit texels; and faces edge-on to
/// their texture projection (every pixel on the boundary between two texel columns: e1m1's
/// light fixtures by the start) pick the other column — there the cache shows what
/// quakespasm shows, the direct path does not.
#[test]
fn cached_frames_match_direct_shading_on_id_maps() {
    if gpu().is_none() {
        return;
    }
    for (map, camera) in cameras() {
        let Some(level) = quake_level(map) else {
            return;
        };
        let direct = settings(false, StyleMode::Normal, 0.0);
        let cached = settings(true, StyleMode::Normal, 0.0);
        let (want, direct_stats) = frames(&level, camera, &[direct]);
        let (got, stats) = frames(&level, camera, &[cached, cached, cached]);
        assert_eq!(direct_stats.cached, 0, "{map}");
        assert_eq!(stats.baking, 0, "{map}: still baking on the third frame");
        assert!(
            stats.cached as f64 >= 0.75 * stats.surfaces as f64,
            "{map}: {} of {} surfaces from the cache",
            stats.cached,
            stats.surfaces
        );
        let (d, img) = diff(&want, &got);
        if d.mean > 1.0 || d.bad_fraction > 0.003 {
            let out = std::env::temp_dir().join(format!("surface_cache_{map}.png"));
            let _ = img.save(&out);
            panic!(
                "{map}: cached frame differs from the direct one: {d:?} ({})",
                out.display()
            );
        }
    }
}

/// A cache baked with every style at "m" is not drawn once styles animate: dm1's style-2
/// walls, baked at "m", must show the pulse's "a" at 0.05 s exactly as a fresh renderer does.
#[test]
fn a_cache_baked_under_other_styles_is_not_drawn() {
    if gpu().is_none() {
        return;
    }
    let Some(level) = quake_level("dm1") else {
        return;
    };
    let (_, camera) = cameras()[2];
    let normal = settings(true, StyleMode::Normal, 0.05);
    let pulse = settings(true, StyleMode::Animated, 0.05);
    let (after, stats) = frames(&level, camera, &[normal, normal, normal, pulse]);
    let (fresh, _) = frames(&level, camera, &[pulse, pulse, pulse]);
    let (want, _) = frames(
        &level,
        camera,
        &[settings(false, StyleMode::Animated, 0.05)],
    );
    assert!(stats.cached > 0);
    let (d, _) = diff(&after, &fresh);
    assert!(d.mean < 0.05 && d.bad_fraction == 0.0, "{d:?}");
    let (d, _) = diff(&after, &want);
    assert!(d.mean < 0.6 && d.bad_fraction < 0.002, "{d:?}");
    // The "m" frame is visibly brighter there: the test would see a stale cache.
    let (normal_frame, _) = frames(&level, camera, &[normal, normal]);
    let (d, _) = diff(&normal_frame, &want);
    assert!(d.mean > 1.0, "{d:?}");
}

/// The views the fetch tests look from: start's and dm1's cameras above and e1m1's near-portal
/// views (eyes 0–8 units from a doorway, walls and floors close by, where the level of detail
/// of a surface's far end comes nearest 0); `None` without the GPU or the maps.
fn fetch_views() -> Option<Vec<(&'static str, Level, Vec<CameraSpec>)>> {
    gpu()?;
    let e1m1 = quake_level("e1m1")?;
    let views = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/views");
    let near_portals =
        lanthorn::app::vis_check::views_in_cells(&views.join("e1m1-portals.json"), &e1m1).unwrap();
    let mut levels = vec![("e1m1", e1m1, near_portals.into_iter().step_by(3).collect())];
    for (map, camera) in cameras().into_iter().skip(1) {
        levels.push((map, quake_level(map)?, vec![camera]));
    }
    Some(levels)
}

/// At each of `fetch_views`, the frame with the default settings (`linear`: linear filtering;
/// baked by the third frame) and the same frame with `other`'s, and the first's world stats,
/// to `check`.
fn with_fetch_views(
    linear: bool,
    other: impl Fn(FrameSettings) -> FrameSettings,
    mut check: impl FnMut(&str, CameraSpec, &image::RgbaImage, &image::RgbaImage, &WorldStats),
) -> bool {
    let Some(levels) = fetch_views() else {
        return false;
    };
    let gpu = gpu().expect("checked by fetch_views");
    for (map, level, cameras) in &levels {
        let mut renderer = Renderer::new(gpu, level, SIZE);
        let mut culler = Culler::new(level, CullMode::Portal);
        let mut visible = VisibleSet::default();
        for spec in cameras {
            let cam = Camera::new(*spec, SIZE.0 as f32 / SIZE.1 as f32);
            culler.cull(level, &cam, &mut visible);
            let fetch = FrameSettings {
                linear_filtering: linear,
                ..settings(true, StyleMode::Normal, 0.0)
            };
            let mut stats = Default::default();
            for _ in 0..3 {
                stats = renderer.render(gpu, &cam, &visible, &fetch).world;
            }
            let want = renderer.read_color(gpu);
            renderer.render(gpu, &cam, &visible, &other(fetch));
            let got = renderer.read_color(gpu);
            check(map, *spec, &want, &got, &stats);
        }
    }
    true
}

/// The cache's surfaces magnified all over, sampled from a view of their finest level alone
/// (`fs_cached_magnified`), draw exactly what the mipmapped sampler draws for them
/// (`magnified_fetch` off: `fs_cached`): not one pixel differs at any of `fetch_views`, with
/// nearest and with linear filtering. The magnified batch is not empty at most of them.
#[test]
fn magnified_surfaces_fetched_draw_what_the_sampler_draws() {
    let (mut views_seen, mut with_magnified) = (0, 0);
    let sampled = |s| FrameSettings {
        magnified_fetch: false,
        ..s
    };
    let mut ran = false;
    for linear in [false, true] {
        ran |= with_fetch_views(linear, sampled, |map, spec, want, got, stats| {
            let differing = want
                .pixels()
                .zip(got.pixels())
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(
                differing, 0,
                "{map} at {spec:?}: {differing} pixels differ ({} of {} surfaces magnified)",
                stats.magnified, stats.cached
            );
            views_seen += 1;
            with_magnified += (stats.magnified > 0) as u32;
        });
    }
    assert!(
        !ran || with_magnified * 2 > views_seen,
        "magnified surfaces at {with_magnified} of {views_seen} views"
    );
}

/// The cache's surfaces with at most two texels a pixel, blended from views of the two finest
/// levels (`fs_cached_two_levels`), draw what the sampler's trilinear fetch draws for them
/// (`two_level_blend` off: `fs_cached`) but for rounding: the level of detail and the blend
/// are worked out in the shader, not by the sampler. At every one of `fetch_views`, with nearest
/// and with linear filtering, no channel more than `MOST_APART` apart (8 seen on lavapipe) and
/// the mean difference under a quarter of a level (0.045 seen); the batch is not empty at most
/// of them.
#[test]
fn two_level_surfaces_draw_what_the_trilinear_fetch_draws() {
    const MOST_APART: u8 = 12;
    let (mut views_seen, mut with_two) = (0, 0);
    let sampled = |s| FrameSettings {
        two_level_blend: false,
        ..s
    };
    let mut ran = false;
    for linear in [false, true] {
        ran |= with_fetch_views(linear, sampled, |map, spec, want, got, stats| {
            let (d, _) = diff(want, got);
            let most = (want.as_raw().iter().zip(got.as_raw()))
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap_or(0);
            assert!(
                most <= MOST_APART && d.mean < 0.25,
                "{map} at {spec:?}: {d:?}, channels up to {most} apart ({} of {} surfaces two-level)",
                stats.two_levels,
                stats.cached
            );
            views_seen += 1;
            with_two += (stats.two_levels > 0) as u32;
        });
    }
    assert!(
        !ran || with_two * 2 > views_seen,
        "two-level surfaces at {with_two} of {views_seen} views"
    );
}
