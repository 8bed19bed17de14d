//! The wide formats against id's: one `.map` compiled by ericw-tools as BSP29, BSP2 and 2PSB
//! imports to the same level, whatever the layout of its records.

use std::path::{Path, PathBuf};

use super::lumps::BspFormat;
use super::{default_palette, load_with_palette};
use lanthorn_level::Level;
use lanthorn_testdata::{ericw_tool, id_map_in, run_ericw};

/// A scratch folder for one test's compiles.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `map` compiled by qbsp with `flags` into `out` and lit by light (ericw-tools); its format.
pub(super) fn compile(map: &Path, out: &Path, flags: &[&str]) -> Option<BspFormat> {
    let (qbsp, light) = (ericw_tool("qbsp")?, ericw_tool("light")?);
    let mut args: Vec<&std::ffi::OsStr> = flags.iter().map(|f| f.as_ref()).collect();
    args.extend([map.as_os_str(), out.as_os_str()]);
    run_ericw(&qbsp, &args);
    run_ericw(&light, &[out.as_os_str()]);
    let bytes = std::fs::read(out).unwrap();
    BspFormat::of([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// Where two levels first differ: the first section of their `.lvl` bytes that does.
fn first_difference(a: &Level, b: &Level) -> String {
    let (x, y) = (
        lanthorn_level::file::to_bytes(a),
        lanthorn_level::file::to_bytes(b),
    );
    let spans = lanthorn_level::file::section_spans(a);
    let section = spans
        .iter()
        .find(|(_, r)| x.get(r.clone()) != y.get(r.clone()))
        .map_or("the sections' sizes", |(name, _)| *name);
    format!("first in {section}")
}

/// dm3 compiled by ericw-tools' qbsp and light as BSP29, BSP2 (`-bsp2`) and 2PSB (`-2psb`):
/// the three files differ in every widened record, and import to the same level — surfaces,
/// cells, portals, lightmaps, entities, exactly (so the renderer draws the same frame).
#[test]
fn bsp29_bsp2_and_2psb_of_one_map_import_to_the_same_level() {
    three_formats_import_alike("dm3");
}

/// The same for every id map (minutes:
/// `cargo test --release -p lanthorn-import every_id_map_in_three -- --ignored --nocapture`).
#[test]
#[ignore]
fn every_id_map_in_three_formats_imports_to_the_same_level() {
    let dir = lanthorn_testdata::realdata_dir().join("quake/maps");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(String::from))
        .collect();
    names.sort();
    for name in names {
        three_formats_import_alike(&name);
        println!("{name}: BSP29, BSP2 and 2PSB import alike");
    }
}

/// `name`'s source compiled in the three Quake layouts imports to one level.
fn three_formats_import_alike(name: &str) {
    let dir = scratch(&format!("formats-{name}"));
    let Some(map) = id_map_in(&dir, name) else {
        return;
    };
    let mut levels = Vec::new();
    for (flags, format) in [
        (&[][..], BspFormat::Bsp29),
        (&["-bsp2"][..], BspFormat::Bsp2),
        (&["-2psb"][..], BspFormat::Bsp2Rmq),
    ] {
        let out = dir.join(format!("{name}-{}.bsp", format.name()));
        let Some(written) = compile(&map, &out, flags) else {
            return;
        };
        assert_eq!(written, format, "{}", out.display());
        let level = load_with_palette(&out, default_palette()).unwrap();
        levels.push((format, level));
    }
    let (_, bsp29) = &levels[0];
    assert!(bsp29.surfaces.len() > 500 && bsp29.cells.len() > 100);
    for (format, level) in &levels[1..] {
        assert!(
            level == bsp29,
            "{name}: {} imports differently from BSP29: {}",
            format.name(),
            first_difference(bsp29, level)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// dm3 with every light coloured (`_color` 255 128 64), compiled by qbsp and lit by ericw-tools'
/// light twice from the same BSP: `-lit` (a `.lit` beside it) and `-bspxlit` (the BSPX
/// `RGBLIGHTING` lump). Both import to the same level; its bright luxels have the light's hue;
/// without its `.lit` (or with one cut short, which is said) the map is grey.
#[test]
fn coloured_light_from_a_lit_file_and_from_bspx_is_the_same_and_has_the_lights_hue() {
    let dir = scratch("coloured");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let text = std::fs::read_to_string(&map).unwrap();
    // id's sources separate key and value with a tab.
    let coloured = text.replace(
        "\"classname\"\t\"light",
        "\"_color\" \"255 128 64\"\n\"classname\" \"light",
    );
    assert!(coloured.len() > text.len() + 100, "dm3 has lights");
    std::fs::write(&map, coloured).unwrap();
    let (Some(qbsp), Some(light)) = (ericw_tool("qbsp"), ericw_tool("light")) else {
        return;
    };
    let (lit_bsp, bspx_bsp) = (dir.join("lit.bsp"), dir.join("bspx.bsp"));
    run_ericw(&qbsp, &[map.as_os_str(), lit_bsp.as_os_str()]);
    // The copy takes qbsp's extended face flags along (sidecars named after the BSP).
    for ext in ["bsp", "texinfo.json", "content.json"] {
        let _ = std::fs::copy(lit_bsp.with_extension(ext), bspx_bsp.with_extension(ext));
    }
    run_ericw(&light, &["-lit".as_ref(), lit_bsp.as_os_str()]);
    run_ericw(&light, &["-bspxlit".as_ref(), bspx_bsp.as_os_str()]);
    let read = |p: &Path| std::fs::read(p).unwrap();
    let (a, b, lit) = (read(&lit_bsp), read(&bspx_bsp), read(&dir.join("lit.lit")));
    let describe = |bytes: &[u8], lit| super::describe(bytes, "dm3", lit).unwrap();
    assert_eq!(describe(&a, Some(&lit[..])).light, super::LightSource::Lit);
    assert_eq!(describe(&a, None).light, super::LightSource::Lump);
    let report = describe(&b, None);
    assert_eq!(report.light, super::LightSource::Bspx);
    assert!(
        report.bspx_lumps.iter().any(|n| n == "RGBLIGHTING"),
        "{report:?}"
    );

    let import = |bytes: &[u8], lit| super::import(bytes, "dm3", default_palette(), lit).unwrap();
    let (from_lit, said) = import(&a, Some(&lit[..]));
    assert!(said.is_empty(), "{said:?}");
    let (from_bspx, _) = import(&b, None);
    assert!(
        from_lit == from_bspx,
        ".lit and BSPX import differently: {}",
        first_difference(&from_lit, &from_bspx)
    );
    let [r, g, b] = bright_luxels_sum(&from_lit);
    println!("bright luxels: g/r {:.3}, b/r {:.3}", g / r, b / r);
    assert!(
        (g / r - 0.5).abs() < 0.05 && (b / r - 0.25).abs() < 0.05,
        "{r} {g} {b}"
    );

    let (grey, _) = import(&a, None);
    let [r, g, b] = bright_luxels_sum(&grey);
    assert!(r == g && g == b, "{r} {g} {b}");
    let (cut, said) = import(&a, Some(&lit[..lit.len() - 1]));
    assert_eq!(cut.lightmaps, grey.lightmaps);
    assert!(said.iter().any(|w| w.contains(".lit")), "{said:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summed RGB of a level's luxels whose brightest channel is over 64.
fn bright_luxels_sum(level: &Level) -> [f64; 3] {
    let mut sum = [0.0; 3];
    for t in level.lightmaps.texels.chunks_exact(3) {
        if t.iter().any(|&c| c > 64) {
            for k in 0..3 {
                sum[k] += t[k] as f64;
            }
        }
    }
    sum
}

/// dm3 lit by ericw-tools' light with `-lmshift 3` (luxels 8 texture units apart, said per face
/// in the BSPX `LMSHIFT` lump, the maps placed by `LMOFFSET`) and, from the same BSP, at the
/// default 16 units: the first imports without a warning, and where one of its luxels sits at
/// the same texture point as one of the 16-unit maps, light computed both at that point: they
/// agree (within 2 of 255) for 99 % of those luxels (the rest on faces' edges, where the light
/// tool nudges samples inside).
#[test]
fn a_face_lightmap_scale_from_lmshift_matches_the_16_unit_maps() {
    let dir = scratch("lmshift");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let (Some(qbsp), Some(light)) = (ericw_tool("qbsp"), ericw_tool("light")) else {
        return;
    };
    let (bsp, bsp16) = (dir.join("dm3.bsp"), dir.join("dm3-16.bsp"));
    run_ericw(&qbsp, &[map.as_os_str(), bsp.as_os_str()]);
    for ext in ["bsp", "texinfo.json", "content.json"] {
        let _ = std::fs::copy(bsp.with_extension(ext), bsp16.with_extension(ext));
    }
    run_ericw(
        &light,
        &["-lmshift".as_ref(), "3".as_ref(), bsp.as_os_str()],
    );
    run_ericw(&light, &[bsp16.as_os_str()]);
    let bytes = std::fs::read(&bsp).unwrap();
    let report = super::describe(&bytes, "dm3", None).unwrap();
    assert!(
        report.bspx_lumps.iter().any(|n| n == "LMSHIFT"),
        "{report:?}"
    );
    let (fine, said) = super::import(&bytes, "dm3", default_palette(), None).unwrap();
    assert!(said.is_empty(), "{said:?}");
    let (coarse, _) = super::import(
        &std::fs::read(&bsp16).unwrap(),
        "dm3",
        default_palette(),
        None,
    )
    .unwrap();
    let l = super::lumps::read(&bytes, "dm3").unwrap();
    let (mut same, mut pairs) = (0, 0);
    for (i, (a, b)) in fine.surfaces.iter().zip(&coarse.surfaces).enumerate() {
        let (Some(ra), Some(rb)) = (a.lightmap, b.lightmap) else {
            continue;
        };
        let g = super::faces::face_geom(&l, i, usize::MAX, "dm3").unwrap();
        let (ea, eb) = (
            super::faces::extents(&g.texinfo, &g.points, 8.0),
            super::faces::extents(&g.texinfo, &g.points, 16.0),
        );
        if (ra.width, ra.height) != (ea.size[0] as u32, ea.size[1] as u32) {
            continue; // an unlit face's single luxel
        }
        for y in 0..ra.height {
            for x in 0..ra.width {
                // The texture point of the finer luxel, and the vanilla luxel there if any.
                let s = (ea.min_luxel[0] + x as i64) * 8;
                let t = (ea.min_luxel[1] + y as i64) * 8;
                let (kx, ky) = (s - eb.min_luxel[0] * 16, t - eb.min_luxel[1] * 16);
                if kx % 16 != 0 || ky % 16 != 0 {
                    continue;
                }
                let (kx, ky) = ((kx / 16) as u32, (ky / 16) as u32);
                if kx >= rb.width || ky >= rb.height {
                    continue;
                }
                let va = luxel(&fine, ra.x + x, ra.y + y);
                let vb = luxel(&coarse, rb.x + kx, rb.y + ky);
                pairs += 1;
                same += usize::from(va.iter().zip(&vb).all(|(p, q)| p.abs_diff(*q) <= 2));
            }
        }
    }
    println!("{same} of {pairs} luxels at the same texture point agree");
    assert!(
        pairs > 10_000 && same * 100 >= pairs * 99,
        "{same} of {pairs}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The RGB of atlas texel (x, y), style slot 0.
fn luxel(level: &Level, x: u32, y: u32) -> [u8; 3] {
    let lm = &level.lightmaps;
    let at = (y as usize * lm.width as usize + x as usize) * 3;
    [lm.texels[at], lm.texels[at + 1], lm.texels[at + 2]]
}

/// e1m2 compiled by ericw-tools' qbsp (lit water by default since 2.0: liquids without the
/// SPECIAL flag, not merged into large faces) and lit: its liquid faces carry lightmaps the
/// import keeps, lit like any face; with `-litwater 0`, and as id compiled it, its liquids
/// have none (fullbright).
#[test]
fn lit_water_keeps_its_lightmaps_and_other_liquids_stay_fullbright() {
    let dir = scratch("litwater");
    let Some(map) = id_map_in(&dir, "e1m2") else {
        return;
    };
    let liquid_lightmaps = |flags: &[&str], out: &str| {
        let out = dir.join(out);
        compile(&map, &out, flags)?;
        let level = load_with_palette(&out, default_palette()).unwrap();
        let liquids: Vec<_> = level
            .surfaces
            .iter()
            .filter(|s| s.flags & lanthorn_level::surface_flags::LIQUID != 0)
            .collect();
        let lit = liquids
            .iter()
            .filter_map(|s| s.lightmap)
            .collect::<Vec<_>>();
        let means: Vec<f64> = lit.iter().map(|&r| mean_luxel(&level, r)).collect();
        Some((liquids.len(), means))
    };
    let Some((liquids, means)) = liquid_lightmaps(&[], "lit.bsp") else {
        return;
    };
    println!("{} of {liquids} liquid faces lit", means.len());
    assert!(
        liquids > 50 && means.len() == liquids,
        "{} of {liquids}",
        means.len()
    );
    // Lit: neither black nor uniformly full.
    let lo = means.iter().copied().fold(f64::MAX, f64::min);
    let hi = means.iter().copied().fold(0.0, f64::max);
    assert!(hi > 20.0 && hi - lo > 10.0, "{lo} .. {hi}");
    let Some((liquids, means)) = liquid_lightmaps(&["-litwater", "0"], "unlit.bsp") else {
        return;
    };
    assert!(
        liquids > 50 && means.is_empty(),
        "{} of {liquids}",
        means.len()
    );
    let id = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m2.bsp");
    let level = load_with_palette(&id, default_palette()).unwrap();
    let liquid =
        |s: &&lanthorn_level::Surface| s.flags & lanthorn_level::surface_flags::LIQUID != 0;
    assert!(level
        .surfaces
        .iter()
        .filter(liquid)
        .all(|s| s.lightmap.is_none()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The mean of a lightmap rectangle's luxels (style slot 0, all channels).
fn mean_luxel(level: &Level, r: lanthorn_level::LightmapRect) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for y in r.y..r.y + r.height {
        for x in r.x..r.x + r.width {
            sum += luxel(level, x, y)
                .iter()
                .map(|&c| f64::from(c))
                .sum::<f64>()
                / 3.0;
            n += 1.0;
        }
    }
    sum / n
}

/// dm3 compiled by ericw-tools as Half-Life's BSP30 (`qbsp -hlbsp`, its wad rewritten as WAD3
/// so every texture carries its palette, then light: RGB light) against its BSP29 compile
/// (its liquids made solid in both: Half-Life names water `!`). qbsp builds a slightly other
/// tree for Half-Life, so the check is what must not differ: the same textures with the same
/// colours (their palettes are Quake's; none fullbright), each texture on the same area (within 0.5 %), grey
/// light (white lamps) of the same mean (within 3 %).
/// With one texture's palette turned (red and blue swapped) only that texture's texels turn:
/// each texture's own palette is read.
#[test]
fn half_life_bsp30_imports_like_bsp29_with_each_textures_own_palette() {
    let dir = scratch("bsp30");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let palette = default_palette().expect("the shared palette");
    let wad2 = std::fs::read(dir.join("gfx/base.wad")).unwrap();
    let wad3 = lanthorn_testdata::wad3_from_wad2(&wad2, palette);
    std::fs::write(dir.join("gfx/base3.wad"), wad3).unwrap();
    let text = std::fs::read_to_string(&map).unwrap().replace(") *", ") ");
    std::fs::write(&map, &text).unwrap();
    let hl_map = dir.join("dm3hl.map");
    std::fs::write(&hl_map, text.replace("gfx/base.wad", "gfx/base3.wad")).unwrap();
    let (quake, hl) = (dir.join("dm3.bsp"), dir.join("dm3hl.bsp"));
    if compile(&map, &quake, &[]).is_none() {
        return;
    }
    assert_eq!(compile(&hl_map, &hl, &["-hlbsp"]), Some(BspFormat::Hl30));
    let bsp29 = load_with_palette(&quake, Some(palette)).unwrap();
    let mut bytes = std::fs::read(&hl).unwrap();
    let (bsp30, said) = super::import(&bytes, "dm3hl", None, None).unwrap();
    assert!(said.is_empty(), "{said:?}");
    // The same textures and colours (Half-Life has no fullbright palette range).
    assert_eq!(bsp30.materials.len(), bsp29.materials.len());
    for (a, b) in bsp30.materials.iter().zip(&bsp29.materials) {
        let same =
            (&a.name, a.width, a.height, &a.texels) == (&b.name, b.width, b.height, &b.texels);
        assert!(same && a.fullbright.is_none(), "texture {} differs", a.name);
    }
    let (a30, a29) = (area_by_material(&bsp30), area_by_material(&bsp29));
    for (k, (x, y)) in a30.iter().zip(&a29).enumerate() {
        assert!(
            (x - y).abs() <= 0.005 * y.max(1.0),
            "texture {k}: {x} against {y}"
        );
    }
    let grey = |l: &Level| {
        l.lightmaps
            .texels
            .chunks(3)
            .all(|t| t[0] == t[1] && t[1] == t[2])
    };
    assert!(grey(&bsp30) && grey(&bsp29));
    let mean = |l: &Level| {
        l.surfaces
            .iter()
            .filter_map(|s| s.lightmap)
            .map(|r| mean_luxel(l, r))
            .sum::<f64>()
    };
    let (m30, m29) = (mean(&bsp30), mean(&bsp29));
    println!("light: BSP30 {m30:.0}, BSP29 {m29:.0}");
    assert!((m30 - m29).abs() <= 0.03 * m29, "{m30} against {m29}");

    // Texture 1's palette, red and blue swapped.
    let l = super::lumps::read(&bytes, "dm3hl").unwrap();
    let textures_at = l.textures.as_ptr() as usize - bytes.as_ptr() as usize;
    let int = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let m = textures_at + int(&bytes, textures_at + 8);
    let (w, h) = (int(&bytes, m + 16), int(&bytes, m + 20));
    let colours = m + int(&bytes, m + 36) + (w / 8) * (h / 8) + 2;
    for c in bytes[colours..colours + 768].chunks_exact_mut(3) {
        c.swap(0, 2);
    }
    let (turned, _) = super::import(&bytes, "dm3hl", None, None).unwrap();
    for (k, (a, b)) in turned.materials.iter().zip(&bsp30.materials).enumerate() {
        if k == 1 {
            let (ta, tb) = (a.texels.as_ref().unwrap(), b.texels.as_ref().unwrap());
            assert_ne!(ta, tb);
            assert!(ta
                .chunks(4)
                .zip(tb.chunks(4))
                .all(|(p, q)| p == [q[2], q[1], q[0], q[3]]));
        } else {
            assert!(a.texels == b.texels, "texture {k} ({}) changed", a.name);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Per material, the area of the level's surfaces that show it.
fn area_by_material(level: &Level) -> Vec<f64> {
    let mut area = vec![0.0; level.materials.len()];
    for s in &level.surfaces {
        for t in s.indices.chunks_exact(3) {
            let p = |k: u32| s.vertices[k as usize].position.as_dvec3();
            area[s.material as usize] +=
                (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() / 2.0;
        }
    }
    area
}

/// dm3 compiled as BSP30 twice: with its textures embedded, and with them left in the WAD3
/// file (`-xwadpath`: the map names them and lists the wad in its `wad` key). Loaded from disk,
/// the second finds the wad beside it and has the first's textures, texel for texel; without
/// the wad its textures keep their sizes only.
#[test]
fn half_life_textures_kept_in_a_wad3_file_are_found_beside_the_map() {
    let dir = scratch("wad3");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let palette = default_palette().expect("the shared palette");
    let wad2 = std::fs::read(dir.join("gfx/base.wad")).unwrap();
    std::fs::write(
        dir.join("gfx/base3.wad"),
        lanthorn_testdata::wad3_from_wad2(&wad2, palette),
    )
    .unwrap();
    let text = std::fs::read_to_string(&map).unwrap().replace(") *", ") ");
    std::fs::write(&map, text.replace("gfx/base.wad", "gfx/base3.wad")).unwrap();
    let (embedded, external) = (dir.join("embedded.bsp"), dir.join("external.bsp"));
    if compile(&map, &embedded, &["-hlbsp"]).is_none() {
        return;
    }
    // The wad key's path is relative to the wad path.
    compile(
        &map,
        &external,
        &["-hlbsp", "-xwadpath", dir.to_str().unwrap()],
    );
    let with = super::load(&embedded).unwrap();
    let from_wad = super::load(&external).unwrap();
    let textured = |l: &Level| l.materials.iter().filter(|m| m.texels.is_some()).count();
    assert!(textured(&with) > 40, "{}", textured(&with));
    assert_eq!(textured(&from_wad), textured(&with));
    for (a, b) in from_wad.materials.iter().zip(&with.materials) {
        assert!(a.texels == b.texels, "texture {} differs", a.name);
    }
    std::fs::remove_file(dir.join("gfx/base3.wad")).unwrap();
    let without = super::load(&external).unwrap();
    assert_eq!(textured(&without), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// dm3 lit from the same BSP by ericw-tools' light at 16 units a luxel twice: along each face's
/// texture (the default) and in a projection of its own (`-world_units_per_luxel 16`: BSPX
/// `DECOUPLED_LM`). At each lit face's centroid both maps, sampled bilinearly where the import
/// puts the centroid, hold the same light: within 6 of 255 on 99 % of the faces (all 3,640
/// on 2026-12-06; with the luxel centres put half a luxel off either way, 83 %).
#[test]
fn a_decoupled_lightmap_projection_holds_the_same_light_as_the_texture_aligned_one() {
    let dir = scratch("decoupled");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let (Some(qbsp), Some(light)) = (ericw_tool("qbsp"), ericw_tool("light")) else {
        return;
    };
    let (own, aligned) = (dir.join("own.bsp"), dir.join("aligned.bsp"));
    run_ericw(&qbsp, &[map.as_os_str(), own.as_os_str()]);
    for ext in ["bsp", "texinfo.json", "content.json"] {
        let _ = std::fs::copy(own.with_extension(ext), aligned.with_extension(ext));
    }
    let units = ["-world_units_per_luxel".as_ref(), "16".as_ref()];
    run_ericw(&light, &[&units[..], &[own.as_os_str()]].concat());
    run_ericw(&light, &[aligned.as_os_str()]);
    let bytes = std::fs::read(&own).unwrap();
    let report = super::describe(&bytes, "dm3", None).unwrap();
    assert!(
        report.bspx_lumps.iter().any(|n| n == "DECOUPLED_LM"),
        "{report:?}"
    );
    let (a, said) = super::import(&bytes, "dm3", default_palette(), None).unwrap();
    assert!(said.is_empty(), "{said:?}");
    let (b, _) = super::import(
        &std::fs::read(&aligned).unwrap(),
        "dm3",
        default_palette(),
        None,
    )
    .unwrap();
    let (mut faces, mut close) = (0, 0);
    for (sa, sb) in a.surfaces.iter().zip(&b.surfaces) {
        let (Some(ra), Some(rb)) = (sa.lightmap, sb.lightmap) else {
            continue;
        };
        if ra.width * ra.height <= 1 || rb.width * rb.height <= 1 {
            continue;
        }
        let centre = |s: &lanthorn_level::Surface| {
            s.vertices.iter().map(|v| v.lightmap_uv).sum::<glam::Vec2>() / s.vertices.len() as f32
        };
        let (la, lb) = (bilinear(&a, ra, centre(sa)), bilinear(&b, rb, centre(sb)));
        faces += 1;
        close += usize::from((la - lb).abs() <= 6.0);
    }
    println!("{close} of {faces} faces agree at their centroid");
    assert!(
        faces > 1000 && close * 100 >= faces * 99,
        "{close} of {faces}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lightmap rectangle's light (mean of the channels, style slot 0) at `uv` (luxels from its
/// corner, centres at k + 0.5), bilinear, clamped to the rectangle.
fn bilinear(level: &Level, r: lanthorn_level::LightmapRect, uv: glam::Vec2) -> f32 {
    let at = |x: i64, y: i64| {
        let x = x.clamp(0, r.width as i64 - 1) as u32;
        let y = y.clamp(0, r.height as i64 - 1) as u32;
        luxel(level, r.x + x, r.y + y)
            .iter()
            .map(|&c| f32::from(c))
            .sum::<f32>()
            / 3.0
    };
    let p = uv - 0.5;
    let (x0, y0) = (p.x.floor() as i64, p.y.floor() as i64);
    let (fx, fy) = (p.x - p.x.floor(), p.y - p.y.floor());
    let top = at(x0, y0) * (1.0 - fx) + at(x0 + 1, y0) * fx;
    let bottom = at(x0, y0 + 1) * (1.0 - fx) + at(x0 + 1, y0 + 1) * fx;
    top * (1.0 - fy) + bottom * fy
}

/// dm3 lit by ericw-tools' light with `-lightgrid` (the BSPX `LIGHTGRID_OCTREE` lump): the
/// import holds the grid for moving objects, sound by Lanthorn's own checks; its points are
/// where the compiler put them — a point holds light exactly where the level has a cell (in
/// open space), not in solid, for 97 % of the points (the rest within a step of a wall, where
/// the compiler nudges its samples) — and its light follows the light of the floor under each
/// point (Quake's `R_LightPoint` on the same map's lightmaps): correlation over 0.5.
#[test]
fn the_compilers_light_grid_lights_objects_where_the_map_is_open() {
    let dir = scratch("lightgrid");
    let Some(map) = id_map_in(&dir, "dm3") else {
        return;
    };
    let (Some(qbsp), Some(light)) = (ericw_tool("qbsp"), ericw_tool("light")) else {
        return;
    };
    let bsp = dir.join("dm3.bsp");
    run_ericw(&qbsp, &[map.as_os_str(), bsp.as_os_str()]);
    run_ericw(&light, &["-lightgrid".as_ref(), bsp.as_os_str()]);
    let bytes = std::fs::read(&bsp).unwrap();
    let (level, said) = super::import(&bytes, "dm3", default_palette(), None).unwrap();
    assert!(said.is_empty(), "{said:?}");
    let grid = level.light_grid.as_ref().expect("the compiler's grid");
    grid.check().unwrap();
    let (mut agree, mut points) = (0, 0);
    let mut pairs = Vec::new();
    let scales = [1.0; lanthorn_level::styles::MAX_STYLES];
    for k in 0..grid.size[2] {
        for j in 0..grid.size[1] {
            for i in 0..grid.size[0] {
                let p = grid.position([i, j, k]);
                let at = grid.index([i, j, k]);
                let lit = grid.styles[at].count() > 0;
                points += 1;
                agree += usize::from(lit == level.locate(p).is_some());
                if !lit || grid.styles[at].0[0] != 0 {
                    continue;
                }
                let floor = lanthorn_light::point::light_below(&level, p, &scales, 1.0);
                if let Some(f) = floor.filter(|f| f[0] < 1.0) {
                    let g = grid.slots[grid.first[at] as usize].eval(glam::Vec3::Z).x;
                    pairs.push((g as f64, f[0] as f64 * 255.0));
                }
            }
        }
    }
    let r = lanthorn_testdata::correlation(&pairs);
    println!(
        "{:?} points of {}: {agree} of {points} agree with the cells; light against the floor \
         below at {} points: correlation {r:.2}",
        grid.size,
        grid.spacing,
        pairs.len()
    );
    assert!(
        points > 1000 && agree * 100 >= points * 97,
        "{agree} of {points}"
    );
    assert!(pairs.len() > 500 && r > 0.5, "{} {r}", pairs.len());
    // The lump damaged 2,000 ways (bytes changed, cut short): never a panic, and every grid
    // read passes Lanthorn's checks.
    let bspx = super::bspx::lumps(&bytes, "dm3").unwrap();
    let lump = bspx
        .iter()
        .find(|x| x.name == "LIGHTGRID_OCTREE")
        .unwrap()
        .data;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..2000 {
        let mut m = lump.to_vec();
        if next() % 4 == 0 {
            m.truncate((next() % m.len() as u64) as usize);
        } else {
            for _ in 0..1 + next() % 4 {
                let at = (next() % m.len().min(4096) as u64) as usize;
                m[at] = next() as u8;
            }
        }
        if let Ok(g) = super::lightgrid::read(&m) {
            g.check().unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
