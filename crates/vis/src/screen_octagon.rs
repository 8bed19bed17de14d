//! The screen octagon of a world polygon (a portal, a fence's triangle): its corners
//! projected, clipped to the near plane where they cross it, bounded and grown a little.

use glam::{Mat4, Vec2, Vec3, Vec4};

use lanthorn_geom::Octagon;

/// Portal octagons grow by this much (NDC) so rounding never makes them too tight: a sight
/// that grazes a portal's corner far away was seen to land 2e-4 outside its exact octagon (an
/// eye at the far end of a long corridor of qbsp's, where the corner's vertices are rounded).
pub const OCTAGON_MARGIN: f32 = 1e-3;

/// The screen octagon of a world polygon clipped to the near plane, grown by
/// `OCTAGON_MARGIN`; `None` when nothing is in front of the eye. `scratch` keeps the clip
/// buffers between calls (no allocation once warm).
pub fn portal_octagon(
    view_proj: &Mat4,
    polygon: &[Vec3],
    scratch: (&mut Vec<Vec4>, &mut Vec<Vec4>),
) -> Option<Octagon> {
    // Reverse-Z: in front of the near plane where w − z >= 0.
    let mut in_front = true;
    let mut o = Octagon::from_points(polygon.iter().map(|p| {
        let c = *view_proj * p.extend(1.0);
        in_front &= c.w - c.z >= 0.0;
        Vec2::new(c.x, c.y) / c.w.max(1e-12)
    }));
    if !in_front {
        o = octagon_clipped_to_near(view_proj, polygon, scratch)?;
    }
    for i in 0..4 {
        o.min[i] -= OCTAGON_MARGIN;
        o.max[i] += OCTAGON_MARGIN;
    }
    Some(o)
}

/// The screen octagon of the part of a world polygon in front of the near plane; `None`
/// where there is none.
fn octagon_clipped_to_near(
    view_proj: &Mat4,
    polygon: &[Vec3],
    (clip_in, clip_out): (&mut Vec<Vec4>, &mut Vec<Vec4>),
) -> Option<Octagon> {
    clip_in.clear();
    clip_in.extend(polygon.iter().map(|p| *view_proj * p.extend(1.0)));
    let inside = |c: &Vec4| c.w - c.z;
    clip_out.clear();
    let n = clip_in.len();
    for i in 0..n {
        let (a, b) = (clip_in[i], clip_in[(i + 1) % n]);
        let (da, db) = (inside(&a), inside(&b));
        if da >= 0.0 {
            clip_out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            clip_out.push(a + (b - a) * (da / (da - db)));
        }
    }
    if clip_out.len() < 3 {
        return None;
    }
    Some(Octagon::from_points(
        clip_out
            .iter()
            .map(|c| Vec2::new(c.x, c.y) / c.w.max(1e-12)),
    ))
}
