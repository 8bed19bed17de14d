//! Archives built in a temporary folder (the format is public and small): what they hold,
//! and each way a damaged one fails — one error naming the file and what is wrong.

use super::*;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-pak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_built_archive_reads_back_every_file() {
    let path = temp(
        "two.pak",
        &build(&[("maps/a.bsp", b"alpha"), ("gfx/palette.lmp", b"pp")]),
    );
    let pak = Pak::open(&path).unwrap();
    assert_eq!(pak.entries.len(), 2);
    let a = pak.find("MAPS/A.BSP").unwrap();
    assert_eq!(pak.read(a).unwrap(), b"alpha");
    assert_eq!(
        pak.read(pak.find("gfx/palette.lmp").unwrap()).unwrap(),
        b"pp"
    );
    assert!(pak.find("maps/b.bsp").is_none());
}

#[test]
fn a_name_listed_twice_is_the_later_entry() {
    let path = temp("twice.pak", &build(&[("x.txt", b"old"), ("x.txt", b"new")]));
    let pak = Pak::open(&path).unwrap();
    assert_eq!(pak.read(pak.find("x.txt").unwrap()).unwrap(), b"new");
}

#[test]
fn damaged_archives_are_one_clear_error() {
    let good = build(&[("maps/a.bsp", b"alpha")]);
    let dir_at = |b: &mut Vec<u8>, offset: i32, length: i32| {
        b[4..8].copy_from_slice(&offset.to_le_bytes());
        b[8..12].copy_from_slice(&length.to_le_bytes());
    };
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    cases.push(("short.pak", b"PAC".to_vec(), "not a Quake PACK archive"));
    let mut wad = good.clone();
    wad[..4].copy_from_slice(b"WAD2");
    cases.push(("magic.pak", wad, "not a Quake PACK archive"));
    let mut past = good.clone();
    dir_at(&mut past, 17, 64_000);
    cases.push(("dirpast.pak", past, "lies outside the file"));
    let mut negative = good.clone();
    dir_at(&mut negative, -5, 64);
    cases.push(("negative.pak", negative, "lies outside the file"));
    let mut ragged = good.clone();
    dir_at(&mut ragged, 17, 63);
    cases.push(("ragged.pak", ragged, "whole number of 64-byte entries"));
    cases.push(("empty.pak", build(&[]), "holds no files"));
    let mut entry_past = good.clone();
    let at = entry_past.len() - 8;
    entry_past[at..at + 4].copy_from_slice(&1_000_000i32.to_le_bytes());
    cases.push((
        "entrypast.pak",
        entry_past,
        "entry 0 (\"maps/a.bsp\") points past the end",
    ));
    let mut long = good.clone();
    let at = long.len() - 8;
    long[at + 4..at + 8].copy_from_slice(&i32::MAX.to_le_bytes());
    cases.push(("huge.pak", long, "points past the end"));
    let mut unnamed = good.clone();
    let at = unnamed.len() - 64;
    unnamed[at..at + 56].fill(b'a');
    cases.push(("unnamed.pak", unnamed, "unterminated"));
    for (name, bytes, says) in cases {
        let path = temp(name, &bytes);
        let err = Pak::open(&path).expect_err(name).to_string();
        assert!(err.starts_with(&path.display().to_string()), "{err}");
        assert!(err.contains(says), "{name}: {err}");
    }
    let missing = std::env::temp_dir().join("lanthorn-no-such.pak");
    let err = Pak::open(&missing).unwrap_err().to_string();
    assert!(err.starts_with(&missing.display().to_string()), "{err}");
}
