//! Every shader, as the program builds it (every variant), parses and validates with naga.

#[test]
fn every_shader_variant_validates_with_naga() {
    for (name, source) in lanthorn::render::shaders::all_variants() {
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

use lanthorn::render::shaders::WorldVariant;

#[test]
fn clip_distance_variant_really_writes_eight_clip_distances() {
    let with = lanthorn::render::shaders::world(WorldVariant::clipped(true));
    let without = lanthorn::render::shaders::world(WorldVariant::clipped(false));
    assert!(with.contains("@builtin(clip_distances) clip_distances: array<f32, 8>"));
    assert!(!without.contains("clip_distances:"));
    assert!(without.contains("discard"));
}
