//! Mutation tests of every loader, run through the `lanthorn` program itself: each damaged
//! input is loaded in a subprocess under a memory limit (`ulimit -v`) and a timeout, and the
//! run must end in a load or in one clear error — never a panic, a signal, a hang, memory past
//! the limit, a flood of stderr, or an output file left after an error.
//!
//! Inputs: Quake BSP29 files of `../shared/realdata` (truncations, byte flips, lump offsets,
//! lengths and counts out of range), `.map` text (a hand-written room and e1m1: broken
//! syntax, huge and non-finite coordinates, degenerate planes, long tokens), `.ron` scenes
//! (wrong types, huge and non-finite numbers), every section of a `.lvl`, and a 16-bit PNG
//! heightmap with its sidecar. Seeded: the same cases every run. `LANTHORN_MUTATION_SCALE=N`
//! runs N times as many (a longer run); the default keeps the whole test under a minute.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space a loader may use (KiB): the limit past which a run counts as unbounded.
const MEMORY_KIB: u64 = 2 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(20);
/// More stderr than this is a message said too often or a token echoed whole.
const MAX_STDERR: usize = 16 * 1024;

/// Cases that loaded (the rest were refused), over all the tests of this run: printed with
/// `--nocapture --test-threads 1` per format.
static LOADED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn loaded() -> usize {
    LOADED.load(std::sync::atomic::Ordering::Relaxed)
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 17
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn scale() -> usize {
    std::env::var("LANTHORN_MUTATION_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-mutation-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `lanthorn ARGS` under the memory limit and the timeout; fails the test on a panic, a
/// signal, a hang or too much stderr; returns whether it succeeded.
fn run(args: &[&str], case: &str) -> bool {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lanthorn"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{case}: still running after {TIMEOUT:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = reader.join().unwrap();
    let text = String::from_utf8_lossy(&err);
    assert!(!text.contains("panicked"), "{case}: panicked:\n{text}");
    assert!(
        !text.contains("memory allocation of"),
        "{case}: ran out of memory (over {MEMORY_KIB} KiB):\n{text}"
    );
    assert!(
        err.len() <= MAX_STDERR,
        "{case}: {} bytes of stderr:\n{}",
        err.len(),
        &text[..2000.min(text.len())]
    );
    LOADED.fetch_add(
        usize::from(status.code() == Some(0)),
        std::sync::atomic::Ordering::Relaxed,
    );
    match status.code() {
        Some(0) => true,
        Some(1) => {
            assert!(text.contains("error"), "{case}: failed without a message");
            false
        }
        other => panic!("{case}: exit {other:?} (a signal or a crash):\n{text}"),
    }
}

/// `lanthorn compile IN -o OUT`: on an error no output may be left.
fn compile(input: &Path, case: &str) {
    let out = input.with_extension("lvl");
    let _ = std::fs::remove_file(&out);
    let ok = run(
        &[
            "compile",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--no-light",
        ],
        case,
    );
    assert_eq!(
        ok,
        out.exists(),
        "{case}: output file {} after exit ok={ok}",
        out.display()
    );
}

fn info(input: &Path, case: &str) {
    run(&["info", "--json", input.to_str().unwrap()], case);
}

/// Byte-level damage: a truncation, or a few bytes set at random.
fn damage(bytes: &[u8], rng: &mut Lcg) -> Vec<u8> {
    let mut b = bytes.to_vec();
    if rng.below(2) == 0 {
        b.truncate(rng.below(bytes.len()));
    } else {
        for _ in 0..1 + rng.below(8) {
            let i = rng.below(b.len());
            b[i] = rng.next() as u8;
        }
    }
    b
}

/// Geometry damage that still parses: a few digits changed to other digits.
fn digit_flips(text: &str, rng: &mut Lcg) -> String {
    let mut b = text.as_bytes().to_vec();
    let digits: Vec<usize> = (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
    for _ in 0..1 + rng.below(6) {
        b[digits[rng.below(digits.len())]] = b'0' + rng.below(10) as u8;
    }
    String::from_utf8(b).expect("digits for digits")
}

fn realdata() -> Option<PathBuf> {
    let dir = lanthorn::realdata_dir().join("quake");
    if dir.join("bsp/e1m1.bsp").exists() {
        Some(dir)
    } else {
        let msg = format!("*** SKIPPED: {} is missing ***", dir.display());
        assert!(std::env::var("CI").is_err(), "{msg}");
        eprintln!("{msg}");
        None
    }
}

/// BSP29: truncations and flips, and every lump's offset and length (the 15 entries of the
/// header) and the texture count set out of range.
#[test]
fn bsp29_mutations() {
    let Some(dir) = realdata() else { return };
    let work = scratch("bsp");
    let mut rng = Lcg(29);
    let mut cases = 0;
    let before = loaded();
    for name in ["e1m1", "dm3"] {
        let bytes = std::fs::read(dir.join(format!("bsp/{name}.bsp"))).unwrap();
        let file = work.join(format!("{name}.bsp"));
        let bad = [
            i32::MAX,
            i32::MIN,
            -1,
            bytes.len() as i32,
            bytes.len() as i32 - 3,
            7,
        ];
        for lump in 0..15 {
            for field in 0..2 {
                let mut b = bytes.clone();
                let at = 4 + lump * 8 + field * 4;
                b[at..at + 4].copy_from_slice(&bad[rng.below(bad.len())].to_le_bytes());
                std::fs::write(&file, &b).unwrap();
                info(&file, &format!("{name} lump {lump} field {field}"));
                cases += 1;
            }
        }
        // The miptex lump's texture count.
        let tex = i32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
        for count in [i32::MAX, -5, 1 << 20] {
            let mut b = bytes.clone();
            b[tex..tex + 4].copy_from_slice(&count.to_le_bytes());
            std::fs::write(&file, &b).unwrap();
            info(&file, &format!("{name} texture count {count}"));
            cases += 1;
        }
        for k in 0..40 * scale() {
            std::fs::write(&file, damage(&bytes, &mut rng)).unwrap();
            info(&file, &format!("{name} damage {k}"));
            cases += 1;
        }
    }
    eprintln!("bsp29: {cases} cases ({} loaded)", loaded() - before);
    std::fs::remove_dir_all(&work).unwrap();
}

/// A sealed room (walls 16 thick around 0..512) with a player start: the `.map` base case.
fn room(wall: &dyn Fn(usize) -> ([String; 3], [String; 3])) -> String {
    let mut s = String::from("{\n\"classname\" \"worldspawn\"\n");
    for i in 0..6 {
        let (a, b) = wall(i);
        s += &lanthorn_testdata::box_brush(
            a.each_ref().map(String::as_str),
            b.each_ref().map(String::as_str),
            "wall",
        );
    }
    s + "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 64 64\"\n}\n"
}

fn room_walls(i: usize) -> ([String; 3], [String; 3]) {
    let (mut a, mut b) = ([-16; 3], [528; 3]);
    let k = i / 2;
    if i.is_multiple_of(2) {
        b[k] = 0;
    } else {
        a[k] = 512;
    }
    (a.map(|v| v.to_string()), b.map(|v| v.to_string()))
}

/// Replaces the `n`-th whitespace-separated number of `text` with `with`.
fn replace_number(text: &str, rng: &mut Lcg, with: &str) -> String {
    let spans: Vec<(usize, usize)> = text
        .match_indices(|c: char| c.is_ascii_digit())
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric())
        .map(|i| {
            let end = text[i..]
                .find(|c: char| !c.is_ascii_digit() && c != '.')
                .map_or(text.len(), |e| i + e);
            (i, end)
        })
        .collect();
    let (s, e) = spans[rng.below(spans.len())];
    format!("{}{with}{}", &text[..s], &text[e..])
}

/// `.map`: syntax broken at random, huge and non-finite coordinates, degenerate planes,
/// brushes as large as allowed (and beyond), a 10 MB token, an empty file; the room and e1m1.
#[test]
fn map_mutations() {
    let work = scratch("map");
    let file = work.join("m.map");
    let mut rng = Lcg(1996);
    let mut cases = 0;
    let before = loaded();
    let base = room(&room_walls);
    let mut texts: Vec<(String, String)> = vec![
        ("empty".into(), String::new()),
        (
            "only worldspawn".into(),
            "{\n\"classname\" \"worldspawn\"\n}\n".into(),
        ),
        (
            "long token".into(),
            format!(
                "{{\n\"classname\" \"worldspawn\"\n{{\n( {} 0 0 )\n}}\n}}\n",
                "9".repeat(10 << 20)
            ),
        ),
        (
            "long texture".into(),
            base.replacen("wall", &"w".repeat(10 << 20), 1),
        ),
    ];
    for n in ["32768", "65536", "65537", "1e9"] {
        let m = format!("-{n}");
        texts.push((
            format!("cube ±{n}"),
            base.replacen(
                "{\n(",
                &format!(
                    "{}{{\n(",
                    lanthorn_testdata::box_brush([m.as_str(); 3], [n; 3], "wall")
                ),
                1,
            ),
        ));
    }
    for with in [
        "nan",
        "inf",
        "-inf",
        "1e308",
        "-65537",
        "99999999999999999999",
        "0x10",
        "1e-320",
        "(",
    ] {
        for _ in 0..2 {
            texts.push((
                format!("number → {with}"),
                replace_number(&base, &mut rng, with),
            ));
        }
    }
    // Degenerate planes: a face whose three points coincide or are collinear.
    texts.push((
        "collinear face".into(),
        base.replacen("( -16 528 -16 )", "( -16 -16 -16 )", 1),
    ));
    texts.push((
        "point face".into(),
        base.replacen("( -16 -16 528 )", "( -16 -16 -16 )", 1),
    ));
    for k in 0..40 * scale() {
        let b = damage(base.as_bytes(), &mut rng);
        texts.push((
            format!("room damage {k}"),
            String::from_utf8_lossy(&b).into_owned(),
        ));
        texts.push((format!("room digits {k}"), digit_flips(&base, &mut rng)));
    }
    for (case, text) in &texts {
        std::fs::write(&file, text).unwrap();
        compile(&file, case);
        cases += 1;
    }
    if let Some(dir) = realdata() {
        let e1m1 = std::fs::read(dir.join("maps/e1m1.map")).unwrap();
        let text = String::from_utf8_lossy(&e1m1).into_owned();
        for k in 0..6 * scale() {
            std::fs::write(&file, damage(&e1m1, &mut rng)).unwrap();
            compile(&file, &format!("e1m1 damage {k}"));
            std::fs::write(&file, digit_flips(&text, &mut rng)).unwrap();
            compile(&file, &format!("e1m1 digits {k}"));
            cases += 2;
        }
        // One brush replaced by a ±65536 cube.
        let at = text.find("\n{\n(").unwrap() + 1;
        let end = at + text[at..].find("}\n").unwrap() + 2;
        let cube = lanthorn_testdata::box_brush(["-65536"; 3], ["65536"; 3], "wall");
        std::fs::write(&file, format!("{}{cube}{}", &text[..at], &text[end..])).unwrap();
        compile(&file, "e1m1 with a ±65536 cube");
        cases += 1;
    }
    eprintln!(".map: {cases} cases ({} loaded)", loaded() - before);
    std::fs::remove_dir_all(&work).unwrap();
}

const SCENE: &str = r#"Scene(
    ops: [
        (brush: Box(min: (0, 0, 0), max: (512, 256, 128)), medium: Air, material: Some("stone")),
        (brush: Box(min: (100, 100, 0), max: (164, 164, 128)), medium: Solid),
        (brush: Box(min: (0, 0, 0), max: (300, 256, 32)), medium: Water, only: Some([Air])),
        (brush: Planes([(normal: (0, 0, -1), dist: 0), (normal: (-1, 0, 0), dist: -400), (normal: (1, 0, 0), dist: 500),
            (normal: (0, -1, 0), dist: 0), (normal: (0, 1, 0), dist: 96), (normal: (-1, 0, 3), dist: -400)]), medium: Solid),
    ],
    entities: [[("classname", "info_player_start"), ("origin", "32 32 64")], [("classname", "light"), ("origin", "200 128 100")]],
    outdoor: [Box(min: (400, 0, 0), max: (512, 256, 128))],
)"#;

/// `.ron`: numbers replaced by huge, non-finite or wrongly typed values, names misspelt,
/// bytes damaged (not UTF-8 included), a huge box; the scene above and 50 random boxes.
#[test]
fn ron_mutations() {
    let work = scratch("ron");
    let file = work.join("s.ron");
    let mut rng = Lcg(2026);
    let mut cases = 0;
    let before = loaded();
    let boxes = ron::to_string(&lanthorn::compile::scene::random_boxes(50, 3)).unwrap();
    let mut texts = vec![
        (
            "huge box".to_string(),
            SCENE.replacen("(512, 256, 128)", "(65536, 65536, 65536)", 1),
        ),
        (
            "beyond the limit".into(),
            SCENE.replacen("(512, 256, 128)", "(1e300, 1, 1)", 1),
        ),
        (
            "zero normal".into(),
            SCENE.replacen("(0, 0, -1)", "(0, 0, 0)", 1),
        ),
        ("misspelt field".into(), SCENE.replacen("max:", "maxx:", 1)),
        (
            "unknown medium".into(),
            SCENE.replacen("Water", "Plasma", 1),
        ),
        (
            "not utf-8".into(),
            String::from_utf8_lossy(b"Scene(ops: [\xff])").into_owned(),
        ),
        ("empty".into(), String::new()),
    ];
    for base in [SCENE, boxes.as_str()] {
        for with in [
            "NaN",
            "inf",
            "-inf",
            "1e308",
            "-1e308",
            "\"x\"",
            "[]",
            "99999999999999999999999",
            "-0",
        ] {
            for _ in 0..2 {
                texts.push((
                    format!("number → {with}"),
                    replace_number(base, &mut rng, with),
                ));
            }
        }
        for k in 0..20 * scale() {
            texts.push((
                format!("damage {k}"),
                String::from_utf8_lossy(&damage(base.as_bytes(), &mut rng)).into_owned(),
            ));
            texts.push((format!("digits {k}"), digit_flips(base, &mut rng)));
        }
    }
    for (case, text) in &texts {
        std::fs::write(&file, text).unwrap();
        compile(&file, case);
        cases += 1;
    }
    std::fs::write(&file, b"Scene(ops: [\xff\xfe])").unwrap();
    compile(&file, "invalid utf-8 bytes");
    cases += 1;
    eprintln!(".ron: {cases} cases ({} loaded)", loaded() - before);
    std::fs::remove_dir_all(&work).unwrap();
}

/// A scene's PNG material damaged (truncated, bytes flipped, its header's size made 0 or
/// 100000 texels), and the other bad material entries: each compile loads or is one error.
#[test]
fn ron_texture_mutations() {
    let work = scratch("ron-textures");
    let file = work.join("s.ron");
    let png = work.join("t.png");
    let scene = |materials: &str| {
        format!(
            "Scene(materials: [{materials}], ops: [(brush: Box(min: (0, 0, 0), max: (256, 256, \
             128)), medium: Air, material: Some(\"t\"), texture: Some((scale: (2, 2))))])"
        )
    };
    let good =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/textures/brick.png"))
            .unwrap();
    let mut rng = Lcg(2027);
    let before = loaded();
    let mut cases = 0;
    std::fs::write(&file, scene(r#"(name: "t", source: Png("t.png"))"#)).unwrap();
    let mut pngs: Vec<(String, Vec<u8>)> = (0..20 * scale())
        .map(|k| (format!("png damage {k}"), damage(&good, &mut rng)))
        .collect();
    pngs.push(("png intact".into(), good.clone()));
    for (what, size) in [("zero", 0u32), ("huge", 100_000)] {
        let mut b = good.clone();
        b[16..20].copy_from_slice(&size.to_be_bytes());
        b[20..24].copy_from_slice(&size.to_be_bytes());
        pngs.push((format!("png {what} size"), b));
    }
    for (case, bytes) in &pngs {
        std::fs::write(&png, bytes).unwrap();
        compile(&file, case);
        cases += 1;
    }
    for (case, materials) in [
        ("missing png", r#"(name: "t", source: Png("nope.png"))"#),
        ("png is a folder", r#"(name: "t", source: Png("."))"#),
        (
            "unknown generator",
            r#"(name: "t", source: Procedural("marble"))"#,
        ),
        (
            "listed twice",
            r#"(name: "t", source: Color((1, 1, 1))), (name: "t", source: Color((0, 0, 0)))"#,
        ),
        (
            "colour out of range",
            r#"(name: "t", source: Color((1e30, -1, 0)))"#,
        ),
    ] {
        std::fs::write(&file, scene(materials)).unwrap();
        compile(&file, case);
        cases += 1;
    }
    eprintln!(
        ".ron textures: {cases} cases ({} loaded)",
        loaded() - before
    );
    assert!(loaded() > before, "the intact PNG did not load");
    std::fs::remove_dir_all(&work).unwrap();
}

/// `.lvl`: each section of a compiled level truncated inside, its first word (a count or a
/// flag) set to huge values, and bytes inside it flipped.
#[test]
fn lvl_mutations() {
    let work = scratch("lvl");
    let src = work.join("scene.ron");
    std::fs::write(&src, SCENE).unwrap();
    let lvl = work.join("scene.lvl");
    let opts = lanthorn::compile::CompileOptions {
        allow_leak: true,
        ..Default::default()
    };
    lanthorn::compile::compile_to_file(&src, &lvl, &opts).unwrap();
    let mut level = lanthorn::level::load_lvl(&lvl).unwrap();
    // Every optional section present: a PVS and a leak path too.
    level.pvs = Some(lanthorn::level::Pvs {
        row_bytes: level.cells.len().div_ceil(8),
        rows: vec![0xff; level.cells.len() * level.cells.len().div_ceil(8)],
    });
    level.leak = Some(lanthorn::level::LeakPath {
        entity: "light".into(),
        line: 3,
        points: vec![glam::Vec3::ZERO, glam::Vec3::ONE],
        crossings: vec!["entity 1 (func_detail) brush 0 (line 9): never seals".into()],
    });
    let bytes = lanthorn::level::file::to_bytes(&level);
    let spans = lanthorn::level::file::section_spans(&level);
    assert_eq!(spans.last().unwrap().1.end, bytes.len());
    let file = work.join("m.lvl");
    std::fs::write(&file, &bytes).unwrap();
    assert!(run(
        &["info", file.to_str().unwrap()],
        "the undamaged level"
    ));
    let mut rng = Lcg(1);
    let mut cases = 1;
    let before = loaded() - 1;
    for (name, span) in &spans {
        let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
        if span.len() >= 4 {
            for word in [u32::MAX, 0x8000_0000, 0x7fff_ffff, 3] {
                let mut b = bytes.clone();
                b[span.start..span.start + 4].copy_from_slice(&word.to_le_bytes());
                variants.push((format!("first word {word:#x}"), b));
            }
        }
        for k in 0..8 * scale() {
            let mut b = bytes.clone();
            b.truncate(span.start + rng.below(span.len()));
            variants.push((format!("truncated {k}"), b));
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                b[span.start + rng.below(span.len())] = rng.next() as u8;
            }
            variants.push((format!("flipped {k}"), b));
        }
        for (what, b) in variants {
            std::fs::write(&file, &b).unwrap();
            info(&file, &format!("section {name}: {what}"));
            cases += 1;
        }
    }
    eprintln!(
        ".lvl: {cases} cases over {} sections ({} loaded)",
        spans.len(),
        loaded() - before
    );
    std::fs::remove_dir_all(&work).unwrap();
}

/// A 16-bit PNG heightmap and its sidecar: PNG bytes damaged (its header's size included),
/// the sidecar's numbers huge, non-finite, wrongly typed or contradicting the image.
#[test]
fn heightmap_mutations() {
    let work = scratch("png");
    let png = work.join("hills.png");
    let sidecar = work.join("hills.json");
    let img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(64, 48, |x, y| {
        image::Luma([(x * 1000 + y * 37) as u16])
    });
    img.save(&png).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    let good = r#"{"height_min_m": -10, "height_max_m": 250, "width": 64, "height": 48}"#;
    std::fs::write(&sidecar, good).unwrap();
    let spec = format!("{}", png.display());
    let args = ["info", "--json", "--terrain", spec.as_str()];
    assert!(run(&args, "the undamaged heightmap"));
    let mut rng = Lcg(16);
    let mut cases = 1;
    let before = loaded() - 1;
    let sidecars = [
        r#"{"height_min_m": -1e308, "height_max_m": 1e308}"#,
        r#"{"height_min_m": 0, "height_max_m": NaN}"#,
        r#"{"height_min_m": "low", "height_max_m": 5}"#,
        r#"{"height_min_m": 5, "height_max_m": 5}"#,
        r#"{"height_min_m": 0, "height_max_m": 1, "width": 4294967295, "height": 1}"#,
        r#"{"height_min_m": 0, "height_max_m": 1, "width": -1}"#,
        "",
        "[",
    ];
    for (k, text) in sidecars.iter().enumerate() {
        std::fs::write(&sidecar, text).unwrap();
        run(&args, &format!("sidecar {k}: {text}"));
        cases += 1;
    }
    std::fs::write(&sidecar, good).unwrap();
    // The IHDR width and height (bytes 16..24) set huge: the decoder must refuse, not allocate.
    for at in [16, 20] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_be_bytes());
        std::fs::write(&png, &b).unwrap();
        run(&args, &format!("IHDR word at {at} huge"));
        cases += 1;
    }
    for k in 0..40 * scale() {
        std::fs::write(&png, damage(&bytes, &mut rng)).unwrap();
        run(&args, &format!("png damage {k}"));
        cases += 1;
    }
    eprintln!(
        "png + sidecar: {cases} cases ({} loaded)",
        loaded() - before
    );
    std::fs::remove_dir_all(&work).unwrap();
}

/// Command-line values that would silently do something else are refused, once, by name.
#[test]
fn cli_refusals() {
    let work = scratch("cli");
    let jpg = work.join("x.jpg");
    let empty = work.join("empty.map");
    std::fs::write(&empty, "").unwrap();
    let out = work.join("empty.lvl");
    std::fs::write(&out, b"stale").unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["bench", "--frames", "0"], "--frames"),
        (&["demo", "--frames", "0"], "--frames"),
        (
            &["capture", "-o", jpg.to_str().unwrap()],
            "only PNG images are written",
        ),
        (
            &["demo", "--frames", "1", "--screenshot", "shot.bmp"],
            "only PNG images are written",
        ),
        (
            &[
                "compile",
                empty.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            "the map has no entities",
        ),
    ];
    for (args, says) in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert_eq!(text.matches(says).count(), 1, "{args:?}: {text}");
    }
    assert!(!jpg.exists());
    assert!(!out.exists(), "a failed compile removes the stale output");
    std::fs::remove_dir_all(&work).unwrap();
}

/// With no Vulkan driver to be found (and GL not tried) the program says which driver to
/// install, once, and exits 1: no panic.
#[test]
fn zero_adapters_name_the_driver_to_install() {
    let o = Command::new(env!("CARGO_BIN_EXE_lanthorn"))
        .arg("info")
        .env("VK_ICD_FILENAMES", "/nonexistent/no-driver.json")
        .env("VK_DRIVER_FILES", "/nonexistent/no-driver.json")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(
        text.matches("apt-get install -y mesa-vulkan-drivers")
            .count(),
        1,
        "{text}"
    );
    assert_eq!(text.matches("no GPU adapter found").count(), 1, "{text}");
}

/// A downloaded map alone in a folder: no palette in reach is said once on stderr, with what
/// to give; a palette in `gfx/` beside it, or `--palette`, silences it; a bad `--palette` is
/// one error naming the file.
#[test]
fn a_bsp_alone_says_once_that_it_has_no_palette() {
    let Some(quake) = realdata() else { return };
    let work = scratch("palette");
    let bsp = work.join("e1m1.bsp");
    std::fs::copy(quake.join("bsp/e1m1.bsp"), &bsp).unwrap();
    let info = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .arg("info")
            .arg(&bsp)
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let warning = "no Quake palette found";
    let (ok, text) = info(&[]);
    assert!(ok, "{text}");
    assert_eq!(text.matches(warning).count(), 1, "{text}");
    assert_eq!(text.matches("--palette FILE").count(), 1, "{text}");
    let palette = quake.join("palette.lmp");
    let (ok, text) = info(&["--palette", palette.to_str().unwrap()]);
    assert!(ok && !text.contains(warning), "{text}");
    let short = work.join("short.lmp");
    std::fs::write(&short, [0u8; 10]).unwrap();
    let (ok, text) = info(&["--palette", short.to_str().unwrap()]);
    assert!(!ok, "{text}");
    assert_eq!(
        text.matches("short.lmp: not a Quake palette").count(),
        1,
        "{text}"
    );
    std::fs::create_dir_all(work.join("gfx")).unwrap();
    std::fs::copy(&palette, work.join("gfx/palette.lmp")).unwrap();
    let (ok, text) = info(&[]);
    assert!(ok && !text.contains(warning), "{text}");
    // A bare name in a game's maps/ folder looks above it (../gfx/palette.lmp).
    std::fs::create_dir_all(work.join("maps")).unwrap();
    std::fs::copy(&bsp, work.join("maps/e1m1.bsp")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_lanthorn"))
        .args(["info", "e1m1.bsp"])
        .current_dir(work.join("maps"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !text.contains(warning), "{text}");
    std::fs::remove_dir_all(&work).unwrap();
}
