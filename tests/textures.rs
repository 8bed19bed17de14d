//! The project's textures in `assets/textures/`: each committed PNG is exactly what
//! `examples/make_textures.rs` generates (so none is stale or drawn by hand), a power of two
//! of 64–256 texels and small, and the scene compiler loads every one by a path relative to a
//! scene in `assets/levels/`.

use std::path::{Path, PathBuf};

#[path = "../examples/make_textures.rs"]
mod make_textures;

fn textures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/textures")
}

#[test]
fn committed_textures_are_the_generators_output() {
    for t in &make_textures::TEXTURES {
        let path = textures_dir().join(format!("{}.png", t.name));
        let committed = image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgb8();
        assert!(
            committed == make_textures::render(t),
            "{} differs from the generator's output: run `cargo run --release --example \
             make_textures` and commit the result",
            path.display()
        );
        assert!(t.size.is_power_of_two() && (64..=256).contains(&t.size));
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert!(bytes < 24 * 1024, "{}: {bytes} bytes", path.display());
    }
    // Nothing else lives there: every PNG has its generator.
    let mut names: Vec<String> = std::fs::read_dir(textures_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut made: Vec<String> = make_textures::TEXTURES
        .iter()
        .map(|t| format!("{}.png", t.name))
        .collect();
    made.sort();
    assert_eq!(names, made);
}

/// A scene in `assets/levels/` wearing every texture (one solid block each) compiles, and each
/// material holds its PNG's texels.
#[test]
fn every_texture_loads_as_a_scene_material() {
    use lanthorn::compile::scene::{compile_scene_with, parse, SceneFiles};
    let mut materials = String::new();
    let mut ops = String::from("(brush: Box(min: (0, 0, 0), max: (2048, 256, 256)), medium: Air),");
    for (i, t) in make_textures::TEXTURES.iter().enumerate() {
        let name = if matches!(t.name, "water" | "lava" | "slime") {
            format!("*{}", t.name)
        } else {
            t.name.to_string()
        };
        materials += &format!(
            "(name: \"{name}\", source: Png(\"../textures/{}.png\")),",
            t.name
        );
        let (x, medium) = (
            i as f64 * 160.0 + 32.0,
            if name.starts_with('*') {
                "Water"
            } else {
                "Solid"
            },
        );
        ops += &format!(
            "(brush: Box(min: ({x}, 64, 0), max: ({}, 128, 64)), medium: {medium}, material: Some(\"{name}\")),",
            x + 64.0
        );
    }
    let scene = parse(&format!("Scene(materials: [{materials}], ops: [{ops}])")).unwrap();
    let files = SceneFiles::Dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/levels"));
    let options = lanthorn::compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    let (level, _) = compile_scene_with(&scene, &files, &options).unwrap_or_else(|e| panic!("{e}"));
    for t in &make_textures::TEXTURES {
        let m = level
            .materials
            .iter()
            .find(|m| m.name.trim_start_matches('*') == t.name)
            .unwrap();
        assert_eq!((m.width, m.height), (t.size, t.size));
        let rgba = image::RgbImage::from_fn(t.size, t.size, |x, y| {
            let i = ((y * t.size + x) * 4) as usize;
            let px = &m.texels.as_ref().unwrap()[i..i + 3];
            image::Rgb([px[0], px[1], px[2]])
        });
        assert!(rgba == make_textures::render(t), "{}", t.name);
        assert!(level
            .surfaces
            .iter()
            .any(|s| level.materials[s.material as usize].name == m.name));
    }
}
