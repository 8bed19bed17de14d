//! The search path's order against Quake's, on game folders built in a temporary folder.

use super::*;
use lanthorn_import::pak::build;

fn game_folders(test: &str) -> PathBuf {
    let base = std::env::temp_dir().join(format!("lanthorn-basedir-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let id1 = base.join("id1");
    let hipnotic = base.join("hipnotic");
    std::fs::create_dir_all(&id1).unwrap();
    std::fs::create_dir_all(&hipnotic).unwrap();
    let write = |path: PathBuf, bytes: &[u8]| std::fs::write(path, bytes).unwrap();
    write(
        id1.join("pak0.pak"),
        &build(&[("a.txt", b"id1 pak0"), ("b.txt", b"id1 pak0")]),
    );
    write(id1.join("pak1.pak"), &build(&[("a.txt", b"id1 pak1")]));
    // After a gap: Quake stops at the first missing number.
    write(id1.join("pak3.pak"), &build(&[("d.txt", b"id1 pak3")]));
    write(id1.join("b.txt"), b"id1 loose");
    write(id1.join("c.txt"), b"id1 loose");
    write(hipnotic.join("pak0.pak"), &build(&[("c.txt", b"mod pak0")]));
    write(hipnotic.join("e.txt"), b"mod loose");
    base
}

fn text(search: &SearchPath, name: &str) -> Option<String> {
    search
        .read(name)
        .map(|f| String::from_utf8(f.unwrap().bytes).unwrap())
}

#[test]
fn names_resolve_in_quakes_order() {
    let base = game_folders("order");
    let id1 = SearchPath::new(&base, None).unwrap();
    assert_eq!(
        text(&id1, "a.txt").as_deref(),
        Some("id1 pak1"),
        "later pak wins"
    );
    assert_eq!(
        text(&id1, "B.TXT").as_deref(),
        Some("id1 pak0"),
        "a pak over a loose file"
    );
    assert_eq!(text(&id1, "c.txt").as_deref(), Some("id1 loose"));
    assert_eq!(text(&id1, "d.txt"), None, "pak3 after a gap is not read");
    assert_eq!(text(&id1, "e.txt"), None);
    let hipnotic = SearchPath::new(&base, Some("hipnotic")).unwrap();
    assert_eq!(
        text(&hipnotic, "c.txt").as_deref(),
        Some("mod pak0"),
        "the mod over id1"
    );
    assert_eq!(text(&hipnotic, "e.txt").as_deref(), Some("mod loose"));
    assert_eq!(text(&hipnotic, "a.txt").as_deref(), Some("id1 pak1"));
    let found = hipnotic.read("c.txt").unwrap().unwrap();
    assert!(
        found.origin.ends_with("hipnotic/pak0.pak:c.txt"),
        "{}",
        found.origin
    );
    let order = hipnotic.describe();
    let at = |s: &str| order.find(s).unwrap_or_else(|| panic!("{s} in {order}"));
    assert!(at("hipnotic/pak0.pak") < at("hipnotic/,"));
    assert!(at("id1/pak1.pak") < at("id1/pak0.pak"));
    let _ = std::fs::remove_dir_all(&base);
}

/// Quake 3's rule (ioquake3's `FS_AddGameDirectory`): a folder's pk3 files sorted by name, the
/// last searched first, all before its loose files; no `id1` is needed beside the game.
#[test]
fn pk3_files_resolve_in_quake_3s_order() {
    let base = std::env::temp_dir().join(format!("lanthorn-basedir-q3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let game = base.join("baseoa");
    std::fs::create_dir_all(&game).unwrap();
    let pk3 = |name: &str, files: &[(&str, &[u8], bool)]| {
        std::fs::write(game.join(name), lanthorn_import::pk3::build(files)).unwrap()
    };
    pk3(
        "pak0.pk3",
        &[("a.txt", b"pak0", true), ("b.txt", b"pak0", false)],
    );
    pk3("PAK6-patch.pk3", &[("a.txt", b"pak6", true)]);
    pk3(
        "pak1-maps.pk3",
        &[("a.txt", b"pak1", true), ("c.txt", b"pak1", true)],
    );
    std::fs::write(game.join("b.txt"), b"loose").unwrap();
    std::fs::write(game.join("d.txt"), b"loose").unwrap();
    std::fs::write(game.join("notes.pk3.txt"), b"not an archive").unwrap();
    let search = SearchPath::new(&base, Some("baseoa")).unwrap();
    assert_eq!(
        text(&search, "A.txt").as_deref(),
        Some("pak6"),
        "the last by name wins"
    );
    assert_eq!(
        text(&search, "b.txt").as_deref(),
        Some("pak0"),
        "a pk3 over a loose file"
    );
    assert_eq!(text(&search, "c.txt").as_deref(), Some("pak1"));
    assert_eq!(text(&search, "d.txt").as_deref(), Some("loose"));
    let found = search.read("c.txt").unwrap().unwrap();
    assert!(
        found.origin.ends_with("baseoa/pak1-maps.pk3:c.txt"),
        "{}",
        found.origin
    );
    assert!(!search.describe().contains("id1"), "{}", search.describe());
    std::fs::write(game.join("pak2.pk3"), b"PK broken").unwrap();
    let err = SearchPath::new(&base, Some("baseoa"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("baseoa/pak2.pk3") && err.contains("zip"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// OpenArena as Debian installs it: `--basedir /usr/share/games/openarena --game baseoa` finds
/// the maps the pk3 files hold, the 0.8.5 patch's over the 0.8.1 maps.
#[test]
fn openarenas_search_path_finds_its_maps() {
    let base = Path::new("/usr/share/games/openarena");
    if !base.join("baseoa").is_dir() {
        return lanthorn_testdata::missing_realdata(&base.join("baseoa"));
    }
    let search = SearchPath::new(base, Some("baseoa")).unwrap();
    for name in ["oa_dm1", "aggressor", "oa_rpg3dm2"] {
        let found = search.read(&map_file(name)).unwrap().unwrap();
        assert_eq!(&found.bytes[..4], b"IBSP", "{}", found.origin);
    }
    // In both the 0.8.1 maps and the 0.8.5 patch: the patch, later by name, wins.
    let gate = search.read("maps/ctf_gate1.bsp").unwrap().unwrap();
    assert!(gate.origin.contains("pak6-patch085.pk3"), "{}", gate.origin);
    let dm1 = search.read("maps/oa_dm1.bsp").unwrap().unwrap();
    assert!(dm1.origin.contains("pak1-maps.pk3"), "{}", dm1.origin);
}

#[test]
fn a_missing_folder_or_a_bad_pak_is_one_clear_error() {
    let base = game_folders("errors");
    let err = SearchPath::new(&base, Some("rogue"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("rogue: no such game folder"), "{err}");
    let err = SearchPath::new(&base.join("nowhere"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nowhere/id1: no such game folder"), "{err}");
    std::fs::write(base.join("id1/pak1.pak"), b"PACKbroken").unwrap();
    let err = SearchPath::new(&base, None).unwrap_err().to_string();
    assert!(
        err.contains("id1/pak1.pak") && err.contains("PACK"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_bare_level_name_is_a_map_file() {
    assert_eq!(map_file("e1m1"), "maps/e1m1.bsp");
    assert_eq!(map_file("maps/start.bsp"), "maps/start.bsp");
    assert_eq!(map_file("dm3.bsp"), "dm3.bsp");
}
