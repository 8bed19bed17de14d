/// The committed views load and every eye is in an open cell of its level: `MAP.json`
/// (random views, 200 each, written by `--write-views`) and `MAP-portals.json` (near-portal
/// and walk views, `--views portals`) in the imported maps, `MAP.map-portals.json` in the
/// maps Lanthorn compiles from the id sources, `keep-portals.json` in the keep, and
/// `keep-in-a-door.json`, one eye in the keep found by a sweep.
#[test]
fn committed_views_are_inside_their_maps() {
    let quake = crate::realdata_dir().join("quake");
    if !quake.join("bsp/e1m1.bsp").exists() {
        lanthorn_testdata::missing_realdata(&quake);
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/views");
    let (mut random, mut portals) = (0, 0);
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (level, expected) = match name.strip_suffix("-portals") {
            _ if name == "keep-in-a-door" => (std::path::PathBuf::from("keep"), Some(1)),
            Some("keep") => (std::path::PathBuf::from("keep"), None),
            Some(m) if m.ends_with(".map") => (quake.join(format!("maps/{m}")), None),
            Some(m) => (quake.join(format!("bsp/{m}.bsp")), None),
            None => (quake.join(format!("bsp/{name}.bsp")), Some(200)),
        };
        let level = crate::load::load(&level).unwrap_or_else(|e| panic!("{e}"));
        let views = crate::app::path::CameraPath::load(&path, Some(&level), false)
            .unwrap_or_else(|e| panic!("{e}"));
        match expected {
            Some(n) => {
                assert_eq!(views.keys.len(), n, "{name}");
                random += (n == 200) as usize;
            }
            None => {
                // 300 sampled, those in solid dropped.
                assert!((250..=300).contains(&views.keys.len()), "{name}");
                portals += 1;
            }
        }
    }
    assert_eq!((random, portals), (15, 31));
}
