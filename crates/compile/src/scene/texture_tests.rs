//! Scene materials and textures: texels loaded from PNG files and generators, texture
//! coordinates against Quake's projection worked out by hand at the corners of known faces,
//! and one error per kind of bad input, by its exact text.

use std::path::{Path, PathBuf};

use glam::Vec3;

use super::procedural::procedural;
use crate::{compile, CompileOptions};
use lanthorn_level::{material_flags, Level, Surface};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("lanthorn-textures-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A room (0..256)³ with a solid block (64..128, 64..128, 0..96) in it, the block worn with
/// `block`'s material and texture fields; `materials` is the scene's list.
fn block_scene(materials: &str, block: &str) -> String {
    format!(
        "Scene(materials: [{materials}], ops: [\n\
         (brush: Box(min: (0, 0, 0), max: (256, 256, 256)), medium: Air),\n\
         (brush: Box(min: (64, 64, 0), max: (128, 128, 96)), medium: Solid, {block}),\n\
         ])"
    )
}

fn compile_text(dir: &Path, text: &str) -> Result<Level, String> {
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).unwrap();
    let options = CompileOptions {
        light: false,
        ..Default::default()
    };
    compile(&path, &options)
        .map(|(level, _)| level)
        .map_err(|e| e.to_string())
}

/// The surfaces of `level` facing `normal` whose every vertex lies on the plane
/// `normal · p = dist`.
fn faces(level: &Level, normal: Vec3, dist: f32) -> Vec<&Surface> {
    let found: Vec<&Surface> = level
        .surfaces
        .iter()
        .filter(|s| {
            s.normal.dot(normal) > 0.999
                && s.vertices
                    .iter()
                    .all(|v| (v.position.dot(normal) - dist).abs() < 1e-3)
        })
        .collect();
    assert!(!found.is_empty(), "no surface faces {normal} at {dist}");
    found
}

/// Every vertex of `surfaces` has texture coordinate `uv(position)`.
fn check_uv(surfaces: &[&Surface], uv: impl Fn(Vec3) -> (f32, f32)) {
    for s in surfaces {
        for v in &s.vertices {
            let (u, w) = uv(v.position);
            assert!(
                (v.uv.x - u).abs() < 1e-5 && (v.uv.y - w).abs() < 1e-5,
                "at {}: uv {} (expected ({u}, {w}))",
                v.position,
                v.uv
            );
        }
    }
}

/// Quake's projection with scale (2, 0.5) and offset (16, 8) on a 128² brick, by hand: on the
/// block's east face (normal +X) the axes are +Y and −Z, on its top (+Z) +X and −Y, on its
/// north face (+Y) +X and −Z; s = axis·p / scale + offset, u = s / 128.
#[test]
fn texture_coordinates_follow_quakes_projection_with_scale_and_offset() {
    let dir = scratch("mapping");
    let level = compile_text(
        &dir,
        &block_scene(
            r#"(name: "brick", source: Procedural("brick"))"#,
            r#"material: Some("brick"), texture: Some((scale: (2.0, 0.5), offset: (16, 8)))"#,
        ),
    )
    .unwrap();
    let brick = &level.materials[0];
    assert_eq!(
        (brick.name.as_str(), brick.width, brick.height),
        ("brick", 128, 128)
    );
    assert_eq!(brick.texels, procedural("brick").unwrap().texels);
    let st = |s: f32, t: f32| ((s / 2.0 + 16.0) / 128.0, (t / 0.5 + 8.0) / 128.0);
    let east = faces(&level, Vec3::X, 128.0);
    assert!(east.iter().all(|s| s.material == 0));
    check_uv(&east, |p| st(p.y, -p.z));
    // A corner worked out fully: (128, 64, 96) → s = 64/2 + 16 = 48, t = −96/0.5 + 8 = −184.
    let corner = east
        .iter()
        .flat_map(|s| &s.vertices)
        .find(|v| v.position == Vec3::new(128.0, 64.0, 96.0))
        .expect("the east face has the corner");
    assert_eq!(corner.uv, glam::Vec2::new(48.0 / 128.0, -184.0 / 128.0));
    check_uv(&faces(&level, Vec3::Z, 96.0), |p| st(p.x, -p.y));
    check_uv(&faces(&level, Vec3::Y, 128.0), |p| st(p.x, -p.z));
    // The room's own walls (no texture given) keep scale 1 on the flat "wall" 64².
    let wall = faces(&level, Vec3::Z, 0.0);
    assert_eq!(level.materials[wall[0].material as usize].name, "wall");
    check_uv(&wall, |p| (p.x / 64.0, -p.y / 64.0));
}

/// Writes an RGBA PNG of `w × h` whose texel (x, y) is (x, y, 7, 255).
fn write_png(path: &Path, w: u32, h: u32) {
    let img = image::RgbaImage::from_fn(w, h, |x, y| image::Rgba([x as u8, y as u8, 7, 255]));
    img.save(path).unwrap();
}

/// A PNG beside the scene (by a path relative to it) becomes the material's texels, and its
/// size sets the texture coordinates (u = s / 32, v = t / 16).
#[test]
fn png_materials_are_loaded_relative_to_the_scene() {
    let dir = scratch("png");
    std::fs::create_dir_all(dir.join("tex")).unwrap();
    write_png(&dir.join("tex/grid.png"), 32, 16);
    let level = compile_text(
        &dir,
        &block_scene(
            r#"(name: "grid", source: Png("tex/grid.png")), (name: "red", source: Color((1, 0, 0)))"#,
            r#"material: Some("grid")"#,
        ),
    )
    .unwrap();
    let grid = &level.materials[0];
    assert_eq!((grid.width, grid.height), (32, 16));
    let texels = grid.texels.as_ref().unwrap();
    let at = |x: u32, y: u32| &texels[((y * 32 + x) * 4) as usize..][..4];
    assert_eq!(at(5, 9), [5, 9, 7, 255]);
    assert_eq!(at(31, 15), [31, 15, 7, 255]);
    check_uv(&faces(&level, Vec3::X, 128.0), |p| {
        (p.y / 32.0, -p.z / 16.0)
    });
    // A colour material is listed even when no operation names it, flat and 64².
    let red = &level.materials[1];
    assert_eq!(
        (red.name.as_str(), red.color, red.texels.is_none()),
        ("red", [1.0, 0.0, 0.0], true)
    );
}

/// A material named `sky` that the scene lists keeps its texels as the open sky.
#[test]
fn a_listed_sky_material_is_the_open_sky() {
    let dir = scratch("sky");
    let level = compile_text(
        &dir,
        "Scene(materials: [(name: \"sky\", source: Procedural(\"sky\"))], ops: [\n\
         (brush: Box(min: (0, 0, 0), max: (256, 256, 256)), medium: Air),\n\
         (brush: Box(min: (0, 0, -16), max: (256, 256, 0)), medium: Solid)],\n\
         outdoor: [Box(min: (0, 0, 0), max: (256, 256, 256))])",
    )
    .unwrap();
    let sky = level.sky.as_ref().unwrap().material.unwrap() as usize;
    let m = &level.materials[sky];
    assert_eq!(m.name, "sky");
    assert_eq!(m.flags & material_flags::SKY, material_flags::SKY);
    assert_eq!(m.texels, procedural("sky").unwrap().texels);
    assert!(level
        .surfaces
        .iter()
        .any(|s| s.material as usize == sky && s.normal.z < -0.99));
}

/// The message for `materials` and `block` (prefixed by the scene's path).
fn error(dir: &Path, materials: &str, block: &str) -> String {
    let e = compile_text(dir, &block_scene(materials, block)).unwrap_err();
    let prefix = format!("{}: ", dir.join("scene.ron").display());
    e.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{e} does not name the scene"))
        .to_string()
}

#[test]
fn bad_materials_are_one_error_naming_the_material_and_field() {
    let dir = scratch("errors");
    let missing = dir.join("missing.png");
    assert_eq!(
        error(&dir, r#"(name: "m", source: Png("missing.png"))"#, ""),
        format!(
            "material 0 (\"m\"), source: cannot read {}: {}: put the PNG there or fix the path \
             (it is relative to the scene file)",
            missing.display(),
            std::fs::File::open(&missing).unwrap_err()
        )
    );
    std::fs::write(dir.join("text.png"), "not a picture").unwrap();
    let e = error(
        &dir,
        r#"(name: "a", source: Color((0, 0, 0))), (name: "t", source: Png("text.png"))"#,
        "",
    );
    let text = dir.join("text.png").display().to_string();
    assert!(
        e.starts_with(&format!(
            "material 1 (\"t\"), source: {text} is not a readable PNG ("
        )) && e.ends_with("): re-save it as a PNG"),
        "{e}"
    );
    // A PNG cut short after its header: the size is known, the texels are not.
    write_png(&dir.join("whole.png"), 16, 16);
    let bytes = std::fs::read(dir.join("whole.png")).unwrap();
    std::fs::write(dir.join("cut.png"), &bytes[..40]).unwrap();
    let e = error(&dir, r#"(name: "c", source: Png("cut.png"))"#, "");
    assert!(e.contains("cut.png is not a readable PNG ("), "{e}");
    write_png(&dir.join("wide.png"), 4097, 1);
    assert_eq!(
        error(&dir, r#"(name: "w", source: Png("wide.png"))"#, ""),
        format!(
            "material 0 (\"w\"), source: {} is 4097×1 texels: a texture must be 1 to 4096 \
             texels on a side",
            dir.join("wide.png").display()
        )
    );
    std::fs::write(dir.join("empty.png"), zero_width_png()).unwrap();
    // The PNG decoder refuses a zero size in the header itself.
    assert_eq!(
        error(&dir, r#"(name: "z", source: Png("empty.png"))"#, ""),
        format!(
            "material 0 (\"z\"), source: {} is not a readable PNG (Format error decoding Png: \
             Invalid image dimensions): re-save it as a PNG",
            dir.join("empty.png").display()
        )
    );
    assert_eq!(
        error(&dir, r#"(name: "m", source: Procedural("marble"))"#, ""),
        "material 0 (\"m\"), source: there is no procedural texture \"marble\": use one of \
         floor, brick, crate, sky"
    );
    assert_eq!(
        error(
            &dir,
            r#"(name: "m", source: Procedural("brick")), (name: "m", source: Color((1, 1, 1)))"#,
            ""
        ),
        "material 1 (\"m\"), name: the name is listed twice (first as material 0): keep one"
    );
    assert_eq!(
        error(&dir, r#"(name: "c", source: Color((2, 0, 0)))"#, ""),
        "material 0 (\"c\"), source: colour (2, 0, 0) is outside 0..1: give linear RGB from 0 to 1"
    );
}

#[test]
fn bad_operation_materials_and_textures_name_the_operation_and_field() {
    let dir = scratch("op-errors");
    assert_eq!(
        error(&dir, "", r#"material: Some("*lava")"#),
        "operation 1, material: \"*lava\" is a liquid material (its name starts with `*`) but \
         the medium is Solid: give the operation a liquid medium (Water, Slime or Lava) or a \
         material name without `*`"
    );
    assert_eq!(
        error(&dir, "", r#"texture: Some((scale: (0, 1)))"#),
        "operation 1, texture: scale (0, 1) has a zero or non-finite component: give two \
         non-zero numbers, (1.0, 1.0) for one texel per unit"
    );
    // Both fields of `texture` default: an empty one is scale 1, offset 0.
    compile_text(&dir, &block_scene("", "texture: Some(())")).unwrap();
}

/// A PNG whose header says it is 0 texels wide (a 1×1 PNG with its IHDR width zeroed and the
/// chunk's CRC recomputed).
fn zero_width_png() -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbaImage::new(1, 1)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    // Signature (8), length (4), "IHDR" (4), width (4) at 16..20, …, CRC at 29..33.
    out[16..20].fill(0);
    let crc = crc32(&out[12..29]);
    out[29..33].copy_from_slice(&crc.to_be_bytes());
    out
}

/// The PNG chunk CRC (CRC-32, polynomial 0xEDB88320), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// An object brush wears its material and texture as an operation does: on a prop's +X face
/// (x = 200; Quake axes +Y and −Z) with scale (2, 2) and offset (4, 0) on the 64² crate,
/// u = (y / 2 + 4) / 64 and v = (−z / 2) / 64; a bad scale names the object's brush.
#[test]
fn object_brushes_are_textured_like_operations() {
    let dir = scratch("objects");
    let text = |scale: &str| {
        format!(
            "Scene(materials: [(name: \"crate\", source: Procedural(\"crate\"))], ops: [\n\
             (brush: Box(min: (0, 0, 0), max: (256, 256, 256)), medium: Air)],\n\
             objects: [(name: \"prop\", brushes: [(brush: Box(min: (160, 32, 0), max: (200, 96, 64)), \
             material: Some(\"crate\"), texture: Some((scale: {scale}, offset: (4, 0))))])])"
        )
    };
    let level = compile_text(&dir, &text("(2, 2)")).unwrap();
    let prop = &level.objects[0];
    let east: Vec<&Surface> = prop
        .surfaces
        .iter()
        .map(|&s| &level.surfaces[s as usize])
        .filter(|s| s.normal.x > 0.999)
        .collect();
    assert!(!east.is_empty());
    assert!(east
        .iter()
        .all(|s| level.materials[s.material as usize].name == "crate"));
    check_uv(&east, |p| ((p.y / 2.0 + 4.0) / 64.0, (-p.z / 2.0) / 64.0));
    let dir = scratch("objects-bad");
    let e = compile_text(&dir, &text("(2, 0)")).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{}: object 0 (prop), brushes[0].texture: scale (2, 0) has a zero or non-finite \
             component: give two non-zero numbers, (1.0, 1.0) for one texel per unit",
            dir.join("scene.ron").display()
        )
    );
}
