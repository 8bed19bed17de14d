//! Quake's own files: e1m1 read from a PACK archive built from ../shared/realdata (the map and
//! the palette, as id1/pak0.pak holds them) loads and renders identically to the loose `.bsp`.

use lanthorn::geom::CameraSpec;
use lanthorn::import::pak::build;
use lanthorn::load::search::SearchPath;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::quake_level;
use crate::support::gpu;

#[test]
fn e1m1_from_a_pak_renders_as_the_loose_bsp() {
    let Some(gpu) = gpu() else { return };
    let Some(loose) = quake_level("e1m1") else {
        return;
    };
    let quake = lanthorn::realdata_dir().join("quake");
    let bsp = std::fs::read(quake.join("bsp/e1m1.bsp")).unwrap();
    let palette = std::fs::read(quake.join("palette.lmp")).unwrap();
    let base = std::env::temp_dir().join(format!("lanthorn-gpu-pak-{}", std::process::id()));
    std::fs::create_dir_all(base.join("id1")).unwrap();
    std::fs::write(
        base.join("id1/pak0.pak"),
        build(&[("gfx/palette.lmp", &palette), ("maps/e1m1.bsp", &bsp)]),
    )
    .unwrap();
    let search = SearchPath::new(&base, None).unwrap();
    let (packed, origin) =
        lanthorn::load::load_from_game("e1m1", &search, Default::default(), None).unwrap();
    assert!(origin.ends_with("id1/pak0.pak:maps/e1m1.bsp"), "{origin}");
    assert_eq!(packed.surfaces.len(), loose.surfaces.len());
    assert_eq!(packed.lightmaps.texels, loose.lightmaps.texels);
    let camera: CameraSpec = packed.player_start().unwrap();
    let draw = |level| {
        lanthorn::app::capture::capture_with_terrain(
            gpu,
            level,
            None,
            camera,
            (320, 180),
            CullMode::Portal,
            &FrameSettings::default(),
            &Default::default(),
        )
        .0
    };
    assert!(draw(&packed) == draw(&loose), "the pak's frame differs");
    let _ = std::fs::remove_dir_all(&base);
}

/// On the command line a bare map name is looked up in `--basedir`'s game (a mod before id1),
/// and without a game it is one error saying what to give.
#[test]
fn info_finds_a_bare_map_name_in_the_basedir() {
    let quake = lanthorn::realdata_dir().join("quake");
    let Ok(bsp) = std::fs::read(quake.join("bsp/start.bsp")) else {
        let _ = crate::support::unavailable::<()>("../shared/realdata", "start.bsp is missing");
        return;
    };
    let base = std::env::temp_dir().join(format!("lanthorn-cli-pak-{}", std::process::id()));
    std::fs::create_dir_all(base.join("id1")).unwrap();
    std::fs::create_dir_all(base.join("mymod/maps")).unwrap();
    std::fs::write(
        base.join("id1/pak0.pak"),
        build(&[("maps/start.bsp", &bsp)]),
    )
    .unwrap();
    // The mod's loose file overrides id1's pak: a file that is no BSP, so loading it fails.
    std::fs::write(base.join("mymod/maps/start.bsp"), b"not a bsp").unwrap();
    let info = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .arg("info")
            .args(args)
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap()
    };
    let dir = base.to_str().unwrap();
    let out = info(&["start", "--basedir", dir, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().last().unwrap()).unwrap();
    assert!(v["cells"].as_u64().unwrap() > 100, "{v}");
    let out = info(&["start", "--basedir", dir, "--game", "mymod"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("mymod/maps/start.bsp"), "{err}");
    let out = info(&["start"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--basedir"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&base);
}
