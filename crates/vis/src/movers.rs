//! Objects in motion: each frame every object with a motion is put where its motion has it at
//! the frame's time and relinked to its cells (incrementally, `ObjectLinks::place`), and the
//! portals a door covers are shut exactly while it is at rest, so the flow reads each door's
//! state every frame. A door that never moves (a Quake 3 door, shut as the level spawns it)
//! shuts its portals always. The level stays as it was loaded: this is the culler's runtime
//! state.

use super::objects::ObjectLinks;
use lanthorn_level::Level;

/// Moves the objects to `time` (seconds) and marks in `shut` (one flag per portal) the
/// portals of the doors at rest.
pub fn animate(level: &Level, links: &mut ObjectLinks, shut: &mut Vec<bool>, time: f64) {
    shut_still_doors(level, shut);
    for k in 0..links.moving.len() {
        let i = links.moving[k];
        let o = &level.objects[i as usize];
        let Some(motion) = &o.motion else { continue };
        links.place(level, i, o.origin + motion.offset(time));
        if motion.at_rest(time) {
            for &p in &o.closes {
                if let Some(s) = shut.get_mut(p as usize) {
                    *s = true;
                }
            }
        }
    }
}

/// Marks in `shut` (one flag per portal, all others cleared) the portals of the doors that
/// never move.
pub fn shut_still_doors(level: &Level, shut: &mut Vec<bool>) {
    shut.clear();
    shut.resize(level.portals.len(), false);
    for o in level.objects.iter().filter(|o| o.motion.is_none()) {
        for &p in &o.closes {
            if let Some(s) = shut.get_mut(p as usize) {
                *s = true;
            }
        }
    }
}
