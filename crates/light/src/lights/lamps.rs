//! Which of a level's lights are lamps: light entities marked `_lamp` "1" (torches, lanterns,
//! lit windows), which the renderer also splats once into the terrain's point light map
//! (`terrain::lamps`); `LevelLights::lamps` holds them.

use lanthorn_level::Entity;

pub use lanthorn_geom::Lamp;

/// The lamps among `entities`: light entities with `_lamp` "1"; the glow reaches as far as the
/// light's `light` value (default 300) in units, coloured by `_color`.
pub fn level_lamps(entities: &[Entity]) -> Vec<Lamp> {
    entities
        .iter()
        .filter(|e| e.classname().starts_with("light") && e.get("_lamp") == Some("1"))
        .filter_map(|e| {
            let position = e.origin().filter(|p| p.is_finite())?;
            let radius = e.get("light").and_then(|v| v.trim().parse::<f32>().ok());
            let radius = radius
                .filter(|r| r.is_finite() && *r > 0.0)
                .unwrap_or(300.0);
            Some(Lamp {
                position,
                // The colour the light bakes with.
                color: super::color(e, "_color"),
                radius,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn entity(pairs: &[(&str, &str)]) -> Entity {
        Entity::from_pairs(pairs)
    }

    /// Only light entities marked `_lamp` "1" are lamps; their reach is their `light` value and
    /// their colour is normalised to its brightest channel.
    #[test]
    fn lamps_are_the_marked_lights() {
        let entities = [
            entity(&[
                ("classname", "light"),
                ("origin", "10 20 30"),
                ("light", "200"),
                ("_lamp", "1"),
                ("_color", "255 128 0"),
            ]),
            entity(&[
                ("classname", "light_torch_small_walltorch"),
                ("origin", "0 0 0"),
                ("_lamp", "1"),
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
        ];
        let l = level_lamps(&entities);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].position, Vec3::new(10.0, 20.0, 30.0));
        assert_eq!(l[0].radius, 200.0);
        assert!((l[0].color - Vec3::new(1.0, 128.0 / 255.0, 0.0)).length() < 1e-6);
        assert_eq!((l[1].radius, l[1].color), (300.0, Vec3::ONE));
    }
}
