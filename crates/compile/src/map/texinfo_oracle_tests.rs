use super::*;

/// Reads BSP29 texinfo records: (s axis, s offset, t axis, t offset, texture name).
fn bsp_texinfo(bytes: &[u8]) -> Vec<([f32; 4], [f32; 4], String)> {
    let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    assert_eq!(i32_at(0), 29);
    let lump = |i: usize| (i32_at(4 + i * 8) as usize, i32_at(8 + i * 8) as usize);
    let (tex_ofs, _) = lump(2);
    let ntex = i32_at(tex_ofs) as usize;
    let names: Vec<String> = (0..ntex)
        .map(|k| {
            let o = i32_at(tex_ofs + 4 + k * 4);
            if o < 0 {
                return String::new();
            }
            let at = tex_ofs + o as usize;
            let raw = &bytes[at..at + 16];
            let end = raw.iter().position(|&c| c == 0).unwrap_or(16);
            String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase()
        })
        .collect();
    let (ti_ofs, ti_len) = lump(6);
    (0..ti_len / 40)
        .map(|k| {
            let o = ti_ofs + k * 40;
            let v: Vec<f32> = (0..8).map(|j| f32_at(o + j * 4)).collect();
            let mip = i32_at(o + 32) as usize;
            (
                [v[0], v[1], v[2], v[3]],
                [v[4], v[5], v[6], v[7]],
                names.get(mip).cloned().unwrap_or_default(),
            )
        })
        .collect()
}

/// Texture axes from the `.map` faces match the texinfo id's own compiler wrote into the
/// shipped e1m1.bsp (the oracle: Quake's data).
#[test]
fn texture_axes_match_the_shipped_bsp() {
    let dir = lanthorn_testdata::realdata_dir().join("quake");
    let (map, bsp) = (dir.join("maps/e1m1.map"), dir.join("bsp/e1m1.bsp"));
    if !map.exists() || !bsp.exists() {
        lanthorn_testdata::missing_realdata(&dir);
        return;
    }
    let infos = bsp_texinfo(&std::fs::read(&bsp).unwrap());
    let m = map_file::parse(&std::fs::read_to_string(&map).unwrap()).unwrap();
    let (mut found, mut total) = (0, 0);
    for f in m.entities[0].brushes.iter().flat_map(|b| b.faces.iter()) {
        if brush::is_tool_texture(&f.texture) {
            continue;
        }
        let Some(plane) = brush::map_plane(&f.points) else {
            continue;
        };
        let tv = crate::texture::tex_vecs(&f.projection, plane.normal);
        let name = f.texture.to_ascii_lowercase();
        total += 1;
        let close = |a: [f32; 4], v: DVec3, off: f64| {
            (a[0] as f64 - v.x).abs() < 1e-3
                && (a[1] as f64 - v.y).abs() < 1e-3
                && (a[2] as f64 - v.z).abs() < 1e-3
                && (a[3] as f64 - off).abs() < 1e-2
        };
        if infos.iter().any(|(s, t, n)| {
            *n == name && close(*s, tv.s, tv.s_offset) && close(*t, tv.t, tv.t_offset)
        }) {
            found += 1;
        }
    }
    eprintln!("e1m1 texture axes: {found} of {total} faces match a texinfo of e1m1.bsp");
    assert!(found * 100 >= total * 99, "{found} of {total}");
}
