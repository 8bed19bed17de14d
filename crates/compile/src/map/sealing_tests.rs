use super::*;

/// Clip and liquid brushes do not seal; a solid brush in the same place does, and so does
/// one textured `trigger` (a world brush: id's qbsp makes it solid) or `sky…`.
#[test]
fn only_solid_brushes_seal() {
    let options = CompileOptions {
        leak_file: Some(
            std::env::temp_dir().join(format!("lanthorn-seal-{}.pts", std::process::id())),
        ),
        ..Default::default()
    };
    for (tex, seals) in [
        ("clip", false),
        ("*water0", false),
        ("trigger", true),
        ("wall", true),
        ("sky3", true),
    ] {
        let mut text = tests::room_map(Some(1));
        let at = text.find("}\n{\n\"classname\" \"func_detail\"").unwrap();
        text.insert_str(
            at,
            &map_props::box_text([1024, -16, -16], [1040, 528, 272], tex),
        );
        let result = compile_map_text(&text, &options);
        match (seals, result) {
            (true, Ok((level, _))) => {
                assert!(!level.cells.is_empty());
                // A sealing brush's inner face is a surface.
                assert!(level.materials.iter().any(|m| m.name == tex));
            }
            (false, Err(CompileError::Leak { .. })) => {}
            (s, r) => panic!(
                "{tex}: expected sealed={s}, got {:?}",
                r.map(|(_, st)| st.cells)
            ),
        }
    }
    let _ = std::fs::remove_file(options.leak_file.unwrap());
}
