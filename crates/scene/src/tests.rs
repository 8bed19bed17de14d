//! Moving objects lit where they are at a moment.

use glam::Vec3;

/// A slab riding up and down in an open-air yard under a sun whose daylight bakes under
/// style 12: by night the grid's daylight slot dims as the lightmaps' does (oracle: the
/// lookup with style 12 scaled by night's daylight by hand), and the slab darkens.
#[test]
fn night_dims_a_moving_objects_daylight() {
    let scene = lanthorn_compile::scene::parse(
        r#"Scene(
        ops: [(brush: Box(min: (-512, -512, 0), max: (512, 512, 512)), medium: Air)],
        outdoor: [Box(min: (-512, -512, 0), max: (512, 512, 512))],
        objects: [(name: "slab", brushes: [(brush: Box(min: (-32, -32, 16), max: (32, 32, 24)))],
            motion: Some(Path(points: [(0, 0, 0), (0, 0, 128)], speed: 32)))],
        entities: [[("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "0 -60 0"),
            ("_sun_style", "12")]],
    )"#,
    )
    .unwrap();
    let (level, _) = lanthorn_compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let grid = level.light_grid.as_ref().unwrap();
    assert_eq!(grid.sun_style, 12);
    let light = |daylight| {
        let at = super::Moment {
            daylight,
            ..Default::default()
        };
        let mut culler = lanthorn_vis::Culler::new(&level, lanthorn_vis::CullMode::Portal);
        super::update(&level, &mut culler, &at);
        (culler.links.ambient[0].unwrap(), culler.links.bounds[0])
    };
    // Night's daylight, as the renderer's `TimeOfDay::Night` scales it.
    const NIGHT: f32 = 0.04;
    let ((day, b), (night, _)) = (light(1.0), light(NIGHT));
    let mut scales = lanthorn_level::styles::scales(0.0, Default::default(), 0);
    scales[12] *= NIGHT;
    let want = lanthorn_light::grid::light_over(grid, b, &scales).unwrap();
    assert!((night.eval(Vec3::Z) - want.eval(Vec3::Z)).length() < 1e-4);
    let (d, n) = (day.eval(Vec3::Z).x, night.eval(Vec3::Z).x);
    assert!(d > 50.0 && n < 0.1 * d, "day {d}, night {n}");
    // The sun is kept out of the harmonics: the open yard sees it whole, and an upward
    // face gets Quake's `0.5 + 0.5 cos` of `_sunlight` × the range scale ½, 60° up.
    assert_eq!(day.sun_visible, 1.0);
    assert!(day.sh.eval(Vec3::Z).length() < 1e-3);
    let want = 200.0 * 0.5 * (0.5 + 0.5 * 60f32.to_radians().sin());
    assert!((d - want).abs() < 0.01 * want, "{d} vs {want}");
}
