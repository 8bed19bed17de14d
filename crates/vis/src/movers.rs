//! Objects in motion: each frame every object with a motion is put where its motion has it at
//! the frame's time and relinked to its cells (incrementally, `ObjectLinks::place`), and the
//! portals a door covers are shut exactly while it is at rest, so the flow reads each door's
//! state every frame. The level stays as it was loaded: this is the culler's runtime state.

use super::objects::ObjectLinks;
use lanthorn_level::Level;

/// Moves the objects to `time` (seconds) and marks in `shut` (one flag per portal) the
/// portals of the doors at rest.
pub fn animate(level: &Level, links: &mut ObjectLinks, shut: &mut Vec<bool>, time: f64) {
    shut.clear();
    shut.resize(level.portals.len(), false);
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
