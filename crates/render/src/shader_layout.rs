//! The shaders' buffer layouts against their Rust twins, by naga reflection (no GPU): every
//! uniform and storage struct of every variant is registered with the Rust type uploaded into it
//! (size and every member's offset and size), every vertex input struct with a Rust twin matches
//! that type and its pipeline's attributes, and the constants both sides spell out agree.

use std::collections::BTreeSet;

use naga::{AddressSpace, ArraySize, Binding, Module, StructMember, TypeInner};

use super::bloom::BloomUniform;
use super::fog::WorldFog;
use super::shaders::{all_variants, SOURCES};
use super::shadow::CasterView;
#[cfg(feature = "test-hooks")]
use super::terrain::ReferenceVertex;
use super::terrain::{LineVertex, TerrainView, INSTANCE_ATTRIBUTES};
use super::tonemap::ToneMapUniform;
use super::ui_cover::CoverUniform;
use super::ui_paint::{UiScreen, VERTEX_ATTRIBUTES as UI_VERTEX_ATTRIBUTES};
use super::world::{
    DrawRecord, SkyClouds, WorldFrame, WorldVertex, WorldView, MAX_VIEWS, VERTEX_NO_LIGHTMAP,
    VERTEX_PACKED_STYLES,
};
use egui::epaint::Vertex;
use lanthorn_level::surface_flags;
use lanthorn_terrain::{TerrainFrame, TerrainInstance};

/// One WGSL member and the Rust field (path) it is read from.
struct Field {
    member: &'static str,
    offset: usize,
    size: usize,
}

/// A Rust type and the WGSL struct it is uploaded as.
struct Twin {
    rust: &'static str,
    wgsl: &'static str,
    size: usize,
    fields: Vec<Field>,
}

fn size_of_field<T, F>(_: fn(&T) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// `twin!(RustType: member, member = rust.field.path, …)`: the WGSL struct of the same name,
/// each member the Rust field of the same name unless a path is given; `RustType as "Name"`
/// only where one WGSL struct is fed from several Rust types.
macro_rules! twin {
    (@make $ty:ty, $wgsl:expr, $($member:ident $(= $($path:ident).+)?),* $(,)?) => {
        Twin {
            rust: stringify!($ty),
            wgsl: $wgsl,
            size: std::mem::size_of::<$ty>(),
            fields: vec![$(twin!(@field $ty, $member $(= $($path).+)?)),*],
        }
    };
    (@field $ty:ty, $member:ident) => { twin!(@field $ty, $member = $member) };
    (@field $ty:ty, $member:ident = $($path:ident).+) => {
        Field {
            member: stringify!($member),
            offset: std::mem::offset_of!($ty, $($path).+),
            size: size_of_field(|t: &$ty| &t.$($path).+),
        }
    };
    ($ty:ident: $($fields:tt)*) => { twin!(@make $ty, stringify!($ty), $($fields)*) };
    ($ty:ident as $wgsl:literal: $($fields:tt)*) => { twin!(@make $ty, $wgsl, $($fields)*) };
}

/// Every struct a uniform or storage buffer holds, with the Rust type written into it.
fn buffer_twins() -> Vec<Twin> {
    vec![
        twin!(WorldFrame: view_proj, eye, params, styles, views, fog, shadow_to_light, shadow, water, clouds),
        twin!(SkyClouds: params, kinds, motion),
        twin!(WorldFog: params, sun, zenith, horizon, sky),
        twin!(WorldView: view_proj, clip_plane, eye),
        twin!(DrawRecord: oct_min = octagon.min, oct_max = octagon.max, view, cell, depth, light, origin),
        twin!(TerrainFrame:
            anchor, window_size, levels, camera_offset, base_spacing, morph_start, morph_width,
            tile_quads
        ),
        twin!(TerrainView:
            view_proj, inv_view_proj, eye_offset, sun, sky_zenith, sky_horizon, bands, fog, misc,
            flags, oct_min, oct_max, lamps, light, shadow_rel, shadow, water
        ),
        twin!(CasterView: world_to_light, rel_to_light),
        // The instance record as a struct: terrain_vertex.inc.wgsl allows a storage buffer of them.
        twin!(TerrainInstance: offset, level, rotation),
        twin!(BloomUniform: params, weights),
        twin!(ToneMapUniform: params),
        twin!(CoverUniform as "Cover": rects),
        twin!(UiScreen: size),
    ]
}

/// Vertex input structs fed from a Rust type through a pipeline's attributes (members without
/// an attribute come from another buffer).
fn vertex_twins() -> Vec<(Twin, &'static [wgpu::VertexAttribute])> {
    vec![
        (
            twin!(WorldVertex: position, uv, lightmap_uv, layer, flags, surface, styles, unlit, style_tints),
            &WorldVertex::ATTRIBUTES,
        ),
        (twin!(LineVertex: position, color), &LineVertex::ATTRIBUTES),
        #[cfg(feature = "test-hooks")]
        (
            twin!(ReferenceVertex: rel, height, normal),
            &ReferenceVertex::ATTRIBUTES,
        ),
        (
            twin!(Vertex as "UiVertex": pos, uv, color),
            &UI_VERTEX_ATTRIBUTES,
        ),
        // The mesh vertex (location 0) is a bare `[i32; 2]`.
        (
            twin!(TerrainInstance as "MeshIn": offset, level, rotation),
            &INSTANCE_ATTRIBUTES,
        ),
    ]
}

/// WGSL constants and the Rust values they repeat.
fn shared_constants() -> Vec<(&'static str, u64)> {
    vec![
        ("VERTEX_NO_LIGHTMAP", VERTEX_NO_LIGHTMAP.into()),
        ("VERTEX_PACKED_STYLES", VERTEX_PACKED_STYLES.into()),
        ("VERTEX_OUTDOOR", super::world::VERTEX_OUTDOOR.into()),
        ("VERTEX_WATER_TOP", super::world::VERTEX_WATER_TOP.into()),
        ("VERTEX_MAPPED", super::world::VERTEX_MAPPED.into()),
        (
            "OBJECT_LIGHT_WORDS",
            super::world::OBJECT_LIGHT_WORDS as u64,
        ),
        ("SURFACE_SKY", surface_flags::SKY.into()),
        ("BLOOM_TILE", super::bloom::TILE.into()),
        ("SURFACE_LIQUID", surface_flags::LIQUID.into()),
        ("SURFACE_FENCE", surface_flags::FENCE.into()),
        ("SURFACE_GLOW", surface_flags::GLOW.into()),
        ("LIGHT_UNIT", super::world::LIGHT_UNIT.into()),
        ("GRID_LIT", super::world::GRID_LIT.into()),
        ("OBJECT_LIGHT_UNIT", super::world::OBJECT_LIGHT_UNIT.into()),
        (
            "LAMPS_PER_OBJECT",
            super::world::object_lamps::LAMPS_PER_OBJECT as u64,
        ),
        ("LAMP_VECTORS", super::world::object_lamps::VECTORS as u64),
        (
            "VERTEX_LAMPS",
            super::world::object_lamps::VERTEX_LAMPS as u64,
        ),
    ]
}

/// Fixed-size WGSL arrays (struct, member) and the Rust length they repeat.
fn shared_lengths() -> Vec<(&'static str, &'static str, usize)> {
    vec![
        ("WorldFrame", "views", MAX_VIEWS),
        ("WorldFog", "sky", 6),
        ("SkyClouds", "kinds", lanthorn_level::MAX_CLOUD_LAYERS),
        ("SkyClouds", "motion", lanthorn_level::MAX_CLOUD_LAYERS),
        ("WorldFrame", "shadow_to_light", crate::shadow::CASCADES),
        (
            "WorldFrame",
            "styles",
            lanthorn_level::styles::MAX_STYLES / 4,
        ),
    ]
}

fn parse(name: &str, source: &str) -> Module {
    naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)))
}

fn struct_named<'m>(module: &'m Module, name: &str) -> Option<(&'m [StructMember], u32)> {
    module.types.iter().find_map(|(_, t)| match &t.inner {
        TypeInner::Struct { members, span } if t.name.as_deref() == Some(name) => {
            Some((members.as_slice(), *span))
        }
        _ => None,
    })
}

/// Names of the structs in uniform and storage buffers: the globals' types, array elements and
/// nested members.
fn buffer_structs(module: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<_> = (module.global_variables.iter())
        .filter(|(_, g)| {
            matches!(
                g.space,
                AddressSpace::Uniform | AddressSpace::Storage { .. }
            )
        })
        .map(|(_, g)| g.ty)
        .collect();
    while let Some(ty) = todo.pop() {
        let t = &module.types[ty];
        match &t.inner {
            TypeInner::Array { base, .. } => todo.push(*base),
            TypeInner::Struct { members, .. } => {
                out.insert(t.name.clone().unwrap_or_default());
                todo.extend(members.iter().map(|m| m.ty));
            }
            _ => {}
        }
    }
    out
}

fn check_buffer_twin(module: &Module, twin: &Twin, errors: &mut Vec<String>) {
    let Some((members, span)) = struct_named(module, twin.wgsl) else {
        return;
    };
    let (w, r) = (twin.wgsl, twin.rust);
    if span as usize != twin.size {
        errors.push(format!("{w}: {span} bytes, {r}: {}", twin.size));
    }
    if members.len() != twin.fields.len() {
        errors.push(format!(
            "{w}: {} members, {r}: {}",
            members.len(),
            twin.fields.len()
        ));
    }
    for m in members {
        let name = m.name.as_deref().unwrap_or_default();
        let Some(f) = twin.fields.iter().find(|f| f.member == name) else {
            errors.push(format!("{w}.{name}: no field of {r} registered"));
            continue;
        };
        let size = module.types[m.ty].inner.size(module.to_ctx()) as usize;
        if (m.offset as usize, size) != (f.offset, f.size) {
            errors.push(format!(
                "{w}.{name}: offset {} size {size}, {r}: offset {} size {}",
                m.offset, f.offset, f.size
            ));
        }
    }
}

/// What a vertex format reads as in the shader: (scalar kind, components).
fn format_shader_type(format: wgpu::VertexFormat) -> (naga::ScalarKind, u32) {
    use naga::ScalarKind::{Float, Sint, Uint};
    use wgpu::VertexFormat as F;
    match format {
        F::Float32 => (Float, 1),
        F::Float32x2 => (Float, 2),
        F::Float32x3 => (Float, 3),
        F::Unorm8x4 | F::Float32x4 => (Float, 4),
        F::Uint32 => (Uint, 1),
        F::Uint32x4 => (Uint, 4),
        F::Sint32x2 => (Sint, 2),
        other => panic!("add {other:?} to format_shader_type"),
    }
}

fn member_shader_type(inner: &TypeInner) -> Option<(naga::ScalarKind, u32)> {
    match inner {
        TypeInner::Scalar(s) => Some((s.kind, 1)),
        TypeInner::Vector { size, scalar } => Some((scalar.kind, *size as u32)),
        _ => None,
    }
}

fn location(m: &StructMember) -> Option<u32> {
    match m.binding {
        Some(Binding::Location { location, .. }) => Some(location),
        _ => None,
    }
}

fn check_vertex_twin(
    module: &Module,
    (twin, attributes): &(Twin, &[wgpu::VertexAttribute]),
    errors: &mut Vec<String>,
) {
    let Some((members, _)) = struct_named(module, twin.wgsl) else {
        return;
    };
    let (w, r) = (twin.wgsl, twin.rust);
    for a in attributes.iter() {
        let Some(m) = members
            .iter()
            .find(|m| location(m) == Some(a.shader_location))
        else {
            errors.push(format!("{w}: no member at location {}", a.shader_location));
            continue;
        };
        let name = m.name.as_deref().unwrap_or_default();
        let Some(f) = twin.fields.iter().find(|f| f.member == name) else {
            errors.push(format!("{w}.{name}: no field of {r} registered"));
            continue;
        };
        if (a.offset as usize, a.format.size() as usize) != (f.offset, f.size) {
            errors.push(format!(
                "{w}.{name}: attribute offset {} size {}, {r}: offset {} size {}",
                a.offset,
                a.format.size(),
                f.offset,
                f.size
            ));
        }
        let shader = member_shader_type(&module.types[m.ty].inner);
        if shader != Some(format_shader_type(a.format)) {
            errors.push(format!(
                "{w}.{name}: {:?} does not read as {shader:?}",
                a.format
            ));
        }
    }
    if attributes.len() != twin.fields.len() {
        errors.push(format!(
            "{w}: {} attributes, {} fields",
            attributes.len(),
            twin.fields.len()
        ));
    }
}

fn check_constants(module: &Module, found: &mut BTreeSet<&'static str>, errors: &mut Vec<String>) {
    for (name, value) in shared_constants() {
        let Some((_, c)) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
        else {
            continue;
        };
        found.insert(name);
        let wgsl = match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => Some(u64::from(v)),
            _ => None,
        };
        if wgsl != Some(value) {
            errors.push(format!("const {name}: WGSL {wgsl:?}, Rust {value}"));
        }
    }
    for (s, member, len) in shared_lengths() {
        let Some((members, _)) = struct_named(module, s) else {
            continue;
        };
        found.insert(member);
        let m = members.iter().find(|m| m.name.as_deref() == Some(member));
        let wgsl = m.and_then(|m| match module.types[m.ty].inner {
            TypeInner::Array {
                size: ArraySize::Constant(n),
                ..
            } => Some(n.get() as usize),
            _ => None,
        });
        if wgsl != Some(len) {
            errors.push(format!("{s}.{member}: WGSL length {wgsl:?}, Rust {len}"));
        }
    }
}

#[test]
fn every_buffer_struct_matches_its_rust_twin() {
    let (buffers, vertices) = (buffer_twins(), vertex_twins());
    let mut errors = Vec::new();
    let mut found = BTreeSet::new();
    for (variant, source) in all_variants() {
        let module = parse(&variant, &source);
        for s in buffer_structs(&module) {
            if !buffers.iter().any(|t| t.wgsl == s) {
                errors.push(format!(
                    "{variant}: uniform/storage struct {s} has no Rust twin"
                ));
            }
        }
        let before = errors.len();
        for twin in &buffers {
            check_buffer_twin(&module, twin, &mut errors);
        }
        for twin in &vertices {
            check_vertex_twin(&module, twin, &mut errors);
        }
        let all = buffers.iter().chain(vertices.iter().map(|(t, _)| t));
        found.extend(
            all.filter(|t| struct_named(&module, t.wgsl).is_some())
                .map(|t| t.wgsl),
        );
        check_constants(&module, &mut found, &mut errors);
        for e in &mut errors[before..] {
            *e = format!("{variant}: {e}");
        }
    }
    let registered = (buffers.iter().chain(vertices.iter().map(|(t, _)| t)))
        .map(|t| t.wgsl)
        .chain(shared_constants().into_iter().map(|(n, _)| n))
        .chain(shared_lengths().into_iter().map(|(_, m, _)| m));
    for name in registered.filter(|n| !found.contains(n)) {
        errors.push(format!("{name} is registered but in no shader variant"));
    }
    assert!(
        errors.is_empty(),
        "layout mismatches:\n{}",
        errors.join("\n")
    );
}

/// Files of `shaders/` only a cargo feature compiles in, and whether it is on.
const FEATURE_FILES: &[(&str, bool)] = &[("terrain_hooks.wgsl", cfg!(feature = "test-hooks"))];

/// The folders of WGSL files: the renderer's, and the terrain crate's (the vertex shader twin
/// of its CPU code).
const SHADER_DIRS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/../terrain/shaders"),
];

/// The WGSL files this build compiles in, with their folders (read from disk, so a new file
/// is noticed).
fn shader_files() -> Vec<(String, &'static str)> {
    let mut files: Vec<(String, &str)> = SHADER_DIRS
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(dir)
                .unwrap()
                .map(move |e| (e.unwrap().file_name().into_string().unwrap(), *dir))
        })
        .filter(|(n, _)| n.ends_with(".wgsl"))
        .filter(|(n, _)| FEATURE_FILES.iter().all(|(f, on)| *f != n.as_str() || *on))
        .collect();
    files.sort();
    files
}

#[test]
fn every_file_in_shaders_is_compiled_in_and_built() {
    let files = shader_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let mut sources: Vec<&str> = SOURCES.iter().map(|(n, _)| *n).collect();
    sources.sort();
    assert_eq!(names, sources, "shaders/ against render::shaders::SOURCES");
    let variants = all_variants();
    let includes: String = SOURCES.iter().map(|(_, s)| *s).collect();
    for (name, text) in SOURCES {
        let dir = files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| *d)
            .unwrap();
        let on_disk = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        assert_eq!(*text, on_disk, "SOURCES[{name}] is another file's text");
        if name.ends_with(".inc.wgsl") {
            let line = format!("#include {name}");
            assert!(includes.contains(&line), "{name} is included nowhere");
        } else {
            let built = variants
                .iter()
                .any(|(v, _)| v.split(' ').next() == Some(name));
            assert!(built, "no variant in all_variants() is built from {name}");
        }
    }
}
