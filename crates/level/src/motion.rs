//! How an object moves: back and forth along a path of offsets from its rest position, at a
//! constant speed, waiting at each end. A door is a two-point path (closed, open); a lift and a
//! patrolling lantern are longer ones. Positions are a pure function of the time, so `--time`
//! fixes every object and tests can replay any moment.

use glam::Vec3;

/// Most points a path may have (the `.lvl` reader and the compiler refuse more).
pub const MAX_PATH_POINTS: usize = 256;

/// A ping-pong path: from `points[0]` to the last point and back, forever.
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    /// Offsets from the object's rest position; the first is where it starts (a door's closed
    /// position is its rest position, offset zero).
    pub points: Vec<Vec3>,
    /// Units a second along the path (> 0).
    pub speed: f32,
    /// Seconds it rests at each end (>= 0).
    pub wait: f32,
    /// Seconds added to the clock, so objects with one motion need not move in step.
    pub phase: f32,
}

impl Motion {
    /// The path's length in units.
    pub fn length(&self) -> f32 {
        self.points.windows(2).map(|w| w[0].distance(w[1])).sum()
    }

    /// Seconds of one cycle: wait, travel out, wait, travel back.
    pub fn period(&self) -> f32 {
        2.0 * (self.wait + self.length() / self.speed)
    }

    /// The offset from the rest position at `time` seconds.
    pub fn offset(&self, time: f64) -> Vec3 {
        let (Some(&first), Some(&last)) = (self.points.first(), self.points.last()) else {
            return Vec3::ZERO;
        };
        let length = self.length();
        if length <= 0.0 || self.speed <= 0.0 {
            return first;
        }
        let travel = length / self.speed;
        let period = 2.0 * (self.wait + travel);
        // f64 so a long-running demo clock keeps its sub-millisecond steps.
        let t = (time + self.phase as f64).rem_euclid(period as f64) as f32;
        let along = if t < self.wait {
            return first;
        } else if t < self.wait + travel {
            (t - self.wait) * self.speed
        } else if t < 2.0 * self.wait + travel {
            return last;
        } else {
            length - (t - 2.0 * self.wait - travel) * self.speed
        };
        self.at(along.clamp(0.0, length))
    }

    /// The point `along` units down the path.
    fn at(&self, mut along: f32) -> Vec3 {
        for w in self.points.windows(2) {
            let d = w[0].distance(w[1]);
            if along <= d && d > 0.0 {
                return w[0].lerp(w[1], along / d);
            }
            along -= d;
        }
        *self.points.last().unwrap_or(&Vec3::ZERO)
    }

    /// At its first point (a door: closed).
    pub fn at_rest(&self, time: f64) -> bool {
        self.offset(time) == self.points.first().copied().unwrap_or(Vec3::ZERO)
    }

    /// What is wrong with it for a file or a scene (finite numbers, a positive speed, ...).
    pub fn check(&self) -> Result<(), String> {
        if self.points.len() < 2 {
            return Err("a motion needs at least two points".into());
        }
        if self.points.len() > MAX_PATH_POINTS {
            return Err(format!(
                "{} points; at most {MAX_PATH_POINTS}",
                self.points.len()
            ));
        }
        if !self.points.iter().all(|p| p.is_finite()) {
            return Err("a point is not finite".into());
        }
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(format!("speed {} is not a positive number", self.speed));
        }
        if !(self.wait.is_finite() && self.wait >= 0.0 && self.phase.is_finite()) {
            return Err("wait and phase must be finite, wait at least 0".into());
        }
        if self.length() <= 0.0 {
            return Err("the points do not move the object (zero length)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn door() -> Motion {
        Motion {
            points: vec![Vec3::ZERO, Vec3::new(0.0, 0.0, 100.0)],
            speed: 50.0,
            wait: 3.0,
            phase: 0.0,
        }
    }

    /// The door's cycle worked out by hand: 3 s closed, 2 s up, 3 s open, 2 s down.
    #[test]
    fn a_door_waits_opens_waits_closes() {
        let m = door();
        assert_eq!(m.period(), 10.0);
        let z = |t: f64| m.offset(t).z;
        assert_eq!(z(0.0), 0.0);
        assert_eq!(z(2.9), 0.0);
        assert!((z(4.0) - 50.0).abs() < 1e-4);
        assert_eq!(z(5.5), 100.0);
        assert_eq!(z(7.9), 100.0);
        assert!((z(9.0) - 50.0).abs() < 1e-4);
        assert_eq!(z(10.0), 0.0);
        assert!((z(14.0) - 50.0).abs() < 1e-4, "periodic");
        assert!((z(-6.0) - 50.0).abs() < 1e-4, "before zero too");
        assert!(m.at_rest(1.0) && !m.at_rest(3.5) && !m.at_rest(6.0));
    }

    /// Along a bent path the speed is constant: the distance covered in each small step
    /// equals speed × step, and every position lies on one of the segments.
    #[test]
    fn a_path_is_walked_at_constant_speed() {
        let m = Motion {
            points: vec![
                Vec3::ZERO,
                Vec3::new(300.0, 0.0, 0.0),
                Vec3::new(300.0, 400.0, 0.0),
            ],
            speed: 100.0,
            wait: 0.0,
            phase: 1.0,
        };
        assert_eq!(m.length(), 700.0);
        let dt = 0.01;
        let mut prev = m.offset(0.0);
        for k in 1..1300 {
            let p = m.offset(k as f64 * dt);
            let step = p.distance(prev);
            // A step across the corner cuts it (a chord): never longer, at most ~30 % shorter.
            assert!(step <= 1.0 + 1e-3 && step > 0.69, "k {k}: step {step}");
            let on_first = p.y.abs() < 1e-3 && (0.0..=300.001).contains(&p.x);
            let on_second = (p.x - 300.0).abs() < 1e-3 && (0.0..=400.001).contains(&p.y);
            assert!(on_first || on_second, "{p}");
            prev = p;
        }
        // Phase 1 s: at time 0 it is 100 units along.
        assert!(m.offset(0.0).distance(Vec3::new(100.0, 0.0, 0.0)) < 1e-3);
        // Back at the start after one period (14 s).
        assert!(m.offset(13.0).distance(Vec3::ZERO) < 1e-3);
    }

    #[test]
    fn bad_motions_are_refused() {
        let bad = |f: &dyn Fn(&mut Motion)| {
            let mut m = door();
            f(&mut m);
            m.check().unwrap_err()
        };
        assert!(door().check().is_ok());
        assert!(bad(&|m| m.points.truncate(1)).contains("two points"));
        assert!(bad(&|m| m.speed = 0.0).contains("speed"));
        assert!(bad(&|m| m.speed = f32::NAN).contains("speed"));
        assert!(bad(&|m| m.points[1] = Vec3::ZERO).contains("zero length"));
        assert!(bad(&|m| m.points[1].x = f32::INFINITY).contains("finite"));
        assert!(bad(&|m| m.wait = -1.0).contains("wait"));
        assert!(bad(&|m| m.points = vec![Vec3::X; MAX_PATH_POINTS + 1]).contains("at most"));
    }
}
