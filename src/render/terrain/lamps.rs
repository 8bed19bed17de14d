//! The level's lamps (`light::lamps`) as the terrain's point light map takes them.

use crate::level::Entity;
use crate::terrain::lamps::Lamp;

/// The lamps among `entities` (`light::lamps::level_lamps`).
pub fn level_lamps(entities: &[Entity]) -> Vec<Lamp> {
    crate::light::lamps::level_lamps(entities)
        .into_iter()
        .map(|l| Lamp {
            position: l.position,
            color: l.color,
            radius: l.radius,
        })
        .collect()
}
