// A sample level with every section filled reads best whole.
#![allow(clippy::too_many_lines)]

use super::*;
use crate::*;
use glam::{Vec2, Vec3};
use lanthorn_geom::{Aabb, Plane};

/// A small level with every field and option filled, and indices that hold together.
pub(crate) fn sample() -> Level {
    let v = |x: f32, y: f32, z: f32| Vertex {
        position: Vec3::new(x, y, z),
        uv: Vec2::new(x / 64.0, y / 64.0),
        lightmap_uv: Vec2::new(x / 16.0, y / 16.0 + 0.5),
    };
    let surf = |m: u32, flags: u32, rect: Option<LightmapRect>| Surface {
        vertices: vec![
            v(0.0, 0.0, 0.0),
            v(64.0, 0.0, 0.0),
            v(64.0, 64.0, 0.0),
            v(0.0, 64.0, -0.0),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        normal: Vec3::Z,
        material: m,
        lightmap: rect,
        styles: LightStyles::default(),
        flags,
    };
    let cell = |medium, x0: f32| Cell {
        planes: vec![
            Plane::new(Vec3::X, x0),
            Plane::new(-Vec3::X, -(x0 + 64.0)),
            Plane::new(Vec3::Z, 0.0),
        ],
        aabb: Aabb::new(Vec3::new(x0, 0.0, 0.0), Vec3::new(x0 + 64.0, 64.0, 64.0)),
        medium,
        flags: cell_flags::SKY_VISIBLE,
        portals: vec![0],
        surfaces: vec![0, 1],
    };
    Level {
        cells: vec![cell(Medium::Air, 0.0), cell(Medium::Water, 64.0)],
        portals: vec![Portal {
            polygon: vec![
                Vec3::new(64.0, 0.0, 0.0),
                Vec3::new(64.0, 64.0, 0.0),
                Vec3::new(64.0, 64.0, 64.0),
            ],
            plane: Plane::new(-Vec3::X, -64.0),
            front: 0,
            back: 1,
            transform: Some([
                1.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                5.0,
                f32::NAN,
                0.0,
                1.0,
            ]),
            flags: portal_flags::LIQUID_SURFACE,
        }],
        surfaces: vec![
            Surface {
                // A Quake face with two light styles: slot 1 in atlas layer 1.
                styles: LightStyles([0, 10, styles::NO_STYLE, styles::NO_STYLE]),
                ..surf(
                    0,
                    0,
                    Some(LightmapRect {
                        x: 0,
                        y: 0,
                        width: 5,
                        height: 5,
                    }),
                )
            },
            surf(1, surface_flags::SKY, None),
            surf(
                0,
                surface_flags::LIQUID,
                Some(LightmapRect {
                    x: 5,
                    y: 2,
                    width: 3,
                    height: 6,
                }),
            ),
        ],
        bsp: Bsp {
            nodes: vec![BspNode {
                plane: Plane::new(Vec3::X, 64.0),
                children: [BspChild::Leaf(1), BspChild::Leaf(0)],
                aabb: Aabb::new(Vec3::ZERO, Vec3::new(128.0, 64.0, 64.0)),
            }],
            leaves: vec![BspLeaf { cells: vec![0] }, BspLeaf { cells: vec![1] }],
            root: Some(BspChild::Node(0)),
        },
        materials: vec![
            Material {
                name: "wall".into(),
                width: 2,
                height: 1,
                texels: Some(vec![1, 2, 3, 255, 4, 5, 6, 255]),
                fullbright: Some(vec![0, 255]),
                color: [0.5, 0.25, 1.0],
                flags: 0,
                normal: Some(vec![128, 128, 255, 255, 200, 128, 220, 255]),
                specular: Some(vec![40, 40, 40, 128, 0, 0, 0, 0]),
                scroll: [0.0; 2],
                animation: None,
            },
            Material {
                name: "sky1 ünïcode".into(),
                width: 64,
                height: 64,
                texels: None,
                fullbright: None,
                color: [0.1, 0.2, 0.3],
                flags: material_flags::SKY,
                normal: None,
                specular: None,
                scroll: [0.0; 2],
                animation: None,
            },
        ],
        lightmaps: Lightmaps {
            width: 8,
            height: 8,
            texels: (0..8 * 8 * 3 * 2).map(|i| i as u8).collect(),
        },
        objects: vec![Object {
            name: "func_door".into(),
            surfaces: vec![2],
            bounds: Aabb::new(Vec3::ZERO, Vec3::splat(64.0)),
            origin: Vec3::new(1.0, 2.0, 3.0),
            entity: Some(1),
            motion: Some(Motion {
                points: vec![Vec3::ZERO, Vec3::new(0.0, 0.0, 56.0)],
                speed: 32.0,
                wait: 2.5,
                phase: 0.25,
            }),
            closes: vec![0],
        }],
        entities: vec![
            Entity {
                pairs: vec![
                    ("classname".into(), "worldspawn".into()),
                    ("wad".into(), "base.wad".into()),
                ],
            },
            Entity {
                pairs: vec![("classname".into(), "func_door".into())],
            },
        ],
        sky: Some(Sky {
            material: Some(1),
            cubemap: Some("sky/day".into()),
            faces: None,
            clouds: None,
        }),
        terrain: Some(TerrainRef {
            heightmap: "procedural:1024".into(),
            origin: Vec3::new(0.0, 0.0, -100.0),
            horizontal_scale: 8.0,
            vertical_scale: 0.5,
        }),
        pvs: Some(Pvs {
            row_bytes: 1,
            rows: vec![0b11, 0b10],
        }),
        light_grid: Some(sample_grid()),
        leak: Some(LeakPath {
            entity: "info_player_start".into(),
            line: 42,
            points: vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, 5.0)],
            crossings: vec!["entity 0 (worldspawn) brush 3 (line 40): func_detail".into()],
        }),
    }
}

/// Two points: one lit by style 0 and daylight's style 12, one in solid.
fn sample_grid() -> LightGrid {
    let mut lit = lanthorn_geom::sh::Sh9::ZERO;
    lit.add_light(Vec3::Z, Vec3::new(100.0, 90.0, 80.0), 0.5);
    let mut day = lanthorn_geom::sh::Sh9::ZERO;
    day.add_uniform(Vec3::splat(12.5));
    let styles = vec![
        LightStyles([0, 12, styles::NO_STYLE, styles::NO_STYLE]),
        LightStyles([styles::NO_STYLE; 4]),
    ];
    LightGrid {
        origin: Vec3::new(8.0, 8.0, 8.0),
        spacing: Vec3::new(32.0, 32.0, 64.0),
        size: [2, 1, 1],
        minlight: 10.0,
        sun_style: 12,
        first: LightGrid::firsts(&styles),
        styles,
        slots: vec![lit, day],
        sun: Some(GridSun {
            direction: Vec3::new(0.6, 0.0, -0.8),
            rgb: Vec3::new(120.0, 110.0, 90.0),
        }),
        sun_visible: vec![255, 0],
    }
}

/// The leak section is optional and last: a level without one is the file layout from
/// before it existed (the same bytes less the section, the payload length
/// reduced by it), and it loads.
#[test]
fn the_leak_section_is_optional_and_last() {
    let with = to_bytes(&sample());
    let without = to_bytes(&Level {
        leak: None,
        ..sample()
    });
    let leak = sample().leak.unwrap();
    let crossings = 4 + leak.crossings.iter().map(|c| 4 + c.len()).sum::<usize>();
    let section = 4 + leak.entity.len() + 4 + 4 + 2 * 12 + crossings;
    assert_eq!(with.len(), without.len() + section);
    assert_eq!(with[20..with.len() - section], without[20..]);
    let len = |b: &[u8]| u64::from_le_bytes(b[12..20].try_into().unwrap());
    assert_eq!(len(&with), len(&without) + section as u64);
    assert_eq!(from_bytes(&without).unwrap().leak, None);
    assert_eq!(from_bytes(&with).unwrap().leak, Some(leak.clone()));
    // A leak section from before the crossings were stored ends after its points: it loads,
    // with none.
    let mut older = with[..with.len() - crossings].to_vec();
    let shorter = len(&with) - crossings as u64;
    older[12..20].copy_from_slice(&shorter.to_le_bytes());
    let loaded = from_bytes(&older).unwrap().leak.unwrap();
    assert_eq!(loaded.points, leak.points);
    assert!(loaded.crossings.is_empty());
}

#[test]
fn round_trip_is_byte_identical_and_equal() {
    let level = sample();
    let a = to_bytes(&level);
    let loaded = from_bytes(&a).unwrap();
    let b = to_bytes(&loaded);
    assert_eq!(a, b);
    // NaN != NaN, so compare field by field where it matters and everything else by bytes.
    assert_eq!(loaded.cells, level.cells);
    assert_eq!(loaded.surfaces, level.surfaces);
    assert_eq!(loaded.materials, level.materials);
    assert_eq!(loaded.bsp, level.bsp);
    assert_eq!(loaded.objects, level.objects);
    assert_eq!(loaded.entities, level.entities);
    assert_eq!(loaded.sky, level.sky);
    assert_eq!(loaded.terrain, level.terrain);
    assert_eq!(loaded.pvs, level.pvs);
    assert_eq!(loaded.leak, level.leak);
    assert_eq!(loaded.lightmaps, level.lightmaps);
    assert!(loaded.portals[0].transform.unwrap()[13].is_nan());
    // Options left empty survive too.
    let mut empty = Level::default();
    empty.cells.push(Cell::default());
    let e = to_bytes(&empty);
    assert_eq!(to_bytes(&from_bytes(&e).unwrap()), e);
}

#[test]
fn save_and_load_through_a_file() {
    let dir = std::env::temp_dir().join(format!("lanthorn-lvl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sample.lvl");
    save(&sample(), &path).unwrap();
    let loaded = load_lvl(&path).unwrap();
    assert_eq!(to_bytes(&loaded), to_bytes(&sample()));
    // No temp file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // An inconsistent level is refused and the old file stays.
    let mut bad = sample();
    bad.cells[0].portals.push(9);
    assert!(save(&bad, &path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), to_bytes(&sample()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = to_bytes(&sample());
    for n in 0..bytes.len() {
        assert!(
            from_bytes(&bytes[..n]).is_err(),
            "prefix of {n} bytes loaded"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(from_bytes(&long).is_err());
}

#[test]
fn version_1_files_still_load_with_style_0_everywhere() {
    let mut level = sample();
    level.surfaces[0].styles = LightStyles::default();
    level.lightmaps.texels.truncate(8 * 8 * 3);
    // Versions 1 and 2 had no motions.
    level.objects[0].motion = None;
    level.objects[0].closes.clear();
    let v1 = to_bytes_of_version(&level, 1);
    assert_eq!(&v1[8..12], &1u32.to_le_bytes());
    // Version 1 had no style bytes: 4 fewer per surface.
    let v2 = to_bytes_of_version(&level, 2);
    assert_eq!(v2.len() - v1.len(), 4 * level.surfaces.len());
    // Version 3 adds a motion flag and the closed portals' count per object.
    level.light_grid = None;
    let v3 = to_bytes_of_version(&level, 3);
    assert_eq!(v3.len() - v2.len(), 5 * level.objects.len());
    // Version 4 adds the light grid's flag (none here: older versions had no grid).
    let v4 = to_bytes_of_version(&level, 4);
    assert_eq!(v4.len() - v3.len(), 1);
    // Version 5 adds each material's normal and specular maps (none here: older versions had
    // none): two absent-flags a material.
    for m in &mut level.materials {
        m.normal = None;
        m.specular = None;
    }
    assert_eq!(to_bytes(&level).len() - v4.len(), 2 * level.materials.len());
    assert_eq!(to_bytes(&from_bytes(&v2).unwrap()), to_bytes(&level));
    assert_eq!(to_bytes(&from_bytes(&v3).unwrap()), to_bytes(&level));
    assert_eq!(to_bytes(&from_bytes(&v4).unwrap()), to_bytes(&level));
    let back = from_bytes(&v1).unwrap();
    // (The sample holds a NaN, so compare the images, not the levels.)
    assert_eq!(to_bytes(&back), to_bytes(&level));
    assert!(back
        .surfaces
        .iter()
        .all(|s| s.styles == LightStyles([0, 255, 255, 255])));
    // A two-layer atlas and a two-style surface round-trip in version 2.
    let two = sample();
    assert_eq!(two.lightmaps.layers(), 2);
    assert_eq!(
        to_bytes(&from_bytes(&to_bytes(&two)).unwrap()),
        to_bytes(&two)
    );
}

/// A light grid whose tables disagree with its size, or too big, is refused by name.
#[test]
fn a_bad_light_grid_is_invalid() {
    let mut level = sample();
    level.light_grid.as_mut().unwrap().size = [3, 1, 1];
    let e = validate(&level).unwrap_err();
    assert!(
        e.contains("light grid point table does not match its size"),
        "{e}"
    );
    level.light_grid.as_mut().unwrap().size = [1 << 10, 1 << 10, 1];
    let e = validate(&level).unwrap_err();
    assert!(e.contains("light grid of [1024, 1024, 1] points"), "{e}");
    let mut level = sample();
    level.light_grid.as_mut().unwrap().slots.pop();
    let e = validate(&level).unwrap_err();
    assert!(e.contains("light grid lists 2 slots but holds 1"), "{e}");
    // In a file: the reader says the same, before anything is sized by the size.
    let mut bytes = to_bytes(&sample());
    let (_, span) = section_spans(&sample())
        .into_iter()
        .find(|(name, _)| *name == "light grid")
        .unwrap();
    // Flag, origin, spacing, then the size's first number.
    let at = span.start + 1 + 24;
    bytes[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
    let e = from_bytes(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("light grid point table does not match its size"),
        "{e}"
    );
}

#[test]
fn styles_beyond_the_atlas_layers_or_63_are_invalid() {
    let mut level = sample();
    level.surfaces[0].styles = LightStyles([0, 1, 2, 255]);
    let e = validate(&level).unwrap_err();
    assert!(
        e.contains("surface 0 has 3 light style slots but the atlas has 2 layers"),
        "{e}"
    );
    level.surfaces[0].styles = LightStyles([64, 255, 255, 255]);
    let e = validate(&level).unwrap_err();
    assert!(e.contains("surface 0 uses light style 64"), "{e}");
    level.surfaces[0].styles = LightStyles::default();
    level.lightmaps.texels.push(0);
    let e = validate(&level).unwrap_err();
    assert!(e.contains("lightmap atlas 8x8 needs 1 to 4 layers"), "{e}");
}

#[test]
fn bad_object_motions_and_closed_portals_are_invalid() {
    let mut level = sample();
    level.objects[0].closes = vec![7];
    let e = validate(&level).unwrap_err();
    assert!(
        e.contains("object 0 (func_door) closes portal 7 but there are 1 portals"),
        "{e}"
    );
    level.objects[0].closes.clear();
    level.objects[0].motion.as_mut().unwrap().speed = -1.0;
    let e = validate(&level).unwrap_err();
    assert!(
        e.contains("object 0 (func_door) motion: speed -1 is not a positive number"),
        "{e}"
    );
}

#[test]
fn bad_magic_version_and_huge_counts() {
    let bytes = to_bytes(&sample());
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(from_bytes(&b), Err(LvlError::BadMagic)));
    let mut b = bytes.clone();
    b[8] = 99;
    assert!(matches!(
        from_bytes(&b),
        Err(LvlError::Version { found: 99, .. })
    ));
    // A cell count of 4 billion must fail on the length check, not allocate.
    let mut b = bytes.clone();
    b[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(from_bytes(&b), Err(LvlError::Truncated { .. })));
}

/// Every single-byte corruption either loads a level that passes validation (the oracle:
/// [`validate`] re-checked independently with a brute-force index scan) or gives an error.
#[test]
fn byte_flips_never_panic_and_never_load_bad_indices() {
    let bytes = to_bytes(&sample());
    for i in 20..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            if let Ok(level) = from_bytes(&b) {
                brute_force_indices_ok(&level);
            }
        }
    }
}

fn brute_force_indices_ok(l: &Level) {
    for c in &l.cells {
        assert!(c.portals.iter().all(|&p| (p as usize) < l.portals.len()));
        assert!(c.surfaces.iter().all(|&s| (s as usize) < l.surfaces.len()));
    }
    for p in &l.portals {
        assert!((p.front as usize) < l.cells.len() && (p.back as usize) < l.cells.len());
    }
    for s in &l.surfaces {
        assert!((s.material as usize) < l.materials.len());
        assert!(s.indices.iter().all(|&i| (i as usize) < s.vertices.len()));
        if let Some(r) = s.lightmap {
            assert!(r.x as u64 + r.width as u64 <= l.lightmaps.width as u64);
            assert!(r.y as u64 + r.height as u64 <= l.lightmaps.height as u64);
        }
    }
    for n in &l.bsp.nodes {
        for c in n.children {
            match c {
                BspChild::Node(k) => assert!((k as usize) < l.bsp.nodes.len()),
                BspChild::Leaf(k) => assert!((k as usize) < l.bsp.leaves.len()),
            }
        }
    }
    for leaf in &l.bsp.leaves {
        assert!(leaf.cells.iter().all(|&c| (c as usize) < l.cells.len()));
    }
    for o in &l.objects {
        assert!(o.surfaces.iter().all(|&s| (s as usize) < l.surfaces.len()));
    }
    // Point location terminates on any loaded tree.
    let _ = l.locate(Vec3::new(10.0, 10.0, 10.0));
}

#[test]
fn corrupted_indices_are_named() {
    let cases: Vec<(Box<dyn Fn(&mut Level)>, &str)> = vec![
        (
            Box::new(|l| l.cells[1].surfaces.push(3)),
            "cell 1 lists surface 3",
        ),
        (Box::new(|l| l.portals[0].back = 2), "portal 0"),
        (
            Box::new(|l| l.surfaces[2].material = 2),
            "surface 2 uses material 2",
        ),
        (
            Box::new(|l| l.surfaces[0].lightmap.as_mut().unwrap().x = 4),
            "outside the 8x8 atlas",
        ),
        (
            Box::new(|l| l.bsp.nodes[0].children[0] = BspChild::Leaf(2)),
            "leaf 2",
        ),
        (
            Box::new(|l| l.bsp.nodes[0].children[0] = BspChild::Node(0)),
            "BSP node 0",
        ),
        (Box::new(|l| l.objects[0].surfaces.push(7)), "object 0"),
        (
            Box::new(|l| l.bsp.leaves[0].cells.push(5)),
            "leaf 0 lists cell 5",
        ),
        (
            Box::new(|l| l.surfaces[1].indices.push(1)),
            "not a multiple of 3",
        ),
        (
            Box::new(|l| {
                l.materials[0]
                    .texels
                    .as_mut()
                    .unwrap()
                    .pop()
                    .map(|_| ())
                    .unwrap()
            }),
            "texel bytes",
        ),
    ];
    for (corrupt, expect) in cases {
        let mut l = sample();
        corrupt(&mut l);
        let err = match from_bytes(&to_bytes(&l)) {
            Err(LvlError::Invalid(e)) => e,
            other => {
                panic!("expected an invalid-level error containing {expect:?}, got {other:?}")
            }
        };
        assert!(err.contains(expect), "{err:?} should contain {expect:?}");
    }
}

/// A material map that is not the texels' size, or a map on a material without texels, is
/// refused by name; a file holding one does not load.
#[test]
fn a_bad_material_map_is_invalid() {
    let mut level = sample();
    level.materials[0].normal = Some(vec![0; 4]);
    let e = validate(&level).unwrap_err();
    assert!(
        e.contains("material 0 (wall) has a 4-byte normal map, expected 8"),
        "{e}"
    );
    assert!(from_bytes(&to_bytes(&level)).is_err());
    let mut level = sample();
    level.materials[1].specular = Some(vec![0; 64 * 64 * 4]);
    let e = validate(&level).unwrap_err();
    assert!(e.contains("has a specular map but no texels"), "{e}");
}

/// An animation whose pictures run past the last material, or has none, is refused by name;
/// one within the materials is not.
#[test]
fn an_animation_past_the_materials_is_invalid() {
    let mut level = sample();
    let animate = |first, frames| {
        Some(crate::Animation {
            first,
            frames,
            rate: 2.0,
        })
    };
    level.materials[0].animation = animate(0, 2);
    validate(&level).unwrap();
    for (first, frames) in [(1, 2), (0, 0), (u32::MAX, 2)] {
        level.materials[0].animation = animate(first, frames);
        let e = validate(&level).unwrap_err();
        assert!(e.contains("material 0 (wall) animates"), "{e}");
    }
}
