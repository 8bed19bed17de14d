//! Walking a leak in the demo: the camera stands on a corner of the leak line (from the entity
//! to the void, as the compiler stored it: a point every 2 units, straight runs between
//! corners), looking along the line to the next corner; `[` and `]` step back and forth.

use glam::Vec3;

use crate::geom::CameraSpec;
use crate::level::LeakPath;

/// Where the line turns: its first and last points and every point where its direction
/// changes (by more than about 2.5°).
pub fn corners(leak: &LeakPath) -> Vec<Vec3> {
    let p = &leak.points;
    let mut out: Vec<Vec3> = p.first().copied().into_iter().collect();
    for i in 1..p.len().saturating_sub(1) {
        let before = (p[i] - p[i - 1]).normalize_or_zero();
        let after = (p[i + 1] - p[i]).normalize_or_zero();
        if before.dot(after) < 0.999 {
            out.push(p[i]);
        }
    }
    if p.len() > 1 {
        out.push(p[p.len() - 1]);
    }
    out
}

/// The camera at corner `k` (clamped), looking toward the next corner (at the last one, on
/// along the last run). `None` for a path without points.
pub fn camera_at(points: &[Vec3], k: usize) -> Option<CameraSpec> {
    let k = k.min(points.len().checked_sub(1)?);
    let here = points[k];
    let toward = match (points.get(k + 1), k.checked_sub(1).map(|i| points[i])) {
        (Some(&next), _) => next - here,
        (None, Some(before)) => here - before,
        (None, None) => Vec3::X,
    };
    let flat = toward.truncate().length();
    Some(CameraSpec {
        position: here,
        yaw: toward.y.atan2(toward.x).to_degrees(),
        pitch: toward.z.atan2(flat).to_degrees(),
    })
}

/// The corner `step` corners from `k`, kept on the path of `count` corners.
pub fn step(count: usize, k: usize, step: i32) -> usize {
    let last = count.saturating_sub(1) as i64;
    (k as i64 + step as i64).clamp(0, last) as usize
}

/// What the panel says of the leak and where the camera stands on it (corner `k` of `count`).
pub fn describe(leak: &LeakPath, k: usize, count: usize) -> String {
    let through = if leak.crossings.is_empty() {
        "a gap between brushes".to_string()
    } else {
        leak.crossings.join("; ")
    };
    format!(
        "leak: from {} (line {}) to the void through {through}; corner {} of {count} ([ / ] walk it)",
        leak.entity,
        leak.line,
        k + 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leak as the compiler stores it: a point every 2 units along three straight runs.
    fn leak() -> LeakPath {
        let corners = [
            Vec3::new(128.0, 128.0, 48.0),
            Vec3::new(256.0, 128.0, 48.0),
            Vec3::new(256.0, 256.0, 176.0),
            Vec3::new(600.0, 256.0, 176.0),
        ];
        let mut points = vec![corners[0]];
        for w in corners.windows(2) {
            let n = ((w[1] - w[0]).length() / 2.0).round() as usize;
            points.extend((1..=n).map(|i| w[0] + (w[1] - w[0]) * (i as f32 / n as f32)));
        }
        LeakPath {
            entity: "info_player_start".into(),
            line: 7,
            points,
            crossings: Vec::new(),
        }
    }

    #[test]
    fn the_corners_are_where_the_line_turns() {
        let c = corners(&leak());
        assert_eq!(c.len(), 4, "{c:?}");
        assert!((c[1] - Vec3::new(256.0, 128.0, 48.0)).length() < 1e-3);
        assert!((c[3] - Vec3::new(600.0, 256.0, 176.0)).length() < 1e-3);
        assert!(corners(&LeakPath::default()).is_empty());
    }

    #[test]
    fn the_camera_stands_on_a_corner_and_looks_down_the_line() {
        let c = corners(&leak());
        let at = camera_at(&c, 0).unwrap();
        assert_eq!(at.position, c[0]);
        assert!(at.yaw.abs() < 1e-3 && at.pitch.abs() < 1e-3, "{at:?}");
        // Toward (0, 128, 128): yaw 90°, pitch 45°.
        let at = camera_at(&c, 1).unwrap();
        assert!(
            (at.yaw - 90.0).abs() < 1e-3 && (at.pitch - 45.0).abs() < 1e-3,
            "{at:?}"
        );
        // The last corner looks on along the last run; past it is the last corner.
        let last = camera_at(&c, 99).unwrap();
        assert_eq!(last.position, c[3]);
        assert!(last.yaw.abs() < 1e-3 && last.pitch.abs() < 1e-3, "{last:?}");
        assert!(camera_at(&[], 0).is_none());
    }

    #[test]
    fn steps_stay_on_the_path() {
        assert_eq!(step(4, 0, -1), 0);
        assert_eq!(step(4, 0, 1), 1);
        assert_eq!(step(4, 3, 1), 3);
        let text = describe(&leak(), 1, 4);
        assert!(text.contains("info_player_start (line 7)") && text.contains("corner 2 of 4"));
    }
}
