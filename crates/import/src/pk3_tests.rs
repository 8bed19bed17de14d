//! Archives built in a temporary folder by `build` (a zip writer of the format's public layout),
//! each way a damaged one fails — one error naming the archive, the entry and what is wrong —
//! and OpenArena's own pk3 files where Debian installs them: every map inflates to the bytes
//! its CRC-32 names and is a Quake 3 IBSP 46.

use super::*;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-pk3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Text long enough that deflate really compresses it.
fn text(seed: u8) -> Vec<u8> {
    (0..5000u32)
        .map(|i| b"textures/base_wall/"[(i as usize * 7 + seed as usize) % 19])
        .collect()
}

#[test]
fn a_built_archive_reads_back_every_file_stored_or_deflated() {
    let (a, b) = (text(1), text(2));
    let bytes = build(&[
        ("maps/", b"", false),
        ("maps/a.bsp", &a, true),
        ("scripts/b.shader", &b, false),
        ("empty.txt", b"", true),
    ]);
    assert!(bytes.len() < a.len() + b.len(), "deflate did not compress");
    let pk3 = Pk3::open(&temp("files.pk3", &bytes)).unwrap();
    let names: Vec<&str> = pk3.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["maps/a.bsp", "scripts/b.shader", "empty.txt"]);
    assert_eq!(pk3.read(pk3.find("MAPS/A.BSP").unwrap()).unwrap(), a);
    assert_eq!(pk3.read(pk3.find("scripts/b.shader").unwrap()).unwrap(), b);
    assert_eq!(pk3.read(pk3.find("empty.txt").unwrap()).unwrap(), b"");
    assert!(pk3.find("maps/").is_none() && pk3.find("maps/c.bsp").is_none());
}

#[test]
fn a_name_listed_twice_is_the_later_entry() {
    let bytes = build(&[("x.txt", b"old", false), ("x.txt", b"new", true)]);
    let pk3 = Pk3::open(&temp("twice.pk3", &bytes)).unwrap();
    assert_eq!(pk3.read(pk3.find("x.txt").unwrap()).unwrap(), b"new");
}

/// The archive `good` with bytes `at..` replaced by `with`.
fn patched(good: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut b = good.to_vec();
    b[at..at + with.len()].copy_from_slice(with);
    b
}

/// Where the first central directory header starts in a `build` archive.
fn central(bytes: &[u8]) -> usize {
    let end = bytes.len() - END as usize;
    u32_at(bytes, end + 16) as usize
}

fn open_error(name: &str, bytes: &[u8]) -> String {
    Pk3::open(&temp(name, bytes)).unwrap_err().to_string()
}

fn read_error(name: &str, bytes: &[u8]) -> String {
    let pk3 = Pk3::open(&temp(name, bytes)).unwrap();
    pk3.read(&pk3.entries[0]).unwrap_err().to_string()
}

#[test]
fn damaged_archives_are_one_clear_error() {
    let data = text(3);
    let good = build(&[("maps/a.bsp", &data, true)]);
    let c = central(&good);
    let cases: Vec<(&str, String, &str)> = vec![
        ("short.pk3", open_error("short.pk3", b"PK"), "too short"),
        (
            "pak.pk3",
            open_error("pak.pk3", &[7u8; 300]),
            "no end of central directory",
        ),
        (
            "zip64.pk3",
            open_error("zip64.pk3", &patched(&good, good.len() - 6, &[0xFF; 4])),
            "ZIP64",
        ),
        (
            "past.pk3",
            open_error(
                "past.pk3",
                &patched(&good, good.len() - 10, &[0xFF, 0xFF, 0, 0]),
            ),
            "lies past its end record",
        ),
        (
            "method.pk3",
            open_error("method.pk3", &patched(&good, c + 10, &[12, 0])),
            "other than store or deflate",
        ),
        (
            "locked.pk3",
            open_error("locked.pk3", &patched(&good, c + 8, &[1, 0])),
            "encrypted",
        ),
        (
            "local.pk3",
            open_error("local.pk3", &patched(&good, c + 42, &[0xF0, 0xFF, 0, 0])),
            "past the start of the central directory",
        ),
        (
            "crc.pk3",
            read_error("crc.pk3", &patched(&good, c + 16, &[0, 0, 0, 0])),
            "CRC-32",
        ),
        (
            "size.pk3",
            read_error("size.pk3", &patched(&good, c + 24, &[1, 0, 0, 0])),
            "does not inflate",
        ),
        (
            "huge.pk3",
            read_error(
                "huge.pk3",
                &patched(&good, c + 24, &[0xF0, 0xFF, 0xFF, 0xFF]),
            ),
            "inflates to 5000 bytes where the directory says 4294967280",
        ),
        (
            "nolocal.pk3",
            read_error("nolocal.pk3", &patched(&good, 0, b"XXXX")),
            "no local header",
        ),
    ];
    for (name, err, expected) in cases {
        assert!(
            err.contains(name) && err.contains(expected),
            "{name}: {err} (expected {expected:?})"
        );
    }
}

/// Random damage never panics or hangs: the archive opens, or its entries read, or one error says
/// why. Every prefix of an archive too (a truncated download).
#[test]
fn corrupted_archives_never_panic() {
    let (a, b) = (text(4), text(5));
    let good = build(&[("maps/a.bsp", &a, true), ("b.txt", &b, false)]);
    let mut rng = lanthorn_geom::rng::XorShift::seeded(46);
    let path = temp("mutant.pk3", &good);
    let try_all = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        if let Ok(pk3) = Pk3::open(&path) {
            for e in &pk3.entries {
                let _ = pk3.read(e);
            }
        }
    };
    for _ in 0..400 {
        let mut bytes = good.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(bytes.len());
            bytes[i] = rng.below(256) as u8;
        }
        try_all(&bytes);
    }
    for len in (0..good.len()).step_by(7) {
        try_all(&good[..len]);
    }
}

/// OpenArena's archives as Debian installs them (`openarena-data`, `openarena-081-maps`):
/// every entry of every pk3 is listed, and every map inflates to the bytes its CRC-32 names
/// and starts as a Quake 3 BSP does ("IBSP", version 46).
#[test]
fn openarenas_maps_read_from_its_pk3_files() {
    let base = Path::new("/usr/share/games/openarena/baseoa");
    let mut pk3s: Vec<PathBuf> = match std::fs::read_dir(base) {
        Ok(dir) => dir.flatten().map(|e| e.path()).collect(),
        Err(_) => return lanthorn_testdata::missing_realdata(base),
    };
    pk3s.retain(|p| p.extension().is_some_and(|e| e == "pk3"));
    pk3s.sort();
    let (mut maps, mut entries) = (0, 0);
    for path in &pk3s {
        let pk3 = Pk3::open(path).unwrap();
        entries += pk3.entries.len();
        for e in pk3.entries.iter().filter(|e| {
            e.name.starts_with("maps/") && e.name.to_ascii_lowercase().ends_with(".bsp")
        }) {
            let bytes = pk3.read(e).unwrap();
            assert_eq!(bytes.len() as u64, e.size);
            assert_eq!(&bytes[..4], b"IBSP", "{}:{}", path.display(), e.name);
            assert_eq!(u32_at(&bytes, 4), 46, "{}:{}", path.display(), e.name);
            maps += 1;
        }
    }
    eprintln!("{} pk3 files, {entries} entries, {maps} maps", pk3s.len());
    assert!(maps >= 20, "only {maps} maps in {}", base.display());
}
