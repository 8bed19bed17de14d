//! The culling overlays as a command drives them: which are on and where culling is frozen
//! (`app::session` culls each frame by them and hands the renderer their lines).

use crate::geom::CameraSpec;
use crate::render::overlay::OverlaySet;
use crate::render::world::OctagonClip;

/// Which overlays are on and where culling is frozen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlays {
    pub set: OverlaySet,
    /// Culling runs from this camera instead of the drawing one (`--cull-camera`, or the
    /// camera at the moment `frozen` was switched on).
    pub cull_camera: Option<CameraSpec>,
    /// The overdraw overlay's octagon clipping.
    pub overdraw_clip: OctagonClip,
}

impl Default for Overlays {
    fn default() -> Self {
        Overlays {
            set: OverlaySet::default(),
            cull_camera: None,
            overdraw_clip: OctagonClip::ClipDistances,
        }
    }
}

impl Overlays {
    /// Keeps the frozen culling camera in step with the `frozen` overlay: switched on, culling
    /// stays at `camera`; off, it follows the drawing camera again.
    pub fn freeze(&mut self, camera: CameraSpec) {
        match (self.set.frozen, self.cull_camera) {
            (true, None) => self.cull_camera = Some(camera),
            (false, Some(_)) => self.cull_camera = None,
            _ => {}
        }
    }

    /// The overdraw overlay with octagon clipping (clip distances), or without.
    pub fn toggle_overdraw_octagons(&mut self) {
        self.overdraw_clip = match self.overdraw_clip {
            OctagonClip::Off => OctagonClip::ClipDistances,
            _ => OctagonClip::Off,
        };
    }
}
