use super::*;
use lanthorn_compile::scene::{compile_scene, parse};
use lanthorn_geom::sh::truncated_response;

/// A 1024 × 1024 × 512 room, a lift riding up and down its middle, and `lights` (entity
/// tuples); `ops` adds brushes.
fn lift_room(ops: &str, lights: &str) -> Level {
    let scene = parse(&format!(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air),
            {ops}
        ], objects: [(name: "lift", brushes: [(brush: Box(min: (448, 448, 16), max: (576, 576, 32)))],
            motion: Some(Path(points: [(0, 0, 0), (0, 0, 256)], speed: 64)))],
        entities: [{lights}])"#
    ))
    .unwrap();
    compile_scene(&scene, &Default::default()).unwrap().0
}

fn style_scales() -> [f32; styles::MAX_STYLES] {
    [1.0; styles::MAX_STYLES]
}

/// The grid covers the lift's whole path, and only its open points hold light.
#[test]
fn the_grid_covers_the_path_and_its_open_points() {
    let level = lift_room(
        "",
        r#"[("classname", "light"), ("origin", "512 300 200"), ("light", "300")]"#,
    );
    let grid = level
        .light_grid
        .as_ref()
        .expect("a level with a lift has a light grid");
    grid.check().unwrap();
    let hi = grid.position(grid.size.map(|n| n - 1));
    assert!(
        grid.origin.cmple(Vec3::new(448.0, 448.0, 16.0)).all(),
        "{}",
        grid.origin
    );
    assert!(hi.cmpge(Vec3::new(576.0, 576.0, 288.0)).all(), "{hi}");
    for i in 0..grid.point_count() {
        let p = grid.position(point_of(grid.size, i));
        assert_eq!(
            grid.styles[i].count() > 0,
            level.locate(p).is_some(),
            "point {p}"
        );
    }
}

/// One point light and nothing between it and the grid: every point's SH is the analytic one
/// of Quake's formula there, `(light − d) · ½` (the range scale) with the `0.5 + 0.5 cos`
/// response — the reconstruction at the light's direction is that value times the order-2
/// lobe's peak, and at every normal within the truncation error of the true response.
#[test]
fn one_point_light_gives_the_analytic_light_at_every_point() {
    let light = Vec3::new(512.0, 400.0, 200.0);
    let level = lift_room(
        "",
        r#"[("classname", "light"), ("origin", "512 400 200"), ("light", "300")]"#,
    );
    let grid = level.light_grid.as_ref().unwrap();
    let bound = (0..=2000)
        .map(|i| -1.0 + i as f32 / 1000.0)
        .map(|t| {
            let h = if t > 0.0 { 0.5 + 0.5 * t } else { 0.0 };
            (truncated_response(0.5, t) - h).abs()
        })
        .fold(0.0f32, f32::max);
    let mut checked = 0;
    for i in 0..grid.point_count() {
        let p = grid.position(point_of(grid.size, i));
        let d = light.distance(p);
        let slots: Vec<_> = grid.point_slots(i).collect();
        if slots.is_empty() || d < 1.0 {
            continue;
        }
        assert_eq!(slots.len(), 1, "one style at {p}");
        let (style, sh) = slots[0];
        assert_eq!(style, 0);
        let e = (300.0 - d).max(0.0) * 0.5;
        let to = (light - p) / d;
        let peak = sh.eval(to).x;
        assert!(
            (peak - e * truncated_response(0.5, 1.0)).abs() < 1e-3 * e.max(1.0),
            "{p}: {peak} vs {e}"
        );
        for n in [
            Vec3::X,
            -Vec3::X,
            Vec3::Y,
            -Vec3::Y,
            Vec3::Z,
            -Vec3::Z,
            to,
            -to,
        ] {
            let t = n.dot(to);
            let want = e * if t > 0.0 { 0.5 + 0.5 * t } else { 0.0 };
            let got = sh.eval(n);
            assert!(
                (got.x - want).abs() <= e * bound + 1e-3,
                "{p} n {n}: {got} vs {want}"
            );
            assert!(
                (got - Vec3::splat(got.x)).abs().max_element() < 1e-3,
                "white light"
            );
        }
        checked += (e > 0.0) as usize;
    }
    assert!(checked > 50, "only {checked} lit points checked");
}

/// A shelf between the light above and half of the lift's path: the points under it get none
/// of the light, those beside it all of it; the lookup there darkens and brightens to match.
#[test]
fn a_shelf_shadows_the_points_under_it() {
    let light = Vec3::new(512.0, 512.0, 480.0);
    let level = lift_room(
        "(brush: Box(min: (300, 300, 300), max: (512, 724, 320)), medium: Solid),",
        r#"[("classname", "light"), ("origin", "512 512 480"), ("light", "600")]"#,
    );
    let grid = level.light_grid.as_ref().unwrap();
    let scales = style_scales();
    let shade = Vec3::new(470.0, 512.0, 150.0);
    let dark = light_at(grid, shade, &scales).unwrap();
    let up = (light - shade).normalize();
    assert!(dark.eval(up).max_element() < 1e-3, "{}", dark.eval(up));
    let sunny = Vec3::new(560.0, 512.0, 150.0);
    let lit = light_at(grid, sunny, &scales).unwrap();
    let e = (600.0 - light.distance(sunny)) * 0.5 * truncated_response(0.5, 1.0);
    let got = lit.eval((light - sunny).normalize()).x;
    // Blended from points at most one spacing away, all on the light's open side.
    assert!((got - e).abs() < 0.1 * e, "{got} vs {e}");
}

/// A styled light bakes into a slot of its own style; the lookup weighs it by the style's
/// brightness (off: only the steady light remains).
#[test]
fn a_styled_light_keeps_its_own_slot() {
    let steady = lift_room(
        "",
        r#"[("classname", "light"), ("origin", "300 512 200"), ("light", "400")]"#,
    );
    let both = lift_room(
        "",
        r#"[("classname", "light"), ("origin", "300 512 200"), ("light", "400")],
           [("classname", "light"), ("origin", "700 512 200"), ("light", "400"), ("style", "5")]"#,
    );
    let grid = both.light_grid.as_ref().unwrap();
    let p = Vec3::new(512.0, 512.0, 150.0);
    let i = (0..grid.point_count())
        .min_by_key(|&i| (grid.position(point_of(grid.size, i)).distance(p) * 100.0) as u32)
        .unwrap();
    let styles: Vec<u8> = grid.point_slots(i).map(|(s, _)| s).collect();
    assert_eq!(styles, vec![0, 5]);
    let mut scales = style_scales();
    scales[5] = 0.0;
    let off = light_at(grid, p, &scales).unwrap();
    let alone = light_at(steady.light_grid.as_ref().unwrap(), p, &style_scales()).unwrap();
    for n in [Vec3::X, -Vec3::X, Vec3::Z] {
        assert!((off.eval(n) - alone.eval(n)).length() < 1e-3, "{n}");
    }
    scales[5] = 1.0;
    let on = light_at(grid, p, &scales).unwrap();
    // The styled light is east of the point: it adds to the east-facing side.
    assert!(on.eval(Vec3::X).x > alone.eval(Vec3::X).x + 10.0);
}

/// The lookup is trilinear over the eight points around it, those in solid left out and the
/// others' weights renormalised (oracle: the blend written out by hand).
#[test]
fn the_lookup_blends_the_open_points_around_it() {
    let uniform = |v: f32| {
        let mut sh = Sh9::ZERO;
        sh.add_uniform(Vec3::splat(v));
        sh
    };
    let open = LightStyles([0, NO_STYLE, NO_STYLE, NO_STYLE]);
    let mut styles = vec![open; 8];
    styles[7] = LightStyles([NO_STYLE; 4]);
    let values = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0];
    let grid = LightGrid {
        origin: Vec3::ZERO,
        spacing: Vec3::splat(10.0),
        size: [2, 2, 2],
        minlight: 0.0,
        sun_style: 0,
        first: LightGrid::firsts(&styles),
        styles,
        slots: values.iter().map(|&v| uniform(v)).collect(),
        sun: None,
        sun_visible: Vec::new(),
    };
    let scales = style_scales();
    let at = |p: Vec3| light_at(&grid, p, &scales).unwrap().eval(Vec3::Z).x;
    // Inside the bottom face (z = 0), all four corners open: bilinear in x and y.
    let p = Vec3::new(2.5, 5.0, 0.0);
    let want = 0.0 * 0.75 * 0.5 + 10.0 * 0.25 * 0.5 + 20.0 * 0.75 * 0.5 + 30.0 * 0.25 * 0.5;
    assert!((at(p) - want).abs() < 1e-3, "{} vs {want}", at(p));
    // The middle: seven open corners of weight 1/8 each, renormalised.
    let want = values.iter().sum::<f32>() / 7.0;
    assert!((at(Vec3::splat(5.0)) - want).abs() < 1e-3);
    // Far outside: none.
    assert!(light_at(&grid, Vec3::splat(100.0), &scales).is_none());
}

/// An object whose centre lies in solid (a door slid up into its lintel) takes the light of the
/// points of its box that are open: the mean of the lookup at those of its nine sample points
/// (the centre, halfway to each corner) that have light.
#[test]
fn an_object_half_in_a_wall_takes_the_light_of_its_open_part() {
    let level = lift_room(
        "(brush: Box(min: (400, 400, 200), max: (624, 624, 320)), medium: Solid),",
        r#"[("classname", "light"), ("origin", "512 512 100"), ("light", "400")]"#,
    );
    let grid = level.light_grid.as_ref().unwrap();
    let scales = style_scales();
    // Centre in the block, its lower half hanging out under it.
    let b = Aabb::new(
        Vec3::new(480.0, 480.0, 150.0),
        Vec3::new(544.0, 544.0, 250.0),
    );
    let centre = Vec3::new(512.0, 512.0, 200.0);
    assert!(level.locate(centre + Vec3::Z * 20.0).is_none());
    let over = light_over(grid, b, &scales).expect("its lower half is open");
    let open: Vec<GridLight> = [-1.0f32, 1.0]
        .iter()
        .flat_map(|&x| [-1.0f32, 1.0].map(move |y| (x, y)))
        .flat_map(|(x, y)| {
            [-1.0f32, 1.0].map(move |z| Vec3::new(x, y, z) * Vec3::new(16.0, 16.0, 25.0))
        })
        .chain([Vec3::ZERO])
        .filter_map(|o| light_at(grid, centre + o, &scales))
        .collect();
    assert!(
        !open.is_empty() && open.len() < 9,
        "{} of 9 open",
        open.len()
    );
    let mut mean = Sh9::ZERO;
    for l in &open {
        mean.add_scaled(&l.sh, 1.0 / open.len() as f32);
    }
    assert!((over.eval(-Vec3::Z) - mean.eval(-Vec3::Z)).length() < 1e-3);
    // The light below it shines up on its underside.
    assert!(over.eval(-Vec3::Z).x > 20.0, "{}", over.eval(-Vec3::Z));
}
