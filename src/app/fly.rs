//! Fly camera: WASD + mouse look or Q/E/R/F turning, Shift fast, Space/C up and down.

use glam::Vec3;

use crate::geom::CameraSpec;

#[derive(Clone, Copy, Debug, Default)]
pub struct FlyKeys {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub up: bool,
    pub down: bool,
    pub fast: bool,
    pub yaw_left: bool,
    pub yaw_right: bool,
    pub pitch_up: bool,
    pub pitch_down: bool,
}

pub const SPEED: f32 = 320.0;
pub const FAST: f32 = 4.0;
pub const MOUSE_DEGREES_PER_PIXEL: f32 = 0.15;
/// Turning by keys (Q/E, R/F), degrees a second.
pub const TURN_DEGREES_PER_SECOND: f32 = 90.0;

/// Moves the camera by `dt` seconds of input; mouse deltas in pixels. Turning takes `turn_dt`
/// seconds (real time: it does not scale with the fly speed).
pub fn update(cam: &mut CameraSpec, keys: &FlyKeys, mouse: (f32, f32), dt: f32) {
    update_turning(cam, keys, mouse, dt, dt);
}

/// [`update`] with separate movement and turning time steps.
pub fn update_turning(
    cam: &mut CameraSpec,
    keys: &FlyKeys,
    mouse: (f32, f32),
    dt: f32,
    turn_dt: f32,
) {
    let axis = |on: bool| if on { 1.0 } else { 0.0 };
    let turn = TURN_DEGREES_PER_SECOND * turn_dt;
    cam.yaw -= mouse.0 * MOUSE_DEGREES_PER_PIXEL;
    cam.yaw += (axis(keys.yaw_left) - axis(keys.yaw_right)) * turn;
    cam.pitch -= mouse.1 * MOUSE_DEGREES_PER_PIXEL;
    cam.pitch += (axis(keys.pitch_up) - axis(keys.pitch_down)) * turn;
    cam.pitch = cam.pitch.clamp(-89.0, 89.0);
    let (sy, cy) = cam.yaw.to_radians().sin_cos();
    let (sp, cp) = cam.pitch.to_radians().sin_cos();
    let forward = Vec3::new(cy * cp, sy * cp, sp);
    let right = Vec3::new(sy, -cy, 0.0);
    let mut dir = Vec3::ZERO;
    dir += forward * (axis(keys.forward) - axis(keys.back));
    dir += right * (axis(keys.right) - axis(keys.left));
    dir += Vec3::Z * (axis(keys.up) - axis(keys.down));
    if dir.length_squared() > 0.0 {
        let speed = SPEED * if keys.fast { FAST } else { 1.0 };
        cam.position += dir.normalize() * speed * dt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_moves_along_yaw_and_mouse_turns_left() {
        let mut c = CameraSpec {
            position: Vec3::ZERO,
            yaw: 90.0,
            pitch: 0.0,
        };
        update(
            &mut c,
            &FlyKeys {
                forward: true,
                ..Default::default()
            },
            (0.0, 0.0),
            1.0,
        );
        assert!((c.position - Vec3::new(0.0, SPEED, 0.0)).length() < 1e-3);
        // Moving the mouse left (negative x) turns left: yaw grows.
        update(&mut c, &FlyKeys::default(), (-100.0, 0.0), 0.016);
        assert!(c.yaw > 90.0);
        let p = c.position;
        update(
            &mut c,
            &FlyKeys {
                right: true,
                fast: true,
                ..Default::default()
            },
            (0.0, 0.0),
            0.5,
        );
        assert!(((c.position - p).length() - SPEED * FAST * 0.5).abs() < 1e-2);
        // Q turns left (yaw grows), R looks up; a second of each turns 90°.
        let (yaw, pitch) = (c.yaw, c.pitch);
        let keys = FlyKeys {
            yaw_left: true,
            pitch_up: true,
            ..Default::default()
        };
        update_turning(&mut c, &keys, (0.0, 0.0), 0.0, 0.5);
        assert!((c.yaw - yaw - 45.0).abs() < 1e-3 && (c.pitch - pitch - 45.0).abs() < 1e-3);
    }
}
