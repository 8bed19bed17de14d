//! Every index of a loaded or built `Level` checked against what it points into (a bad file
//! gives an error naming the section and the element, never a panic later).

use super::{styles, Bsp, BspChild, Level, Lightmaps, Material, Motion, Surface};

/// Checks every index and size of a level: what loading a `.lvl` guarantees to consumers.
pub fn validate(level: &Level) -> Result<(), String> {
    validate_cells(level)?;
    validate_portals(level)?;
    validate_lightmap_atlas(&level.lightmaps)?;
    validate_surfaces(level)?;
    validate_materials(&level.materials)?;
    validate_bsp(&level.bsp, level.cells.len())?;
    validate_objects(level)?;
    validate_sky(level)?;
    if let Some(g) = &level.light_grid {
        g.check()?;
    }
    validate_pvs(level)
}

fn validate_cells(level: &Level) -> Result<(), String> {
    let (np, ns) = (level.portals.len(), level.surfaces.len());
    for (i, c) in level.cells.iter().enumerate() {
        if let Some(p) = c.portals.iter().find(|&&p| p as usize >= np) {
            return Err(format!(
                "cell {i} lists portal {p} but there are {np} portals"
            ));
        }
        if let Some(s) = c.surfaces.iter().find(|&&s| s as usize >= ns) {
            return Err(format!(
                "cell {i} lists surface {s} but there are {ns} surfaces"
            ));
        }
    }
    Ok(())
}

fn validate_portals(level: &Level) -> Result<(), String> {
    let nc = level.cells.len();
    for (i, p) in level.portals.iter().enumerate() {
        if p.front as usize >= nc || p.back as usize >= nc {
            return Err(format!(
                "portal {i} joins cells {} and {} but there are {nc} cells",
                p.front, p.back
            ));
        }
    }
    Ok(())
}

fn validate_lightmap_atlas(lightmaps: &Lightmaps) -> Result<(), String> {
    let (aw, ah) = (lightmaps.width as u64, lightmaps.height as u64);
    let (layer, len) = (aw * ah * 3, lightmaps.texels.len() as u64);
    let whole = if layer == 0 {
        len == 0
    } else {
        len.is_multiple_of(layer) && len / layer <= styles::MAX_SLOTS as u64 && len > 0
    };
    if !whole {
        return Err(format!(
            "lightmap atlas {aw}x{ah} needs 1 to {} layers of {layer} RGB bytes, has {len} bytes",
            styles::MAX_SLOTS
        ));
    }
    Ok(())
}

fn validate_surfaces(level: &Level) -> Result<(), String> {
    let nm = level.materials.len();
    let (aw, ah) = (level.lightmaps.width as u64, level.lightmaps.height as u64);
    for (i, s) in level.surfaces.iter().enumerate() {
        if s.material as usize >= nm {
            return Err(format!(
                "surface {i} uses material {} but there are {nm} materials",
                s.material
            ));
        }
        if s.indices.len() % 3 != 0 {
            return Err(format!(
                "surface {i} has {} indices, not a multiple of 3",
                s.indices.len()
            ));
        }
        if let Some(x) = s.indices.iter().find(|&&x| x as usize >= s.vertices.len()) {
            return Err(format!(
                "surface {i} indexes vertex {x} of {}",
                s.vertices.len()
            ));
        }
        if let Some(r) = s.lightmap {
            if r.x as u64 + r.width as u64 > aw || r.y as u64 + r.height as u64 > ah {
                return Err(format!(
                    "surface {i} lightmap rect {}x{} at ({}, {}) lies outside the {aw}x{ah} atlas",
                    r.width, r.height, r.x, r.y
                ));
            }
        }
        validate_styles(i, s, level.lightmaps.layers())?;
    }
    Ok(())
}

/// A lit surface's slots must lie in the atlas's layers, and name styles below 64.
fn validate_styles(i: usize, s: &Surface, layers: usize) -> Result<(), String> {
    if let Some(st) = s
        .styles
        .slots()
        .find(|&st| st as usize >= styles::MAX_STYLES)
    {
        return Err(format!(
            "surface {i} uses light style {st}; styles go up to {}",
            styles::MAX_STYLES - 1
        ));
    }
    if s.lightmap.is_some() && s.styles.count() > layers.max(1) {
        return Err(format!(
            "surface {i} has {} light style slots but the atlas has {layers} layers",
            s.styles.count()
        ));
    }
    Ok(())
}

fn validate_materials(materials: &[Material]) -> Result<(), String> {
    for (i, m) in materials.iter().enumerate() {
        if let Some(a) = m.animation {
            let end = a.first as u64 + a.frames as u64;
            if a.frames == 0 || end > materials.len() as u64 || !(a.rate.is_finite()) {
                return Err(format!(
                    "material {i} ({}) animates {} pictures from material {} at {} a second, but there are {} materials",
                    m.name,
                    a.frames,
                    a.first,
                    a.rate,
                    materials.len()
                ));
            }
        }
        let texels = m.width as u64 * m.height as u64;
        if let Some(t) = &m.texels {
            if t.len() as u64 != texels * 4 {
                return Err(format!(
                    "material {i} ({}) has {} texel bytes, expected {}",
                    m.name,
                    t.len(),
                    texels * 4
                ));
            }
        }
        if let Some(t) = &m.fullbright {
            if t.len() as u64 != texels {
                return Err(format!(
                    "material {i} ({}) has a {}-byte fullbright mask, expected {texels}",
                    m.name,
                    t.len()
                ));
            }
        }
        for (map, what) in [(&m.normal, "normal"), (&m.specular, "specular")] {
            match map {
                Some(_) if m.texels.is_none() => {
                    return Err(format!(
                        "material {i} ({}) has a {what} map but no texels",
                        m.name
                    ));
                }
                Some(t) if t.len() as u64 != texels * 4 => {
                    return Err(format!(
                        "material {i} ({}) has a {}-byte {what} map, expected {}",
                        m.name,
                        t.len(),
                        texels * 4
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// BSP: children in range, the nodes form a tree (each node reached once from the root), and
/// the leaves list existing cells.
fn validate_bsp(bsp: &Bsp, nc: usize) -> Result<(), String> {
    validate_bsp_parents(bsp)?;
    validate_bsp_reachable(bsp)?;
    for (i, l) in bsp.leaves.iter().enumerate() {
        if let Some(c) = l.cells.iter().find(|&&c| c as usize >= nc) {
            return Err(format!(
                "BSP leaf {i} lists cell {c} but there are {nc} cells"
            ));
        }
    }
    Ok(())
}

/// Every child (root included) names an existing node or leaf, and no node has two parents.
fn validate_bsp_parents(bsp: &Bsp) -> Result<(), String> {
    let (nn, nl) = (bsp.nodes.len(), bsp.leaves.len());
    let check_child = |c: BspChild, what: &str| -> Result<(), String> {
        match c {
            BspChild::Node(n) if n as usize >= nn => {
                Err(format!("{what} is node {n} but there are {nn} nodes"))
            }
            BspChild::Leaf(l) if l as usize >= nl => {
                Err(format!("{what} is leaf {l} but there are {nl} leaves"))
            }
            _ => Ok(()),
        }
    };
    let mut referenced = vec![false; nn];
    if let Some(root) = bsp.root {
        check_child(root, "the BSP root")?;
        if let BspChild::Node(n) = root {
            referenced[n as usize] = true;
        }
    }
    for (i, n) in bsp.nodes.iter().enumerate() {
        for c in n.children {
            check_child(c, &format!("a child of BSP node {i}"))?;
            if let BspChild::Node(k) = c {
                if std::mem::replace(&mut referenced[k as usize], true) {
                    return Err(format!("BSP node {k} has two parents"));
                }
            }
        }
    }
    Ok(())
}

/// Every node is reachable from the root; needs [`validate_bsp_parents`] to have passed.
fn validate_bsp_reachable(bsp: &Bsp) -> Result<(), String> {
    let nn = bsp.nodes.len();
    // With every node having at most one parent, a cycle would leave its nodes unreachable.
    let mut seen = 0usize;
    let mut stack: Vec<BspChild> = bsp.root.into_iter().collect();
    while let Some(c) = stack.pop() {
        if let BspChild::Node(n) = c {
            seen += 1;
            if seen > nn {
                return Err("the BSP has a cycle".into());
            }
            stack.extend(bsp.nodes[n as usize].children);
        }
    }
    if seen != nn {
        return Err(format!(
            "{} BSP nodes are not reachable from the root (cycle or orphan)",
            nn - seen
        ));
    }
    Ok(())
}

fn validate_objects(level: &Level) -> Result<(), String> {
    let ns = level.surfaces.len();
    for (i, o) in level.objects.iter().enumerate() {
        if let Some(s) = o.surfaces.iter().find(|&&s| s as usize >= ns) {
            return Err(format!(
                "object {i} ({}) lists surface {s} but there are {ns} surfaces",
                o.name
            ));
        }
        if let Some(e) = o.entity.filter(|&e| e as usize >= level.entities.len()) {
            return Err(format!(
                "object {i} ({}) comes from entity {e} but there are {} entities",
                o.name,
                level.entities.len()
            ));
        }
        if let Some(p) = o
            .closes
            .iter()
            .find(|&&p| p as usize >= level.portals.len())
        {
            return Err(format!(
                "object {i} ({}) closes portal {p} but there are {} portals",
                o.name,
                level.portals.len()
            ));
        }
        if let Some(Err(e)) = o.motion.as_ref().map(Motion::check) {
            return Err(format!("object {i} ({}) motion: {e}", o.name));
        }
    }
    Ok(())
}

fn validate_sky(level: &Level) -> Result<(), String> {
    let nm = level.materials.len();
    if let Some(m) = level
        .sky
        .as_ref()
        .and_then(|s| s.material)
        .filter(|&m| m as usize >= nm)
    {
        return Err(format!(
            "the sky uses material {m} but there are {nm} materials"
        ));
    }
    let faces = level.sky.as_ref().and_then(|s| s.faces);
    if let Some(m) = faces.iter().flatten().find(|&&m| m as usize >= nm) {
        return Err(format!(
            "the sky box uses material {m} but there are {nm} materials"
        ));
    }
    match level.sky.as_ref().and_then(|s| s.clouds.as_ref()) {
        Some(c) => validate_clouds(c, nm),
        None => Ok(()),
    }
}

fn validate_clouds(c: &crate::Clouds, nm: usize) -> Result<(), String> {
    if !(c.height > 0.0 && c.height.is_finite()) {
        return Err(format!(
            "the cloud layers' height {} is not positive",
            c.height
        ));
    }
    if c.layers.len() > crate::MAX_CLOUD_LAYERS {
        return Err(format!(
            "the sky has {} cloud layers (at most {})",
            c.layers.len(),
            crate::MAX_CLOUD_LAYERS
        ));
    }
    for (k, l) in c.layers.iter().enumerate() {
        if l.material as usize >= nm {
            return Err(format!(
                "cloud layer {k} uses material {} but there are {nm} materials",
                l.material
            ));
        }
        if !(l.scale.is_finite() && l.scroll.is_finite()) {
            return Err(format!("cloud layer {k}'s scale or scroll is not finite"));
        }
    }
    Ok(())
}

fn validate_pvs(level: &Level) -> Result<(), String> {
    let nc = level.cells.len();
    if let Some(p) = &level.pvs {
        if p.rows.len() as u64 != p.row_bytes as u64 * nc as u64
            || (p.row_bytes as u64) * 8 < nc as u64
        {
            return Err(format!(
                "pvs has {} bytes in rows of {} for {nc} cells (expected one row per cell, one bit per cell)",
                p.rows.len(),
                p.row_bytes
            ));
        }
    }
    Ok(())
}
