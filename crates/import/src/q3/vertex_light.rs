//! The light of a vertex-lit surface (a file surface without a lightmap page, or a shader
//! lit by `rgbGen vertex`) as a block of luxels, so that the level draws it like any other:
//! the game interpolates the vertices' colours across each triangle, and the luxels hold that
//! interpolation where the block's bilinear filter can give it back.
//!
//! - A patch's tessellated vertices form a grid: one luxel per vertex, the vertex at its
//!   luxel's centre, so bilinear filtering between them is the game's interpolation along the
//!   grid.
//! - Any other surface is projected along its main axis onto a grid of luxels `SPACING` units
//!   apart (fewer when it is large); each luxel takes the colour interpolated in the
//!   triangle its centre lies in, or the nearest vertex's outside them.

use glam::{Vec2, Vec3};

use super::Vertex;

/// World units between luxels of a projected surface.
const SPACING: f32 = 16.0;
/// Most luxels along a side of a block.
const MAX_SIDE: u32 = 64;

/// A block of luxels: its size, RGB (`overbright` applied to each luxel) and each vertex's
/// coordinates in it (in luxels, from the block's corner).
pub(super) struct LightBlock {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
    pub uv: Vec<Vec2>,
}

/// The block of a patch's tessellated grid, `columns` vertices to a row.
pub(super) fn of_grid(
    vertices: &[Vertex],
    columns: u32,
    overbright: impl Fn(&[u8]) -> [u8; 3],
) -> LightBlock {
    let columns = columns.max(1);
    let rows = (vertices.len() as u32).div_ceil(columns);
    let mut rgb = Vec::with_capacity((columns * rows * 3) as usize);
    for v in vertices {
        rgb.extend(overbright(&v.color[..3]));
    }
    rgb.resize((columns * rows * 3) as usize, 0);
    let uv = (0..vertices.len() as u32)
        .map(|i| Vec2::new((i % columns) as f32 + 0.5, (i / columns) as f32 + 0.5))
        .collect();
    LightBlock {
        width: columns,
        height: rows,
        rgb,
        uv,
    }
}

/// The block of any surface, projected along the main axis of its vertices' normals.
pub(super) fn projected(
    vertices: &[Vertex],
    indices: &[u32],
    overbright: impl Fn(&[u8]) -> [u8; 3],
) -> LightBlock {
    let normal: Vec3 = vertices.iter().map(|v| Vec3::from(v.normal)).sum();
    let a = normal.abs();
    let (i, j) = if a.z >= a.x && a.z >= a.y {
        (0, 1)
    } else if a.x >= a.y {
        (1, 2)
    } else {
        (0, 2)
    };
    let flat: Vec<Vec2> = vertices
        .iter()
        .map(|v| Vec2::new(v.position[i], v.position[j]))
        .collect();
    let (lo, hi) = flat.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let extent = (hi - lo).max(Vec2::ZERO);
    let spacing = SPACING.max(extent.max_element() / (MAX_SIDE - 1) as f32);
    let size = (extent / spacing).ceil().as_uvec2() + 1;
    let (width, height) = (size.x.min(MAX_SIDE), size.y.min(MAX_SIDE));
    let colour = |v: &Vertex| Vec3::new(v.color[0] as f32, v.color[1] as f32, v.color[2] as f32);
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            let p = lo + Vec2::new(x as f32, y as f32) * spacing;
            let c = interpolated(p, &flat, indices, |k| colour(&vertices[k]))
                .unwrap_or_else(|| colour(nearest(p, &flat, vertices)));
            rgb.extend(overbright(
                &c.round().to_array().map(|v| v.clamp(0.0, 255.0) as u8),
            ));
        }
    }
    let uv = flat.iter().map(|p| (*p - lo) / spacing + 0.5).collect();
    LightBlock {
        width,
        height,
        rgb,
        uv,
    }
}

/// The colour at `p` interpolated in the first triangle holding it.
fn interpolated(
    p: Vec2,
    flat: &[Vec2],
    indices: &[u32],
    colour: impl Fn(usize) -> Vec3,
) -> Option<Vec3> {
    indices.chunks_exact(3).find_map(|t| {
        let [a, b, c] = [0, 1, 2].map(|k| flat[t[k] as usize]);
        let area = (b - a).perp_dot(c - a);
        if area.abs() < 1e-6 {
            return None;
        }
        let (u, v) = (
            (p - a).perp_dot(c - a) / area,
            (b - a).perp_dot(p - a) / area,
        );
        let w = 1.0 - u - v;
        let inside = u >= -1e-3 && v >= -1e-3 && w >= -1e-3;
        inside.then(|| {
            colour(t[0] as usize) * w + colour(t[1] as usize) * u + colour(t[2] as usize) * v
        })
    })
}

/// The vertex nearest `p` in the projection.
fn nearest<'a>(p: Vec2, flat: &[Vec2], vertices: &'a [Vertex]) -> &'a Vertex {
    let k = (0..flat.len())
        .min_by(|&a, &b| {
            flat[a]
                .distance_squared(p)
                .total_cmp(&flat[b].distance_squared(p))
        })
        .unwrap_or(0);
    &vertices[k]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(x: f32, y: f32, grey: u8) -> Vertex {
        Vertex {
            position: [x, y, 0.0],
            st: [0.0; 2],
            lightmap_st: [0.0; 2],
            normal: [0.0, 0.0, 1.0],
            color: [grey, grey, grey, 255],
        }
    }

    /// A floor quad dark at x = 0 and bright at x = 64: the luxels between run linearly
    /// (the game's Gouraud interpolation), and each vertex sits on its own colour.
    #[test]
    fn a_projected_block_holds_the_interpolated_colours() {
        let v = [
            vertex(0.0, 0.0, 0),
            vertex(64.0, 0.0, 200),
            vertex(64.0, 32.0, 200),
            vertex(0.0, 32.0, 0),
        ];
        let b = projected(&v, &[0, 1, 2, 0, 2, 3], |c| [c[0], c[1], c[2]]);
        assert_eq!((b.width, b.height), (5, 3));
        for y in 0..b.height {
            for x in 0..b.width {
                let got = b.rgb[((y * b.width + x) * 3) as usize] as f32;
                assert!((got - 50.0 * x as f32).abs() <= 1.0, "luxel {x},{y}: {got}");
            }
        }
        for (vert, uv) in v.iter().zip(&b.uv) {
            let (x, y) = ((uv.x - 0.5).round() as u32, (uv.y - 0.5).round() as u32);
            assert_eq!(b.rgb[((y * b.width + x) * 3) as usize], vert.color[0]);
        }
    }

    #[test]
    fn a_grid_block_puts_each_vertex_on_its_luxel() {
        let v: Vec<Vertex> = (0..6)
            .map(|k| vertex(k as f32, 0.0, k as u8 * 10))
            .collect();
        let b = of_grid(&v, 3, |c| [c[0], c[1], c[2]]);
        assert_eq!((b.width, b.height), (3, 2));
        assert_eq!(b.uv[4], Vec2::new(1.5, 1.5));
        assert_eq!(b.rgb[4 * 3], 40);
    }
}
