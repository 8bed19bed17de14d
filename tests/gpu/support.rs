use std::sync::OnceLock;

use lanthorn::render::{Gpu, GpuOptions, OptionalFeature};

/// True when a missing GPU or missing real data must fail the test run.
pub(crate) fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Skips (returns None with a loud message) or fails, depending on `required()`.
pub(crate) fn unavailable<T>(what: &str, why: &str) -> Option<T> {
    if required() {
        panic!("{what} is required (CI=true or LANTHORN_REQUIRE_GPU=1) but unavailable: {why}");
    }
    eprintln!("\n!!! SKIPPED: {what} unavailable: {why}\n!!! (set CI=true or LANTHORN_REQUIRE_GPU=1 to make this a failure)\n");
    None
}

/// Whether there is a display for the windowed tests; without one, skips or fails as
/// `unavailable` decides.
pub(crate) fn display() -> bool {
    if std::env::var_os("DISPLAY").is_some() {
        return true;
    }
    unavailable::<()>(
        "a display (run the tests under `xvfb-run -a`)",
        "DISPLAY is not set",
    );
    false
}

fn make(disable: &[OptionalFeature]) -> Option<Gpu> {
    match Gpu::headless(&GpuOptions {
        disable: disable.to_vec(),
    }) {
        Ok(g) => Some(g),
        Err(e) => unavailable("a GPU adapter", &e.to_string()),
    }
}

/// The shared default device (all optional features the adapter grants).
pub(crate) fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| make(&[])).as_ref()
}

/// A second shared device with clip distances switched off (the discard fallback) and
/// indirect first instance off (direct draws).
pub(crate) fn gpu_fallbacks() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| {
        make(&[
            OptionalFeature::ClipDistances,
            OptionalFeature::IndirectFirstInstance,
        ])
    })
    .as_ref()
}

/// `level` (no terrain) drawn from `spec` at `size` with `settings` and `cull`, as `capture`
/// draws it once the view has settled.
pub(crate) fn capture(
    level: &lanthorn::level::Level,
    spec: lanthorn::geom::CameraSpec,
    size: (u32, u32),
    cull: lanthorn::vis::CullMode,
    settings: &lanthorn::render::settings::FrameSettings,
) -> image::RgbaImage {
    let gpu = gpu().expect("checked by the caller");
    let overlays = Default::default();
    let (img, _) = lanthorn::app::capture::capture_with_terrain(
        gpu, level, None, spec, size, cull, settings, &overlays,
    );
    img
}

/// The keep as the demo opens it (the embedded keep and the terrain it places under itself),
/// its camera at `spec`.
pub(crate) fn keep_world(spec: lanthorn::geom::CameraSpec) -> lanthorn::app::World {
    lanthorn::app::load_world(
        None,
        Some(spec),
        (None, Default::default()),
        &Default::default(),
    )
    .unwrap()
}

/// The keep's outside camera: on the hills east of it, looking back at its walls (#26's).
pub(crate) const KEEP_OUTSIDE: lanthorn::geom::CameraSpec = lanthorn::geom::CameraSpec {
    position: glam::Vec3::new(3000.0, 2300.0, 560.0),
    yaw: 232.0,
    pitch: -18.0,
};

/// docs/formats.md's example scene (a hall, a doorway, an outdoor terrace over a terrain), compiled.
pub(crate) fn readme_scene() -> lanthorn::level::Level {
    let readme = include_str!("../../docs/formats.md");
    let start = readme
        .find("```ron\n")
        .expect("docs/formats.md has a ron example")
        + 7;
    let end = start + readme[start..].find("```").unwrap();
    let scene = lanthorn::compile::scene::parse(&readme[start..end]).unwrap();
    lanthorn::compile::scene::compile_scene(&scene, &Default::default())
        .unwrap()
        .0
}

/// The solid id image (surface + 1 per pixel, 0: nothing) of `visible` seen by `camera`, as
/// vis-check renders it: octagons by the exact fragment test.
pub(crate) fn solid_ids(
    gpu: &Gpu,
    level: &lanthorn::level::Level,
    camera: &lanthorn::geom::Camera,
    visible: &lanthorn::vis::VisibleSet,
    settings: &lanthorn::render::settings::FrameSettings,
    size: (u32, u32),
) -> Vec<u32> {
    use lanthorn::render::pass::{FrameInputs, Pass};
    use lanthorn::render::world::{IdFrame, WorldPass};
    let format = lanthorn::render::target::GAMMA_COLOR_FORMAT;
    let mut world = WorldPass::create_clipped(gpu, level, format, false);
    world.prepare(gpu, &FrameInputs::view((camera, size), visible, settings));
    IdFrame::create(gpu, size).render(gpu, &world).solid
}

/// The archives of OpenArena's Debian packages development uses (`openarena-data`,
/// `openarena-081-*`, `openarena-085-data`), linked into a game folder of their own, so that
/// a map a later package adds or replaces (held out for checking afterwards) is never read.
/// Skips or fails as `unavailable` decides when they are not installed.
pub(crate) fn openarena_development_game() -> Option<lanthorn::load::search::SearchPath> {
    let base = std::path::Path::new(lanthorn_testdata::OPENARENA_BASEOA);
    if !["pak0.pk3", "pak1-maps.pk3"]
        .iter()
        .all(|a| base.join(a).is_file())
    {
        return unavailable(
            "OpenArena's maps and shader scripts",
            "apt-get install openarena-data openarena-085-data",
        );
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-openarena-{}", std::process::id()));
    let game = dir.join("baseoa");
    std::fs::create_dir_all(&game).unwrap();
    for name in lanthorn_testdata::OPENARENA_DEVELOPMENT_PK3S {
        let (from, to) = (base.join(name), game.join(name));
        if from.is_file() && !to.exists() {
            std::os::unix::fs::symlink(&from, &to).unwrap();
        }
    }
    Some(lanthorn::load::search::SearchPath::new(&dir, Some("baseoa")).unwrap())
}

/// `level` with every surface in one open cell over ±1000 units (a scene of loose surfaces,
/// drawn with `CullMode::None`).
/// A level of flat-coloured materials (name, colour) and the surfaces marked `true`, in
/// their order, all in one cell (`in_one_cell`).
pub(crate) fn coloured_in_one_cell(
    materials: &[(&str, [f32; 3])],
    surfaces: impl IntoIterator<Item = (bool, lanthorn::level::Surface)>,
) -> lanthorn::level::Level {
    let mut level = lanthorn::level::Level::default();
    for &(name, color) in materials {
        level.materials.push(lanthorn::level::Material {
            name: name.into(),
            color,
            ..Default::default()
        });
    }
    level.surfaces = surfaces.into_iter().filter(|c| c.0).map(|c| c.1).collect();
    in_one_cell(level)
}

pub(crate) fn in_one_cell(mut level: lanthorn::level::Level) -> lanthorn::level::Level {
    let mut cell = lanthorn::level::Cell {
        surfaces: (0..level.surfaces.len() as u32).collect(),
        ..Default::default()
    };
    cell.aabb = lanthorn::geom::Aabb::new(glam::Vec3::splat(-1000.0), glam::Vec3::splat(1000.0));
    level.cells.push(cell);
    level
}

/// The eye at the origin looking along +X, level: +Y is to the left of the picture.
pub(crate) const LOOKING_ALONG_X: lanthorn::geom::CameraSpec = lanthorn::geom::CameraSpec {
    position: glam::Vec3::ZERO,
    yaw: 0.0,
    pitch: 0.0,
};
