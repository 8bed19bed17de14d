use super::*;
use crate::lights::*;
use lanthorn_compile::scene::{compile_scene, parse};

/// Unparsable keys and a light without an origin are warnings naming the entity; the light
/// still bakes with the default.
#[test]
fn bad_light_keys_are_warnings_naming_the_entity() {
    let scene = parse(
        r#"Scene(ops: [(brush: Box(min: (0, 0, 0), max: (256, 256, 128)), medium: Air)],
        entities: [
            [("classname", "worldspawn"), ("light", "dim")],
            [("classname", "light"), ("origin", "128 128 64"), ("light", "bright")],
            [("classname", "light_torch_small_walltorch"), ("origin", "nowhere")],
        ])"#,
    )
    .unwrap();
    let (level, stats) = compile_scene(&scene, &Default::default()).unwrap();
    let all = stats.warnings.join("\n");
    assert!(
        all.contains("entity 0 (worldspawn): light \"dim\" is not a number"),
        "{all}"
    );
    assert!(
        all.contains("entity 1 (light): light \"bright\" is not a number; using 300"),
        "{all}"
    );
    assert!(
        all.contains("entity 2 (light_torch_small_walltorch): no usable origin"),
        "{all}"
    );
    let lights = level_lights(&level);
    assert_eq!(lights.lights.len(), 1);
    assert_eq!(lights.lights[0].intensity, 300.0);
    assert_eq!(stats.lights, 1);
}

/// Deterministic xorshift numbers in [0, 1).
fn uniform(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f32 / (1u64 << 53) as f32
    }
}

/// The closest point on a triangle against brute force over a fine barycentric grid.
#[test]
fn closest_point_on_triangle_matches_brute_force() {
    let mut unit = uniform(99);
    let mut rnd = move || unit() * 200.0 - 100.0;
    for _ in 0..300 {
        let mut v = || Vec3::new(rnd(), rnd(), rnd());
        let (a, b, c, p) = (v(), v(), v(), v());
        let q = closest_on_triangle(p, a, b, c);
        let n = 200;
        let mut best = f32::MAX;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (u, w) = (i as f32 / n as f32, j as f32 / n as f32);
                best = best.min((a + (b - a) * u + (c - a) * w).distance(p));
            }
        }
        let got = q.distance(p);
        // The grid is a little coarse: the exact answer is never worse, and close.
        assert!(got <= best + 1e-3, "{got} > brute force {best}");
        assert!(best - got < 2.0, "{got} vs brute force {best}");
    }
}

/// A closed room with one light and a pillar: every luxel equals the analytic Quake formula
/// at its sample point, or the minimum light where the pillar blocks the segment to the light
/// (oracle: the segment against the pillar's box, not the BVH).
#[test]
fn room_luxels_follow_quakes_formula_and_the_pillar_shadows() {
    let scene = parse(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
            (brush: Box(min: (300, 200, 0), max: (340, 240, 128)), medium: Solid),
        ], entities: [
            [("classname", "worldspawn"), ("light", "10")],
            [("classname", "light"), ("origin", "400 220 100"), ("light", "350"), ("wait", "1.2")],
        ])"#,
    )
    .unwrap();
    let (level, stats) = compile_scene(&scene, &Default::default()).unwrap();
    assert_eq!(stats.lights, 1);
    let lights = level_lights(&level);
    let light = lights.lights[0];
    assert_eq!(
        (light.intensity, light.falloff, lights.minlight),
        (350.0, 1.2, 10.0)
    );
    let pillar = (Vec3::new(300.0, 200.0, 0.0), Vec3::new(340.0, 240.0, 128.0));
    let blocked = |p: Vec3| {
        // Slab test of p → light against the pillar box (strictly inside).
        let d = light.position - p;
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for k in 0..3 {
            if d[k].abs() < 1e-6 {
                if p[k] <= pillar.0[k] || p[k] >= pillar.1[k] {
                    return false;
                }
            } else {
                let (a, b) = ((pillar.0[k] - p[k]) / d[k], (pillar.1[k] - p[k]) / d[k]);
                t0 = t0.max(a.min(b));
                t1 = t1.min(a.max(b));
            }
        }
        t0 < t1 - 1e-4
    };
    let (mut lit, mut shadowed, mut checked) = (0, 0, 0);
    for s in &level.surfaces {
        let Some(r) = s.lightmap else { continue };
        let frame = LuxelFrame::new(s, Vec3::ZERO).unwrap();
        let centre = s.vertices.iter().map(|v| v.position).sum::<Vec3>() / s.vertices.len() as f32;
        for j in 0..r.height {
            for i in 0..r.width {
                let grid = frame.position(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                let p = sample_point(grid, s, Vec3::ZERO, centre) + s.normal;
                let texel = ((r.y + j) * level.lightmaps.width + r.x + i) as usize * 3;
                let got = level.lightmaps.texels[texel] as f32;
                let want = if blocked(p) {
                    shadowed += 1;
                    10.0
                } else {
                    let v = (light.at(p, s.normal).x * RANGE_SCALE).max(10.0);
                    if v > 10.0 {
                        lit += 1;
                    }
                    v.min(255.0)
                };
                checked += 1;
                assert!(
                    (got - want).abs() <= 1.0,
                    "luxel at {p}: baked {got}, formula {want}"
                );
            }
        }
    }
    eprintln!("room: {checked} luxels, {lit} lit, {shadowed} in the pillar's shadow");
    assert!(lit > 100 && shadowed > 20);
}

/// An outdoor yard (open to the sky where nothing was built) half under a roof, lit by the
/// sun straight from above: luxels with a clear
/// line to the sky get `_sunlight` (× the range scale), others only the minimum.
#[test]
fn sunlight_reaches_what_sees_the_sky() {
    let scene = parse(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
            (brush: Box(min: (0, 0, 200), max: (256, 512, 256)), medium: Solid),
            (brush: Box(min: (0, 0, -16), max: (512, 512, 0)), medium: Solid),
        ], entities: [
            [("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "0 -90 0")],
        ], outdoor: [Box(min: (0, 0, 0), max: (512, 512, 256))])"#,
    )
    .unwrap();
    let (level, _) = compile_scene(&scene, &Default::default()).unwrap();
    // The floor: under the roof (x < 256) dark, under the open sky (x > 256) at 200.
    let floor = level
        .surfaces
        .iter()
        .filter(|s| s.normal.z > 0.99 && s.vertices[0].position.z.abs() < 0.01)
        .collect::<Vec<_>>();
    assert!(!floor.is_empty());
    let (mut sun, mut shade) = (0, 0);
    for s in floor {
        let r = s.lightmap.unwrap();
        let frame = LuxelFrame::new(s, Vec3::ZERO).unwrap();
        for j in 0..r.height {
            for i in 0..r.width {
                let p = frame.position(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                let edge = |v: f32| !(8.0..=504.0).contains(&v);
                if (p.x - 256.0).abs() < 24.0 || edge(p.x) || edge(p.y) {
                    continue; // the roof's edge, or luxels pulled onto the surface
                }
                let v = level.lightmaps.texels
                    [((r.y + j) * level.lightmaps.width + r.x + i) as usize * 3];
                if p.x > 256.0 {
                    assert_eq!(v, 100, "open floor at {p} (200 × the range scale)");
                    sun += 1;
                } else {
                    assert_eq!(v, 0, "roofed floor at {p}");
                    shade += 1;
                }
            }
        }
    }
    assert!(sun > 50 && shade > 50, "{sun} sunlit, {shade} shaded");
}

/// id Software's own `light` tool lit e1m1: our bake of the same map's light entities,
/// sampled where our surfaces and the shipped BSP's faces coincide, must agree with the
/// shipped lightmaps style by style — the steady (style 0) maps in scale and value, and the
/// styles other than 0 (the fluorescent style-10 lights, the switchable ones) on the same
/// points.
/// Both with one sample a luxel (the default) and with 4×4 (`lanthorn compile`'s, ericw-tools'
/// `-extra4`).
#[test]
fn e1m1_light_agrees_with_the_shipped_lightmaps() {
    let dir = lanthorn_testdata::realdata_dir().join("quake");
    let (map, bsp) = (dir.join("maps/e1m1.map"), dir.join("bsp/e1m1.bsp"));
    if !map.is_file() || !bsp.is_file() {
        lanthorn_testdata::missing_realdata(&map);
        return;
    }
    let theirs = lanthorn_import::q1::load(&bsp).unwrap();
    for light_samples in [1, 4] {
        let options = lanthorn_compile::CompileOptions {
            light_samples,
            ..Default::default()
        };
        let (ours, _) = lanthorn_compile::compile(&map, &options).unwrap();
        eprint!("{light_samples}×{light_samples} samples: ");
        agrees_with_shipped(&ours, &theirs);
    }
}

/// The comparison of [`e1m1_light_agrees_with_the_shipped_lightmaps`].
fn agrees_with_shipped(ours: &Level, theirs: &Level) {
    let world: Vec<usize> = ours
        .cells
        .iter()
        .flat_map(|c| c.surfaces.iter().map(|&s| s as usize))
        .collect();
    let mut pairs = Vec::new();
    // The styles other than 0 lighting each point, ours and id's.
    let mut styled = Vec::new();
    let mut rnd = uniform(7);
    for _ in 0..4000 {
        let s = &ours.surfaces[world[(rnd() * world.len() as f32) as usize % world.len()]];
        if s.lightmap.is_none() || s.flags != 0 {
            continue;
        }
        let t = (rnd() * (s.indices.len() / 3) as f32) as usize % (s.indices.len() / 3);
        let (mut a, mut b) = (rnd(), rnd());
        if a + b > 1.0 {
            (a, b) = (1.0 - a, 1.0 - b);
        }
        let v = |k: usize| s.vertices[s.indices[t * 3 + k] as usize].position;
        let p = v(0) + (v(1) - v(0)) * a + (v(2) - v(0)) * b;
        let Some(mine) = lightmap_at(&ours, s, p, 0) else {
            continue;
        };
        let Some(other) = theirs.surfaces.iter().find(|o| {
            o.flags == 0
                && o.normal.dot(s.normal) > 0.999
                && (o.normal.dot(p - o.vertices[0].position)).abs() < 0.5
                && emitters::on_surface(o, Vec3::ZERO, p)
        }) else {
            continue;
        };
        if let Some(shipped) = lightmap_at(&theirs, other, p, 0) {
            pairs.push((mine, shipped));
            let lit = |l: &Level, s: &Surface| -> Vec<u8> {
                s.styles
                    .slots()
                    .filter(|&st| st != 0 && lightmap_at(l, s, p, st).is_some_and(|v| v > 0.0))
                    .collect()
            };
            styled.push((lit(&ours, s), lit(&theirs, other)));
        }
    }
    let n = pairs.len() as f32;
    let mean = |f: &dyn Fn(&(f32, f32)) -> f32| pairs.iter().map(f).sum::<f32>() / n;
    let (mx, my) = (mean(&|p| p.0), mean(&|p| p.1));
    let cov = mean(&|p| (p.0 - mx) * (p.1 - my));
    let (sx, sy) = (
        mean(&|p| (p.0 - mx).powi(2)).sqrt(),
        mean(&|p| (p.1 - my).powi(2)).sqrt(),
    );
    let mut ratios: Vec<f32> = pairs
        .iter()
        .filter(|p| p.1 > 8.0)
        .map(|p| p.0 / p.1)
        .collect();
    ratios.sort_by(f32::total_cmp);
    let close = pairs.iter().filter(|p| (p.0 - p.1).abs() <= 16.0).count() as f32 / n;
    eprintln!(
        "e1m1 light vs shipped: {} points, mean {mx:.1} vs {my:.1}, correlation {:.3}, median ratio {:.3}, within 16: {:.2}",
        pairs.len(),
        cov / (sx * sy),
        ratios[ratios.len() / 2],
        close
    );
    styles_agree(&styled);
    assert!(
        pairs.len() > 1000,
        "too few matched points: {}",
        pairs.len()
    );
    let ratio = ratios[ratios.len() / 2];
    assert!(
        (0.9..1.1).contains(&ratio),
        "brightness scale {ratio} (Quake's is 1)"
    );
    assert!(cov / (sx * sy) > 0.95, "correlation {}", cov / (sx * sy));
    assert!(
        close > 0.9,
        "only {close} of the points within 16 of the shipped light"
    );
}

/// Where id's tool lit a point with a styled light, ours did with the same styles, and the
/// other way round: `styled` holds, per sampled point, the styles other than 0 lighting it in
/// ours and in the shipped map.
fn styles_agree(styled: &[(Vec<u8>, Vec<u8>)]) {
    let theirs_styled = styled.iter().filter(|(_, t)| !t.is_empty()).count();
    let ours_styled = styled.iter().filter(|(o, _)| !o.is_empty()).count();
    let agree = styled
        .iter()
        .filter(|(o, t)| !t.is_empty() && o == t)
        .count();
    eprintln!(
        "e1m1 styles: {theirs_styled} points lit by a style besides 0 in the shipped map, \
         {ours_styled} in ours, {agree} with the same styles"
    );
    assert!(theirs_styled > 20, "the sample hardly meets a styled light");
    assert!(
        agree as f32 >= 0.9 * theirs_styled.max(ours_styled) as f32,
        "styled points: shipped {theirs_styled}, ours {ours_styled}, agreeing {agree}"
    );
}

/// The light (red byte, bilinear) of `s`'s style-`style` lightmap at the point `p` on it (0
/// where the surface has no map of that style); `None` outside its luxel grid.
fn lightmap_at(level: &Level, s: &Surface, p: Vec3, style: u8) -> Option<f32> {
    let r = s.lightmap?;
    let slot = s.styles.slots().position(|st| st == style);
    let layer = (level.lightmaps.width * level.lightmaps.height) as usize * 3;
    let f = LuxelFrame::new(s, Vec3::ZERO)?;
    // Invert the frame: uv of p by least squares on the two edges.
    let d = p - f.origin;
    let (a, b, c) = (f.e1.dot(f.e1), f.e1.dot(f.e2), f.e2.dot(f.e2));
    let (x, y) = (d.dot(f.e1), d.dot(f.e2));
    let det = a * c - b * b;
    let (s_, t_) = ((c * x - b * y) / det, (a * y - b * x) / det);
    let ds = Vec2::new(f.inv[0][0], f.inv[0][1]);
    let dt = Vec2::new(f.inv[1][0], f.inv[1][1]);
    // s = ds·(uv − uv0), t = dt·(uv − uv0): solve for uv.
    let m = glam::Mat2::from_cols(Vec2::new(ds.x, dt.x), Vec2::new(ds.y, dt.y));
    let uv = f.uv0 + m.inverse() * Vec2::new(s_, t_);
    let (u, v) = (uv.x - 0.5, uv.y - 0.5);
    if u < 0.0 || v < 0.0 || u > (r.width - 1) as f32 || v > (r.height - 1) as f32 {
        return None;
    }
    let (i, j) = (u.floor() as u32, v.floor() as u32);
    let (fu, fv) = (u - i as f32, v - j as f32);
    let at = |i: u32, j: u32| {
        let (i, j) = (i.min(r.width - 1), j.min(r.height - 1));
        let texel = ((r.y + j) * level.lightmaps.width + r.x + i) as usize * 3;
        slot.map_or(0.0, |k| level.lightmaps.texels[k * layer + texel] as f32)
    };
    let top = at(i, j) * (1.0 - fu) + at(i + 1, j) * fu;
    let bottom = at(i, j + 1) * (1.0 - fu) + at(i + 1, j + 1) * fu;
    Some(top * (1.0 - fv) + bottom * fv)
}

/// A room of two halves joined by a doorway; a steady light in the west half, a style-5 light
/// in the east. Oracle: the same room baked with each light alone at style 0.
fn two_light_room(east_style: &str, west: bool, east: bool) -> Level {
    let mut lights = String::new();
    if west {
        lights += r#"[("classname", "light"), ("origin", "128 128 96"), ("light", "300")],"#;
    }
    if east {
        lights += &format!(
            r#"[("classname", "light"), ("origin", "640 128 96"), ("light", "300"), ("style", "{east_style}")],"#
        );
    }
    let scene = parse(&format!(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (768, 256, 192)), medium: Air),
            (brush: Box(min: (376, 0, 0), max: (392, 256, 192)), medium: Solid),
            (brush: Box(min: (376, 112, 0), max: (392, 144, 96)), medium: Air),
        ], entities: [{lights}])"#
    ))
    .unwrap();
    compile_scene(&scene, &Default::default()).unwrap().0
}

/// Every surface's `width · height · 3` bytes of slot `slot`.
fn slot_bytes(level: &Level, s: &Surface, slot: usize) -> Vec<u8> {
    let (r, lm) = (s.lightmap.unwrap(), &level.lightmaps);
    let layer = (lm.width * lm.height * 3) as usize;
    let mut out = Vec::new();
    for j in 0..r.height {
        let row = slot * layer + (((r.y + j) * lm.width + r.x) * 3) as usize;
        out.extend_from_slice(&lm.texels[row..row + (r.width * 3) as usize]);
    }
    out
}

/// A style-5 light bakes into its own slot: the surfaces it reaches hold styles [0, 5], their
/// style-0 map is the steady light's alone and their style-5 map the styled light's alone (each
/// equal, byte for byte, to a bake of that light by itself); surfaces it cannot reach hold
/// style 0 only.
#[test]
fn a_styled_light_bakes_into_its_own_slot() {
    let both = two_light_room("5", true, true);
    let steady = two_light_room("0", true, false);
    let styled = two_light_room("0", false, true);
    assert_eq!(both.surfaces.len(), steady.surfaces.len());
    let (mut two, mut one) = (0, 0);
    for (i, s) in both.surfaces.iter().enumerate() {
        if s.lightmap.is_none() {
            continue;
        }
        let (a, b) = (&steady.surfaces[i], &styled.surfaces[i]);
        assert_eq!(
            slot_bytes(&both, s, 0),
            slot_bytes(&steady, a, 0),
            "surface {i}"
        );
        match s.styles.count() {
            2 => {
                assert_eq!(s.styles.0[..2], [0, 5]);
                assert_eq!(
                    slot_bytes(&both, s, 1),
                    slot_bytes(&styled, b, 0),
                    "surface {i}"
                );
                two += 1;
            }
            1 => {
                assert!(
                    slot_bytes(&styled, b, 0).iter().all(|&v| v == 0),
                    "surface {i}"
                );
                one += 1;
            }
            n => panic!("surface {i}: {n} styles"),
        }
    }
    assert!(
        two > 5 && one > 5,
        "{two} surfaces with the styled light, {one} without"
    );
    assert_eq!(both.lightmaps.layers(), 2);
}

/// Lights with a `targetname` get a switchable style per name (32 onwards, in order), written
/// back as their `style` key; one that starts off bakes into its style and the style starts
/// dark; an animated style with a name stays animated; a bad style is a warning.
#[test]
fn named_lights_get_switchable_styles_and_start_off_ones_bake() {
    let scene = parse(
        r#"Scene(ops: [(brush: Box(min: (0, 0, 0), max: (512, 256, 128)), medium: Air)],
        entities: [
            [("classname", "light"), ("origin", "64 128 64"), ("targetname", "hall")],
            [("classname", "light"), ("origin", "192 128 64"), ("targetname", "cellar"), ("spawnflags", "1")],
            [("classname", "light"), ("origin", "320 128 64"), ("targetname", "hall")],
            [("classname", "light"), ("origin", "448 128 64"), ("targetname", "torch"), ("style", "6")],
            [("classname", "light"), ("origin", "256 64 64"), ("style", "99")],
        ])"#,
    )
    .unwrap();
    let (level, stats) = compile_scene(&scene, &Default::default()).unwrap();
    let style = |i: usize| level.entities[i].get("style").map(str::to_string);
    let offset = level.entities.len() - 5;
    assert_eq!(
        (0..5).map(|k| style(offset + k)).collect::<Vec<_>>(),
        [Some("32"), Some("33"), Some("32"), Some("6"), Some("99")].map(|s| s.map(String::from))
    );
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w.contains("style 99 is not a light style")),
        "{:?}",
        stats.warnings
    );
    assert_eq!(
        lanthorn_level::styles::switched_off(&level.entities),
        1 << 1
    );
    // The start-off light is baked: the floor under it holds style 33.
    let floor_styles: std::collections::BTreeSet<u8> = level
        .surfaces
        .iter()
        .filter(|s| s.normal.z > 0.9)
        .flat_map(|s| s.styles.slots().collect::<Vec<_>>())
        .collect();
    assert!(floor_styles.contains(&33), "{floor_styles:?}");
    assert!(
        floor_styles.contains(&32) && floor_styles.contains(&6),
        "{floor_styles:?}"
    );
}

/// Six styles over one floor: it keeps style 0 and the three lowest others, and the compile
/// says how many surfaces lost styles.
#[test]
fn a_surface_keeps_four_styles() {
    let lights: String = [0, 1, 2, 3, 4, 5]
        .iter()
        .map(|s| {
            format!(
                r#"[("classname", "light"), ("origin", "{} 128 64"), ("light", "600"), ("style", "{s}")],"#,
                40 + s * 40
            )
        })
        .collect();
    let scene = parse(&format!(
        r#"Scene(ops: [(brush: Box(min: (0, 0, 0), max: (256, 256, 128)), medium: Air)],
        entities: [{lights}])"#
    ))
    .unwrap();
    let (level, stats) = compile_scene(&scene, &Default::default()).unwrap();
    let floor = level.surfaces.iter().find(|s| s.normal.z > 0.9).unwrap();
    assert_eq!(floor.styles.0, [0, 1, 2, 3]);
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w.contains("more than four styles")),
        "{:?}",
        stats.warnings
    );
}

/// Every floor luxel of a 1024² room with one light 96 units above its middle, against
/// `expected(distance, cos)` (the luxel value after the range scale): the largest difference
/// and the number of luxels compared.
fn floor_against(keys: &str, expected: impl Fn(f32, f32) -> f32) -> (f32, usize) {
    let scene = parse(&format!(
        r#"Scene(ops: [(brush: Box(min: (0, 0, 0), max: (1024, 1024, 256)), medium: Air)],
        entities: [[("classname", "light"), ("origin", "512 512 96"){keys}]])"#
    ))
    .unwrap();
    let (level, stats) = compile_scene(&scene, &Default::default()).unwrap();
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    let light = Vec3::new(512.0, 512.0, 96.0);
    let (mut worst, mut n) = (0.0f32, 0);
    for s in level.surfaces.iter().filter(|s| s.normal.z > 0.9) {
        let r = s.lightmap.unwrap();
        let frame = LuxelFrame::new(s, Vec3::ZERO).unwrap();
        let centre = s.vertices.iter().map(|v| v.position).sum::<Vec3>() / s.vertices.len() as f32;
        for j in 0..r.height {
            for i in 0..r.width {
                let grid = frame.position(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                let p = sample_point(grid, s, Vec3::ZERO, centre) + s.normal;
                let d = p.distance(light);
                let want = expected(d, (light.z - p.z) / d).clamp(0.0, 255.0);
                let texel = ((r.y + j) * level.lightmaps.width + r.x + i) as usize * 3;
                worst = worst.max((level.lightmaps.texels[texel] as f32 - want).abs());
                n += 1;
            }
        }
    }
    (worst, n)
}

/// The `delay` formulas as ericw-tools defines them, written out here (light 300, `wait` 2,
/// Quake's angle factor `0.5 + 0.5·cos`, the light tool's range scale 0.5), and `_anglescale`
/// 0 and 1; every floor luxel within 1 of the formula.
#[test]
fn delay_formulas_and_anglescale_follow_their_definitions() {
    let half = |cos: f32| 0.5 + 0.5 * cos;
    let cases: [(&str, Box<dyn Fn(f32, f32) -> f32>); 8] = [
        (
            "0",
            Box::new(|d, c| (300.0 - 2.0 * d).max(0.0) * half(c) * 0.5),
        ),
        (
            "1",
            Box::new(|d, c| 300.0 * 128.0 / (2.0 * d) * half(c) * 0.5),
        ),
        (
            "2",
            Box::new(|d, c| 300.0 * 16384.0 / (2.0 * d).powi(2) * half(c) * 0.5),
        ),
        ("3", Box::new(|_, c| 300.0 * half(c) * 0.5)),
        // Local minimum: the light's own value wherever it sees, no range scale, no angle.
        ("4", Box::new(|_, _| 300.0)),
        (
            "5",
            Box::new(|d, c| 300.0 * 16384.0 / (2.0 * d + 128.0).powi(2) * half(c) * 0.5),
        ),
        (
            "0\"), (\"_anglescale\", \"0",
            Box::new(|d, _| (300.0 - 2.0 * d).max(0.0) * 0.5),
        ),
        (
            "0\"), (\"_anglescale\", \"1",
            Box::new(|d, c| (300.0 - 2.0 * d).max(0.0) * c * 0.5),
        ),
    ];
    for (delay, formula) in cases {
        let keys = format!(r#", ("light", "300"), ("wait", "2"), ("delay", "{delay}")"#);
        let (worst, n) = floor_against(&keys, formula);
        assert!(n > 1000, "delay {delay}: {n} luxels");
        assert!(
            worst <= 1.0,
            "delay {delay}: a luxel {worst} off the formula"
        );
    }
}

/// Row y = 512 of a 1024² floor under a plate over x < 512 at z 150–152, lit from
/// (512, 512, 320) by a light with no falloff and no angle factor (`delay` 3, `_anglescale` 0:
/// 400 · the range scale, 200, wherever it is not shadowed): per floor luxel on the row over
/// x ∈ [256, 768), its centre's x and its share of the 200.
fn shadow_profile(light_keys: &str) -> Vec<(f32, f32)> {
    let scene = parse(&format!(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (1024, 1024, 400)), medium: Air),
            (brush: Box(min: (0, 0, 150), max: (512, 1024, 152)), medium: Solid),
        ], entities: [[("classname", "light"), ("origin", "512 512 320"), ("light", "400"),
            ("delay", "3"), ("_anglescale", "0"){light_keys}]])"#
    ))
    .unwrap();
    let level = compile_scene(&scene, &Default::default()).unwrap().0;
    let mut out = Vec::new();
    let floor = level
        .surfaces
        .iter()
        .filter(|s| s.normal.z > 0.9 && s.vertices[0].position.z < 1.0);
    for s in floor {
        let r = s.lightmap.unwrap();
        let frame = LuxelFrame::new(s, Vec3::ZERO).unwrap();
        for j in 0..r.height {
            for i in 0..r.width {
                let p = frame.position(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                if (p.y - 512.0).abs() < 8.0 && (256.0..768.0).contains(&p.x) {
                    let texel = ((r.y + j) * level.lightmaps.width + r.x + i) as usize * 3;
                    out.push((p.x, level.lightmaps.texels[texel] as f32 / 200.0));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(out.len() > 20, "{out:?}");
    out
}

/// The share of a ball of radius 64 around (512, 512, 320) that the floor point (x, 512, 1) sees
/// past the plate's edge (x = 512 at z = 151), by a dense grid of the ball's volume: a point q is
/// seen when the line to it crosses z = 151 at x ≥ 512.
fn visible_share(x: f32) -> f32 {
    let (mut seen, mut all) = (0, 0);
    let n = 48;
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let u = |k: i32| (k as f32 + 0.5) / n as f32 * 2.0 - 1.0;
                let d = Vec3::new(u(a), u(b), u(c));
                if d.length_squared() > 1.0 {
                    continue;
                }
                let q = Vec3::new(512.0, 512.0, 320.0) + d * 64.0;
                let t = 150.0 / (q.z - 1.0);
                all += 1;
                seen += (x + t * (q.x - x) >= 512.0) as u32;
            }
        }
    }
    seen as f32 / all as f32
}

/// A `_deviance` 64 light casts the plate's edge as the penumbra the geometry gives: every
/// luxel of the row within 0.06 of the share of the light's ball it sees (a dense grid's
/// count, not the light's own points), with luxels fully lit, fully dark and in between;
/// without deviance the edge is hard (at most one luxel between).
#[test]
fn deviance_gives_the_penumbra_the_geometry_gives() {
    let profile = shadow_profile(r#", ("_deviance", "64"), ("_samples", "256")"#);
    let mut worst = 0.0f32;
    for &(x, share) in &profile {
        worst = worst.max((share - visible_share(x)).abs());
    }
    let between = profile
        .iter()
        .filter(|p| (0.05..0.95).contains(&p.1))
        .count();
    eprintln!("deviance: {between} luxels in the penumbra, worst {worst:.3} from the geometry");
    assert!(
        worst <= 0.06,
        "a luxel {worst} off the share of the light it sees"
    );
    assert!(between >= 4, "{profile:?}");
    assert!(profile.first().unwrap().1 < 0.01 && profile.last().unwrap().1 > 0.99);
    let hard = shadow_profile("");
    let between = hard.iter().filter(|p| (0.05..0.95).contains(&p.1)).count();
    assert!(between <= 1, "a point light's edge: {hard:?}");
}

/// A closed room of one albedo ρ = 0.5 (a flat grey material) lit by one light: every bit of
/// light a wall re-emits lands on another wall, so the first bounce's light summed over the
/// walls is ρ times the direct light's sum (area-weighted means; every luxel is a 16-unit
/// square). Within 10 %.
#[test]
fn one_bounce_in_a_closed_room_returns_the_albedo_times_the_direct_light() {
    let scene = parse(
        r#"Scene(
        materials: [(name: "grey", source: Color((0.5, 0.5, 0.5)))],
        ops: [(brush: Box(min: (0, 0, 0), max: (512, 384, 256)), medium: Air, material: Some("grey"))],
        entities: [[("classname", "light"), ("origin", "160 200 180"), ("light", "300")]])"#,
    )
    .unwrap();
    let lit = |bounces: u32| {
        let options = lanthorn_compile::CompileOptions {
            bounces: Some(bounces),
            ..Default::default()
        };
        compile_scene(&scene, &options).unwrap().0
    };
    let (direct, bounced) = (lit(0), lit(1));
    let (mut d_sum, mut b_sum, mut n) = (0.0f64, 0.0f64, 0);
    for (s, t) in direct.surfaces.iter().zip(&bounced.surfaces) {
        if s.lightmap.is_none() {
            continue;
        }
        for (d, b) in slot_bytes(&direct, s, 0)
            .iter()
            .zip(slot_bytes(&bounced, t, 0))
        {
            assert!(b >= *d, "a bounce took light away");
            d_sum += *d as f64;
            b_sum += (b - d) as f64;
            n += 1;
        }
    }
    let ratio = b_sum / d_sum;
    eprintln!(
        "closed room: {n} luxels, direct mean {:.1}, bounce mean {:.1}, ratio {ratio:.3}",
        d_sum / n as f64,
        b_sum / n as f64
    );
    assert!(
        (ratio - 0.5).abs() <= 0.05,
        "bounce / direct = {ratio}, albedo 0.5"
    );
}

/// Sky light (`_sunlight2` L): a floor open to the whole sky gets the mean over the upper
/// hemisphere, uniform in solid angle, of `L · (0.5 + 0.5·cos)` — `0.75·L`, and the range
/// scale: `0.375·L` — wherever it is; a closed room gets none; the lower dome (`_sunlight3`)
/// cannot reach a floor through the ground under it.
#[test]
fn sky_dome_light_lights_what_sees_the_sky() {
    let floor_values = |worldspawn: &str, outdoor: bool| -> Vec<u8> {
        let outdoor = if outdoor {
            "outdoor: [Box(min: (0, 0, 0), max: (512, 512, 256))]"
        } else {
            ""
        };
        let scene = parse(&format!(
            r#"Scene(ops: [
                (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
                (brush: Box(min: (0, 0, -16), max: (512, 512, 0)), medium: Solid),
            ], entities: [[("classname", "worldspawn"){worldspawn}]], {outdoor})"#
        ))
        .unwrap();
        let level = compile_scene(&scene, &Default::default()).unwrap().0;
        level
            .surfaces
            .iter()
            .filter(|s| s.normal.z > 0.99 && s.vertices[0].position.z.abs() < 0.01)
            .flat_map(|s| slot_bytes(&level, s, 0).into_iter().step_by(3))
            .collect()
    };
    let open = floor_values(r#", ("_sunlight2", "400")"#, true);
    assert!(open.len() > 500);
    assert!(
        open.iter().all(|&v| v.abs_diff(150) <= 2),
        "{:?}",
        &open[..20]
    );
    let closed = floor_values(r#", ("_sunlight2", "400")"#, false);
    assert!(
        closed.iter().all(|&v| v == 0),
        "a closed room sees no sky: {:?}",
        &closed[..40]
    );
    let below = floor_values(r#", ("_sunlight3", "400")"#, true);
    assert!(
        below.iter().all(|&v| v == 0),
        "the lower dome lit the floor"
    );
}

/// Two rooms either side of a 16-unit wall, a bright light in the west one 8 units from the
/// wall (spread over a ball reaching 4 units from it, sampled 4×4 a luxel), sunlight and sky
/// light above the closed roof: not one luxel of the east room is lit — its wall bases and the
/// rows of luxels on its surfaces' edges included.
#[test]
fn light_never_leaks_through_a_16_unit_wall() {
    let scene = parse(
        r#"Scene(ops: [
            (brush: Box(min: (0, 0, 0), max: (256, 256, 128)), medium: Air),
            (brush: Box(min: (272, 0, 0), max: (528, 256, 128)), medium: Air),
        ], entities: [
            [("classname", "worldspawn"), ("_sunlight", "300"), ("_sunlight2", "300")],
            [("classname", "light"), ("origin", "248 128 64"), ("light", "800"), ("_deviance", "4")],
        ])"#,
    )
    .unwrap();
    let options = lanthorn_compile::CompileOptions {
        light_samples: 4,
        ..Default::default()
    };
    let level = compile_scene(&scene, &options).unwrap().0;
    let (mut east, mut west_lit) = (0, 0);
    for s in level.surfaces.iter().filter(|s| s.lightmap.is_some()) {
        let (lo, _) = bounds(s, Vec3::ZERO);
        let bytes = slot_bytes(&level, s, 0);
        if lo.x >= 272.0 {
            assert!(
                bytes.iter().all(|&v| v == 0),
                "east surface {:?} lit",
                s.normal
            );
            east += 1;
        } else {
            west_lit += bytes.iter().any(|&v| v > 0) as usize;
        }
    }
    assert!(
        east >= 5 && west_lit >= 5,
        "{east} east surfaces, {west_lit} lit west ones"
    );
}

/// A yard half under a roof with a lamp, a low sun, sky light and one bounce, baked with
/// daylight under style 0 and under `_sun_style` 12: every luxel's two slots add up to the
/// style-0 bake (each rounded once: within 1 of 255), the sunlit floor's daylight is all in
/// style 12, and the lamp's light (the roofed corner it alone reaches) stays in style 0.
#[test]
fn daylight_under_its_own_style_adds_up_to_the_steady_bake() {
    let yard = |sun_style: &str| {
        let scene = parse(&format!(
            r#"Scene(ops: [
                (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
                (brush: Box(min: (0, 0, 160), max: (256, 512, 256)), medium: Solid),
                (brush: Box(min: (0, 0, -16), max: (512, 512, 0)), medium: Solid),
            ], entities: [
                [("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "30 -50 0"),
                 ("_sunlight2", "100"), ("_bounce", "1"){sun_style}],
                [("classname", "light"), ("origin", "64 64 64"), ("light", "200")],
            ], outdoor: [Box(min: (0, 0, 0), max: (512, 512, 256))])"#
        ))
        .unwrap();
        compile_scene(&scene, &Default::default()).unwrap().0
    };
    let steady = yard("");
    let split = yard(r#", ("_sun_style", "12")"#);
    assert_eq!(steady.surfaces.len(), split.surfaces.len());
    let (mut with_daylight, mut daylight_sum, mut worst) = (0, 0u64, 0u8);
    for (i, s) in split.surfaces.iter().enumerate() {
        if s.lightmap.is_none() {
            continue;
        }
        let whole = slot_bytes(&steady, &steady.surfaces[i], 0);
        let lamp = slot_bytes(&split, s, 0);
        let day = match s.styles.slots().position(|st| st == 12) {
            Some(slot) => {
                with_daylight += 1;
                slot_bytes(&split, s, slot)
            }
            None => vec![0; lamp.len()],
        };
        for ((w, l), d) in whole.iter().zip(&lamp).zip(&day) {
            worst = worst.max(w.abs_diff(l.saturating_add(*d)));
            daylight_sum += *d as u64;
        }
    }
    println!("{with_daylight} surfaces with daylight, its sum {daylight_sum}, worst {worst}");
    assert!(with_daylight >= 2 && daylight_sum > 10_000);
    assert!(
        worst <= 1,
        "slots differ from the steady bake by up to {worst}"
    );
    // The open floor far from the lamp: daylight only.
    let floor = split
        .surfaces
        .iter()
        .filter(|s| s.normal.z > 0.99 && s.vertices[0].position.z.abs() < 0.01)
        .find(|s| bounds(s, Vec3::ZERO).0.x >= 256.0)
        .expect("the open floor");
    let lamp = slot_bytes(&split, floor, 0);
    assert!(lamp.iter().all(|&v| v <= 8), "{:?}", &lamp[..12]);
    assert_eq!(
        split.entities[0].get("_sun_style"),
        Some("12"),
        "the key stays"
    );
}

#[test]
fn a_bad_sun_style_is_a_warning_and_style_0() {
    for bad in ["5", "32", "x"] {
        let mut level = Level::default();
        level.entities.push(lanthorn_level::Entity {
            pairs: vec![
                ("classname".into(), "worldspawn".into()),
                ("_sunlight".into(), "100".into()),
                ("_sun_style".into(), bad.into()),
            ],
        });
        let lights = level_lights(&level);
        assert_eq!(lights.sun_style, 0);
        assert!(
            lights.warnings.iter().any(|w| w.contains("_sun_style")),
            "{:?}",
            lights.warnings
        );
    }
}
