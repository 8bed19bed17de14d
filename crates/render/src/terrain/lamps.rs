//! The level's lamps (`light::lamps`) as the terrain's point light map takes them.

use lanthorn_level::Entity;
use lanthorn_terrain::lamps::Lamp;

/// The lamps among `entities` (`light::lamps::level_lamps`).
pub fn level_lamps(entities: &[Entity]) -> Vec<Lamp> {
    lanthorn_light::lamps::level_lamps(entities)
        .into_iter()
        .map(|l| Lamp {
            position: l.position,
            color: l.color,
            radius: l.radius,
        })
        .collect()
}
