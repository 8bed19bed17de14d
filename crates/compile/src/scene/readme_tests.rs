/// Every scene example in docs/formats.md parses and compiles (the docs cannot drift from the
/// format); the one with mirrors and teleporters makes their portals.
#[test]
fn readme_examples_compile() {
    let readme = include_str!("../../../../docs/formats.md");
    let blocks: Vec<&str> = readme
        .split("```ron\n")
        .skip(1)
        .map(|b| &b[..b.find("```").unwrap()])
        .collect();
    assert!(blocks.len() >= 2, "docs/formats.md has its ron examples");
    let mut transformed = 0;
    for block in blocks {
        let scene = super::parse(block).unwrap();
        // Its texture paths are the workspace's (`assets/textures/…`).
        let root = super::SceneFiles::Dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..").into());
        let (level, _) = super::compile_scene_with(&scene, &root, &Default::default()).unwrap();
        assert!(!level.cells.is_empty());
        let with = |det: fn(f32) -> bool| {
            level.portals.iter().any(|p| {
                p.transform
                    .is_some_and(|m| det(glam::Mat4::from_cols_array(&m).determinant()))
            })
        };
        if !scene.mirrors.is_empty() {
            assert!(with(|d| d < 0.0) && with(|d| d > 0.0));
            transformed += 1;
        }
    }
    assert_eq!(transformed, 1);
}
