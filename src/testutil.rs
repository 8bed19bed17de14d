//! Helpers shared by the level tests.

/// Real data is missing: skip loudly, or fail when the environment says it must be there.
pub(crate) fn missing_realdata(path: &std::path::Path) {
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if required {
        panic!(
            "real data missing at {} (required because CI=true or LANTHORN_REQUIRE_GPU=1)",
            path.display()
        );
    }
    eprintln!(
        "\n*** SKIPPED: real data missing at {} ***\n",
        path.display()
    );
}

/// Why a surface's triangles are not a clean triangulation of its outline: a flat triangle
/// (under 0.001 units high: ten times the float error of a Quake coordinate, so the three
/// points are really collinear), one that winds against the surface's normal (it overlaps its
/// neighbours), or triangles whose area, projected on the surface's plane, is not the
/// outline's (a gap). `None` when clean.
pub(crate) fn bad_triangulation(s: &crate::level::Surface) -> Option<String> {
    use crate::geom::triangulate::triangle_height;
    let p = |i: u32| s.vertices[i as usize].position.as_dvec3();
    let normal = s.normal.as_dvec3().normalize_or_zero();
    let mut area = 0.0;
    for t in s.indices.chunks(3) {
        let h = triangle_height(p(t[0]), p(t[1]), p(t[2]));
        if !(h >= 1e-3) {
            return Some(format!("triangle {t:?} has height {h:.2e}"));
        }
        let signed = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).dot(normal) * 0.5;
        if signed <= 0.0 {
            return Some(format!("triangle {t:?} winds against the surface"));
        }
        area += signed;
    }
    // The outline: the boundary vertices in order (a fan centre lies on no boundary edge).
    let outline: Vec<glam::DVec3> = crate::level::tjunctions::outline(s)
        .iter()
        .map(|v| v.position.as_dvec3())
        .collect();
    let polygon = crate::geom::DPolygon::new(outline)
        .area_vector()
        .dot(normal);
    if (area - polygon).abs() > 1e-3 * polygon.abs().max(1.0) {
        return Some(format!(
            "triangles cover {area:.3}, the outline {polygon:.3}"
        ));
    }
    None
}
