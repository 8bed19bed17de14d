//! Which of a level's lights are lamps: light entities marked `_lamp` "1" with a linear
//! falloff and no cone (torches, lanterns, lit windows). The renderer splats them once into the
//! terrain's point light map (`terrain::lamps`) and moving objects take them per pixel
//! (`render::world::object_lamps`); `LevelLights::lamps` holds them.

use super::EntityLight;

pub use lanthorn_geom::Lamp;

/// The lamps among `lights` (those `EntityLight::lamp` marks), a `_deviance` light's points
/// each with its share.
pub fn lamps_among(lights: &[EntityLight]) -> Vec<Lamp> {
    lights
        .iter()
        .filter(|l| l.lamp)
        .map(|l| Lamp {
            position: l.position,
            color: l.color,
            light: l.intensity,
            wait: l.falloff,
            angle_scale: l.angle_scale,
            style: l.style,
            weight: l.weight,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::level_lights;
    use glam::Vec3;
    use lanthorn_level::{Entity, Level};

    fn entity(pairs: &[(&str, &str)]) -> Entity {
        Entity::from_pairs(pairs)
    }

    /// Only light entities marked `_lamp` "1" with a linear falloff and no cone are lamps; their
    /// reach is their `light` value over their `wait`, their colour is normalised to its
    /// brightest channel, and a `_deviance` lamp is its points, sharing its light.
    #[test]
    fn lamps_are_the_marked_linear_lights() {
        let mut level = Level::default();
        level.entities = vec![
            entity(&[
                ("classname", "light"),
                ("origin", "10 20 30"),
                ("light", "200"),
                ("wait", "2"),
                ("_lamp", "1"),
                ("_color", "255 128 0"),
            ]),
            entity(&[
                ("classname", "light_torch_small_walltorch"),
                ("origin", "0 0 0"),
                ("_lamp", "1"),
                ("style", "6"),
            ]),
            entity(&[
                ("classname", "light"),
                ("origin", "5 5 5"),
                ("light", "200"),
            ]),
            entity(&[
                ("classname", "info_player_start"),
                ("origin", "0 0 0"),
                ("_lamp", "1"),
            ]),
            entity(&[("classname", "light"), ("origin", "bad"), ("_lamp", "1")]),
            // An inverse falloff is not a lamp's.
            entity(&[
                ("classname", "light"),
                ("origin", "0 0 0"),
                ("delay", "1"),
                ("_lamp", "1"),
            ]),
            entity(&[
                ("classname", "light"),
                ("origin", "100 0 0"),
                ("_lamp", "1"),
                ("_deviance", "8"),
                ("_samples", "4"),
            ]),
        ];
        let l = level_lights(&level).lamps;
        assert_eq!(l.len(), 6, "{l:?}");
        assert_eq!(l[0].position, Vec3::new(10.0, 20.0, 30.0));
        assert_eq!(l[0].radius(), 100.0);
        assert!((l[0].color - Vec3::new(1.0, 128.0 / 255.0, 0.0)).length() < 1e-6);
        assert_eq!(
            (l[1].radius(), l[1].color, l[1].style),
            (300.0, Vec3::ONE, 6)
        );
        let spread = &l[2..];
        assert!(spread
            .iter()
            .all(|p| p.weight == 0.25 && p.position.distance(Vec3::X * 100.0) <= 8.0));
    }
}
