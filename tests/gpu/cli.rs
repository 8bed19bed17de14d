//! The binary: the no-adapter error, `info`, `capture` and `bench --json`.

use std::process::Command;

use crate::support::gpu;

fn lanthorn() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lanthorn"))
}

/// An empty folder of its own for one test (`lanthorn-TAG-PID` in the temp folder).
fn fresh_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The camera the demo printed with its saved frame: `(camera x,y,z,yaw,pitch)`.
fn saved_camera(stdout: &str) -> Vec<f32> {
    stdout
        .lines()
        .find_map(|l| l.split("(camera ").nth(1))
        .expect("a saved frame's camera")
        .trim_end_matches(')')
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn no_adapter_gives_one_clear_error() {
    // A backend that does not exist on this platform leaves zero adapters.
    let out = lanthorn()
        .arg("info")
        .env("WGPU_BACKEND", "metal")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("no GPU adapter found"), "{err}");
    assert!(err.contains("mesa-vulkan-drivers"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn info_reports_a_disabled_feature() {
    let Some(g) = gpu() else { return };
    if !g.features.clip_distances {
        return;
    }
    let out = lanthorn()
        .args(["info", "--json", "--disable", "clip-distances"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        v["features_disabled"],
        serde_json::json!(["clip-distances"])
    );
    assert_eq!(v["octagon_clipping"], "fragment discard");
    // The environment variable does the same.
    let out = lanthorn()
        .args(["info", "--json"])
        .env("LANTHORN_DISABLE", "clip-distances")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(out.stdout.trim_ascii_end()).unwrap();
    assert_eq!(v["octagon_clipping"], "fragment discard");
    // An unknown name is a clear error.
    let out = lanthorn()
        .args(["info", "--disable", "warp-drive"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown feature"));
}

/// `bench builtin` for 5 frames after 1 at 160×90 with `extra` arguments: its JSON line.
fn bench_json(extra: &[&str]) -> serde_json::Value {
    let base = [
        "bench", "builtin", "--frames", "5", "--warmup", "1", "--size", "160x90",
    ];
    let out = lanthorn()
        .args(base)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

#[test]
fn bench_json_has_the_promised_keys() {
    let Some(_) = gpu() else { return };
    let v = bench_json(&[]);
    for k in [
        "frames",
        "frame_ms_median",
        "frame_ms_p95",
        "draw_calls_max",
        "sub_draws_max",
        "triangles_median",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert_eq!(v["frames"], 5);
    // The yard's walls are baked in the warm-up frame and drawn from the cache after it.
    assert!(v["cached_median"].as_f64().unwrap() > 0.0, "{v}");
    // Per-surface culling drops what faces away or lies off screen in the yard, but never
    // everything.
    let level = lanthorn::scenes::builtin::scene();
    let triangles = v["triangles_median"].as_f64().unwrap() as usize;
    assert!(
        triangles > 0 && triangles < level.triangle_count(),
        "{triangles} of {}",
        level.triangle_count()
    );
}

/// `cached_median` counts what the surface cache draws: nothing with the cache off.
#[test]
fn bench_counts_no_cached_surfaces_with_the_cache_off() {
    let Some(_) = gpu() else { return };
    let v = bench_json(&["--surface-cache", "off"]);
    assert_eq!(v["cached_median"].as_f64(), Some(0.0), "{v}");
    assert!(v["surfaces_median"].as_f64().unwrap() > 0.0, "{v}");
}

/// `info` on a Quake 3 map from OpenArena's pk3 files (Debian's packages): the counts its lumps'
/// lengths give, read here from the archive by lump size alone.
#[test]
fn info_reports_a_quake_3_map_from_its_pk3() {
    let base = std::path::Path::new("/usr/share/games/openarena");
    let maps = base.join("baseoa/pak1-maps.pk3");
    if !maps.is_file() {
        return lanthorn_testdata::missing_realdata(&maps);
    }
    let out = lanthorn()
        .args([
            "info",
            "--basedir",
            base.to_str().unwrap(),
            "--game",
            "baseoa",
        ])
        .args(["oa_dm1", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let pk3 = lanthorn::import::pk3::Pk3::open(&maps).unwrap();
    let bytes = pk3.read(pk3.find("maps/oa_dm1.bsp").unwrap()).unwrap();
    let lump_len = |n: usize| i32::from_le_bytes(bytes[12 + n * 8..16 + n * 8].try_into().unwrap());
    assert_eq!(
        v["surfaces"].as_i64(),
        Some(lump_len(13) as i64 / 104),
        "{v}"
    );
    assert_eq!(
        v["vertices"].as_i64(),
        Some(lump_len(10) as i64 / 44),
        "{v}"
    );
    assert_eq!(
        v["triangles"].as_i64(),
        Some(lump_len(11) as i64 / 12),
        "{v}"
    );
    assert_eq!(
        v["lightmap_pages"].as_i64(),
        Some(lump_len(14) as i64 / 49152),
        "{v}"
    );
    assert!(v["format"].as_str().unwrap().contains("IBSP 46"), "{v}");
}

#[test]
fn capture_writes_a_png_and_bad_arguments_fail_cleanly() {
    let Some(_) = gpu() else { return };
    let dir = std::env::temp_dir().join(format!("lanthorn-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("shot.png");
    let out = lanthorn()
        .args([
            "capture",
            "--size",
            "64x36",
            "--camera",
            "0,0,100,0,-10",
            "-o",
        ])
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (64, 36));
    // A bad camera and a missing level: exit code != 0, no panic, no file.
    let bad = dir.join("bad.png");
    let out = lanthorn()
        .args(["capture", "--camera", "1,2,3", "-o"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = lanthorn()
        .args(["capture", "nowhere.xyz", "-o"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere.xyz"));
    assert!(!bad.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn demo_window_survives_resize_minimize_and_lost_surface() {
    let Some(_) = gpu() else { return };
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        crate::support::unavailable::<()>(
            "a display (run the tests under `xvfb-run -a`)",
            "DISPLAY is not set",
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("demo.png");
    let out = lanthorn()
        .args([
            "demo",
            "--frames",
            "60",
            "--size",
            "320x180",
            "--stress-surface",
            "--screenshot",
        ])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "demo failed: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let img = image::open(&png).unwrap().to_rgba8();
    // The frame shows the scene, not the cleared target (the clear colour reads back as about
    // (39, 39, 48) in sRGB).
    let bright = img
        .pixels()
        .filter(|p| {
            p[0].abs_diff(39) as u32 + p[1].abs_diff(39) as u32 + p[2].abs_diff(48) as u32 > 30
        })
        .count();
    assert!(bright > (img.width() * img.height() / 2) as usize);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The demo driven by a script of key presses (`--input-script`): two overlays toggled (1:
/// portals, 4: depth), Q held to turn, F12 and Shift+F12 saving the frame without and with the
/// panel into `--screenshot-dir`.
#[test]
fn demo_keys_toggle_overlays_turn_the_camera_and_save_frames() {
    let Some(_) = gpu() else { return };
    if !crate::support::display() {
        return;
    }
    let dir = fresh_dir("demo-keys");
    let script = dir.join("keys.txt");
    std::fs::write(
        &script,
        "5 Digit1\n6 Digit4\n8 KeyQ 6\n20 F12\n24 ShiftLeft 4\n25 F12\n",
    )
    .unwrap();
    let last = dir.join("last.png");
    let out = lanthorn()
        .args([
            "demo",
            "builtin:portals",
            "--frames",
            "32",
            "--size",
            "320x180",
        ])
        .args(["--camera", "0,0,64,0,0", "--input-script"])
        .arg(&script)
        .arg("--screenshot-dir")
        .arg(&dir)
        .arg("--screenshot")
        .arg(&last)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Q turned the camera left: its yaw grew from 0.
    let yaw = saved_camera(&text)[3];
    assert!(yaw > 1.0 && yaw < 180.0, "yaw {yaw}: {text}");
    let mut shots: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("lanthorn-")
        })
        .collect();
    shots.sort();
    assert_eq!(shots.len(), 2, "{text}");
    assert!(text.contains("(with the panel)"), "{text}");
    let plain = image::open(&shots[0]).unwrap().to_rgba8();
    let panel = image::open(&shots[1]).unwrap().to_rgba8();
    // The depth overlay tints what is near green: the plain frame is mostly green.
    let mean =
        |c: usize| plain.pixels().map(|p| p[c] as f64).sum::<f64>() / plain.len() as f64 * 4.0;
    assert!(
        mean(1) > mean(0) && mean(1) > mean(2),
        "not green: {} {} {}",
        mean(0),
        mean(1),
        mean(2)
    );
    // The panel covers the top-left corner of the second frame only.
    let differs = |x0: u32, y0: u32| {
        let mut n = 0;
        for y in y0..y0 + 40 {
            for x in x0..x0 + 60 {
                n += (plain.get_pixel(x, y) != panel.get_pixel(x, y)) as u32;
            }
        }
        n
    };
    assert!(differs(0, 0) > 1200, "no panel drawn: {}", differs(0, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `capture --trace`: a Chrome trace that parses, with the frame's CPU stages and one GPU
/// scope per pass, each as long as its timestamps (wgpu-profiler's, in its args) say, in pass order, inside the frame's
/// submit-to-readback interval.
#[test]
fn capture_trace_holds_cpu_stages_and_gpu_passes_inside_the_frame() {
    let Some(g) = gpu() else { return };
    let dir = std::env::temp_dir().join(format!("lanthorn-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.json");
    let out = lanthorn()
        .args([
            "capture",
            "builtin:portals",
            "--size",
            "320x180",
            "--overlay",
            "portals",
            "-o",
        ])
        .arg(dir.join("t.png"))
        .arg("--trace")
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let scopes = |cat: &str| -> Vec<&serde_json::Value> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == cat)
            .collect()
    };
    let cpu = scopes("cpu");
    let names: Vec<&str> = cpu.iter().map(|e| e["name"].as_str().unwrap()).collect();
    use lanthorn::render::stage;
    for stage in [
        stage::CULLING,
        "world prepare",
        "world record",
        "overlay record",
        stage::SUBMIT,
    ] {
        assert!(names.contains(&stage), "no CPU stage {stage}: {names:?}");
    }
    let span = |name: &str| {
        let e = cpu.iter().find(|e| e["name"] == name).unwrap();
        let ts = e["ts"].as_f64().unwrap();
        (ts, ts + e["dur"].as_f64().unwrap())
    };
    let submit = span(stage::SUBMIT).0;
    let read_back = if g.features.timestamp_query {
        span(stage::READBACK).1
    } else {
        0.0
    };
    let gpu_scopes = scopes("gpu");
    if !g.features.timestamp_query {
        assert!(gpu_scopes.is_empty());
        return;
    }
    let passes: Vec<&str> = gpu_scopes
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        passes,
        ["world", "overlay"],
        "one GPU scope per pass, in order"
    );
    let mut previous_end = submit;
    for e in gpu_scopes {
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        let a = &e["args"];
        let expected =
            (a["gpu_end_s"].as_f64().unwrap() - a["gpu_begin_s"].as_f64().unwrap()) * 1e6;
        assert!(
            dur > 0.0 && (dur - expected).abs() < 1e-3,
            "{e}: {expected} µs"
        );
        assert!(
            ts >= previous_end - 1e-3,
            "{e} starts before the previous pass ends"
        );
        assert!(
            ts >= submit && ts + dur <= read_back + 1e-3,
            "{e} outside [{submit}, {read_back}]"
        );
        previous_end = ts + dur;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `capture --renderdoc-frame 0` under `renderdoccmd capture` on lavapipe writes an `.rdc`
/// whose frame holds the passes by name (read with RenderDoc's Python module); without
/// RenderDoc it is one clear error. Skips only where renderdoccmd is not installed (CI
/// installs it).
#[test]
fn renderdoc_captures_the_frame_with_its_passes_by_name() {
    let Some(_) = gpu() else { return };
    let out = lanthorn()
        .args([
            "capture",
            "builtin",
            "-o",
            "/nonexistent/x.png",
            "--renderdoc-frame",
            "0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("RenderDoc is not attached"),
        "{err}"
    );
    assert_eq!(err.matches("RenderDoc is not attached").count(), 1, "{err}");
    if std::process::Command::new("renderdoccmd")
        .arg("version")
        .output()
        .is_err()
    {
        crate::support::unavailable::<()>(
            "renderdoccmd (apt-get install renderdoccmd python3-renderdoc)",
            "not installed",
        );
        return;
    }
    let dir = fresh_dir("rdc");
    let out = std::process::Command::new("renderdoccmd")
        .arg("capture")
        .arg("-c")
        .arg(dir.join("frame"))
        .arg("-w")
        .arg(env!("CARGO_BIN_EXE_lanthorn"))
        .args([
            "capture",
            "builtin:portals",
            "--size",
            "320x180",
            "--overlay",
            "portals",
        ])
        .arg("-o")
        .arg(dir.join("x.png"))
        .args(["--renderdoc-frame", "0"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("RenderDoc: frame 0 captured"), "{text}");
    let rdc = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "rdc"))
        .unwrap_or_else(|| panic!("no .rdc written: {text}"));
    // The debug labels RenderDoc recorded: one per pass, named as in the panel and the trace.
    let script = r#"
import sys, renderdoc as rd
rd.InitialiseReplay(rd.GlobalEnvironment(), [])
cap = rd.OpenCaptureFile()
assert cap.OpenFile(sys.argv[1], "", None) == rd.ResultCode.Succeeded
def strings(o, out):
    if o.type.basetype == rd.SDBasic.String: out.append(o.AsString())
    for j in range(o.NumChildren()): strings(o.GetChild(j), out)
for c in cap.GetStructuredData().chunks:
    if c.name == "vkCmdBeginDebugUtilsLabelEXT":
        out = []; strings(c, out); print(chr(10).join(s for s in out if s))
cap.Shutdown(); rd.ShutdownReplay()
"#;
    // Debian's python3 holds the renderdoc module (another python3 may come first on PATH).
    let python = ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("python3");
    let run = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&rdc)
        .output()
        .unwrap();
    let labels = String::from_utf8_lossy(&run.stdout);
    for pass in ["world", "overlay"] {
        assert!(
            labels.lines().any(|l| l == pass),
            "no pass {pass} in the capture: {labels} {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lost GPU device (here destroyed on purpose by a hidden self-test flag) ends the command
/// with one message naming what happened and what to do, exit code 1, no panic, no image.
#[test]
fn a_lost_device_is_one_clear_message_and_a_clean_exit() {
    let Some(_) = gpu() else { return };
    let dir = std::env::temp_dir().join(format!("lanthorn-lost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("lost.png");
    let out = lanthorn()
        .args(["capture", "builtin", "--lose-device", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("the GPU device was lost").count(), 1, "{err}");
    assert!(err.contains("apt-get install mesa-vulkan-drivers"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!png.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scene whose terrain names a missing heightmap: one error naming the scene, the path it
/// resolved (relative to the scene's folder) and what a heightmap is; no image written.
#[test]
fn scene_with_a_missing_terrain_heightmap_is_one_clear_error() {
    let dir = std::env::temp_dir().join(format!("lanthorn-cli-terrain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("yard.ron");
    std::fs::write(
        &scene,
        r#"Scene(ops: [(brush: Box(min: (0, 0, 0), max: (256, 256, 128)), medium: Air)],
            terrain: Some((heightmap: "hills.png", origin: (0, 0, -100), horizontal_scale: 32, vertical_scale: 1)),
            outdoor: [Box(min: (0, 0, 0), max: (256, 256, 128))])"#,
    )
    .unwrap();
    let png = dir.join("out.png");
    let out = lanthorn()
        .arg("capture")
        .arg(&scene)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("yard.ron"), "{err}");
    assert!(
        err.contains(&dir.join("hills.png").display().to_string()),
        "{err}"
    );
    assert!(err.contains("JSON sidecar"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!png.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench --compare` renders the same path per method: drawing everything (`none`) submits at
/// least what portal culling does, and ratios are to the first method.
#[test]
fn bench_compare_reports_every_method_against_the_first() {
    let Some(_) = gpu() else { return };
    let out = lanthorn()
        .args([
            "bench",
            "builtin:maze",
            "--frames",
            "4",
            "--warmup",
            "1",
            "--size",
            "160x90",
            "--compare",
            "portal,none",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let c = &v["compare"];
    assert_eq!(c["portal"]["triangles_ratio"], 1.0);
    let (portal, none) = (
        c["portal"]["triangles_median"].as_f64().unwrap(),
        c["none"]["triangles_median"].as_f64().unwrap(),
    );
    assert!(
        portal > 0.0 && none > portal,
        "portal {portal}, none {none}"
    );
    assert!(c["none"]["draw_calls_max"].as_f64().unwrap() >= 1.0);
    // The frame time's median, 95th percentile and worst, in that order.
    let [median, p95, worst] =
        ["median", "p95", "worst"].map(|s| c["portal"][format!("frame_ms_{s}")].as_f64().unwrap());
    assert!(
        0.0 < median && median <= p95 && p95 <= worst,
        "{median} {p95} {worst}"
    );
}

/// The terrain flags shape the level's own terrain when no `--terrain` is given (the keep's
/// outside view: its heightmap's own grid is 127, a coarser one draws about a quarter of the
/// triangles), and where there is
/// no terrain at all they are reported as ignored instead of being dropped silently.
#[test]
fn terrain_flags_shape_the_levels_own_terrain_or_say_they_are_ignored() {
    let Some(_) = gpu() else { return };
    let dir = std::env::temp_dir().join(format!("lanthorn-cli-grid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outside.json");
    std::fs::write(
        &path,
        r#"{"speed": 8, "keys": [{"pos": [3000, 2300, 560], "yaw": 232, "pitch": -18}]}"#,
    )
    .unwrap();
    let terrain_triangles = |grid: Option<&str>| {
        let mut cmd = lanthorn();
        cmd.args([
            "bench", "keep", "--frames", "2", "--warmup", "1", "--size", "160x90",
        ])
        .args(["--json", "--no-overdraw", "--allow-solid", "--path"])
        .arg(&path);
        if let Some(g) = grid {
            cmd.args(["--terrain-grid", g]);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains("ignored"), "{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        v["terrain_triangles_median"]
            .as_f64()
            .expect("terrain triangles")
    };
    let (fine, coarse) = (terrain_triangles(None), terrain_triangles(Some("63")));
    assert!(
        coarse > 0.0 && coarse < fine * 0.4,
        "grid 63: {coarse} triangles, default: {fine}"
    );
    let out = lanthorn()
        .args([
            "bench", "builtin", "--frames", "1", "--warmup", "0", "--size", "160x90",
        ])
        .args([
            "--no-overdraw",
            "--terrain-grid",
            "127",
            "--terrain-levels",
            "6",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr
            .matches("--terrain-levels, --terrain-grid ignored")
            .count(),
        1,
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A leaky map in the demo: it starts on the leak line, and `]` (pressed twice by the input
/// script) steps the camera to the line's third corner, looking along the line; the panel names
/// the entity the leak starts from.
#[test]
fn demo_walks_the_leak_of_a_leaky_map() {
    let Some(_) = gpu() else { return };
    if !crate::support::display() {
        return;
    }
    let dir = fresh_dir("demo-leak");
    let map = dir.join("leaky.map");
    std::fs::write(&map, crate::overlays::leaky_room_map()).unwrap();
    let lvl = dir.join("leaky.lvl");
    let out = lanthorn()
        .args(["compile", "--allow-leak", "--no-light"])
        .arg(&map)
        .arg("-o")
        .arg(&lvl)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let level = lanthorn::load::load(&lvl).unwrap();
    let corners = lanthorn::app::leak_walk::corners(level.leak.as_ref().expect("a leak"));
    assert!(corners.len() >= 3, "{corners:?}");
    let expected = lanthorn::app::leak_walk::camera_at(&corners, 2).unwrap();
    let script = dir.join("keys.txt");
    std::fs::write(&script, "5 BracketRight\n10 BracketRight\n").unwrap();
    let shot = dir.join("last.png");
    let out = lanthorn()
        .arg("demo")
        .arg(&lvl)
        .args(["--frames", "20", "--size", "320x180", "--input-script"])
        .arg(&script)
        .arg("--screenshot")
        .arg(&shot)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let camera = saved_camera(&text);
    let p = expected.position;
    let near = |a: f32, b: f32| (a - b).abs() <= 1.0;
    assert!(
        near(camera[0], p.x) && near(camera[1], p.y) && near(camera[2], p.z),
        "camera {camera:?}, third corner {p:?}"
    );
    let turn = (camera[3] - expected.yaw + 540.0).rem_euclid(360.0) - 180.0;
    assert!(
        turn.abs() <= 1.0,
        "yaw {} against {}",
        camera[3],
        expected.yaw
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `demo --watch`: a scene saved broken while the demo runs is one error naming the file and
/// line (the old level stays); saved again, edited, it is compiled and swapped in: the frame
/// saved after the reload is the edited scene's own capture at the same camera (and not the
/// original's), and the demo said how long the save took to reach the screen.
#[test]
fn demo_watch_swaps_in_a_scene_edited_on_disk() {
    let Some(_) = gpu() else { return };
    if !crate::support::display() {
        return;
    }
    let dir = fresh_dir("demo-watch");
    let scene = dir.join("yard.ron");
    let original = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/levels/builtin.ron"),
    )
    .unwrap();
    // The crate in the middle of the view grows to twice its height.
    let crate_box = "Box(min: (-96, -64, 0), max: (32, 64, 128))";
    assert!(original.contains(crate_box));
    let edited = original.replace(crate_box, "Box(min: (-96, -64, 0), max: (32, 64, 256))");
    std::fs::write(&scene, &original).unwrap();
    let camera = [
        "--camera",
        "-440,-300,96,35,0",
        "--time",
        "0",
        "--size",
        "320x180",
    ];
    let shot = dir.join("after.png");
    let (ok, text, errors) = drive_watching_demo(&scene, &camera, &shot, &edited);
    assert!(ok, "{text}");
    assert_eq!(errors.len(), 1, "the broken save is said once: {text}");
    assert!(text.contains("s from save to frame"), "{text}");
    let capture = |source: &str, name: &str| {
        let file = dir.join(format!("{name}.ron"));
        std::fs::write(&file, source).unwrap();
        let png = dir.join(format!("{name}.png"));
        let out = lanthorn()
            .arg("capture")
            .arg(&file)
            .args(camera)
            .arg("-o")
            .arg(&png)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&png).unwrap().to_rgba8()
    };
    let after = image::open(&shot).unwrap().to_rgba8();
    let compare = |b: &image::RgbaImage| lanthorn::app::compare::compare(&after, b).unwrap();
    let (same, before) = (
        compare(&capture(&edited, "edited")),
        compare(&capture(&original, "original")),
    );
    assert!(
        same.mae_linear < 0.002 && same.ssim > 0.98,
        "the reloaded frame is not the edited scene: {same:?}"
    );
    assert!(
        before.mae_linear > 4.0 * same.mae_linear.max(0.002),
        "the reloaded frame still shows the original: {before:?} (edited {same:?})"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `demo SCENE --watch` until its first reload: on "watching" saves the scene broken, on
/// the error naming its line 2 saves `edited`. Returns whether it exited well, what it printed
/// (stdout and stderr) and the error lines seen.
fn drive_watching_demo(
    scene: &std::path::Path,
    camera: &[&str],
    shot: &std::path::Path,
    edited: &str,
) -> (bool, String, Vec<String>) {
    use std::io::BufRead;
    let mut child = lanthorn()
        .arg("demo")
        .arg(scene)
        .args(camera)
        .args([
            "--watch",
            "--exit-after-reloads",
            "1",
            "--frames",
            "1000000",
        ])
        .arg("--screenshot")
        .arg(shot)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, got) = std::sync::mpsc::channel();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let err_lines = lines.clone();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines.send((false, line));
        }
    });
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = err_lines.send((true, line));
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    let (mut text, mut errors) = (String::new(), Vec::new());
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("no reload in 180 s: {text}");
        }
        while let Ok((is_err, line)) = got.try_recv() {
            if line.starts_with("watching") {
                std::fs::write(scene, "Scene(ops: [ (brush: Box(\n").unwrap();
            }
            if is_err && line.contains("yard.ron: line 2") {
                errors.push(line.clone());
                std::fs::write(scene, edited).unwrap();
            }
            text += &line;
            text += "\n";
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    text.extend(got.try_iter().map(|(_, l)| l + "\n"));
    (status.success(), text, errors)
}

/// `--switch t11` turns on e1m1's start-off light `t11` (a switchable style): the map compiled
/// by Lanthorn and the BSP id's tools made show the same frame with it off and with it on,
/// and on lights what off leaves black.
#[test]
fn switch_turns_on_a_start_off_light_as_in_the_shipped_bsp() {
    let Some(_) = gpu() else { return };
    let quake = lanthorn::realdata_dir().join("quake");
    let (map, bsp) = (quake.join("maps/e1m1.map"), quake.join("bsp/e1m1.bsp"));
    if !map.is_file() || !bsp.is_file() {
        crate::support::unavailable::<()>("../shared/realdata", "e1m1 is missing");
        return;
    }
    let dir = fresh_dir("switch");
    let shot = |level: &std::path::Path, switch: bool| {
        let png = dir.join(format!(
            "{}-{switch}.png",
            level.extension().unwrap().to_string_lossy()
        ));
        let mut cmd = lanthorn();
        cmd.arg("capture").arg(level);
        cmd.args(["--camera", "700,2000,-60,0,-20", "--size", "480x270", "-o"]);
        cmd.arg(&png);
        if switch {
            cmd.args(["--switch", "t11"]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&png).unwrap().to_rgba8()
    };
    let compare =
        |a: &image::RgbaImage, b: &image::RgbaImage| lanthorn::app::compare::compare(a, b).unwrap();
    let (off, on) = (shot(&map, false), shot(&map, true));
    for (state, ours, theirs) in [
        ("off", &off, shot(&bsp, false)),
        ("on", &on, shot(&bsp, true)),
    ] {
        let c = compare(ours, &theirs);
        assert!(c.mae_linear < 0.002 && c.ssim > 0.95, "t11 {state}: {c:?}");
    }
    let lit = compare(&off, &on);
    assert!(
        lit.mae_linear > 0.003 && lit.black_a > lit.black_b + 0.3,
        "t11 lights nothing: {lit:?}"
    );
    let out = lanthorn()
        .arg("capture")
        .arg(&map)
        .args(["--switch", "t99", "-o"])
        .arg(dir.join("x.png"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("the level's: t3, t11, t12, t13, t14"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
