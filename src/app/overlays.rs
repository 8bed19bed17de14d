//! The culling overlays as a command drives them: which are on, where culling is frozen, and
//! one function that culls a frame and hands the renderer what the overlays draw.

use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::overlay::lines::{culled_surface_lines, overlay_lines, wireframe_lines};
use crate::render::overlay::{OverlaySet, OverlayView};
use crate::render::settings::FrameSettings;
use crate::render::world::OctagonClip;
use crate::render::Renderer;
use crate::vis::{Culler, VisibleSet};

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

/// Culls the frame drawn from `camera` into `visible` (from the frozen culling camera when
/// there is one, recording the flow's portal tests when the portals overlay wants them), and
/// sets the renderer's overlay lines and frozen camera and the settings' tint and overdraw.
pub fn cull_frame(
    level: &Level,
    culler: &mut Culler,
    renderer: &mut Renderer,
    camera: &Camera,
    overlays: &Overlays,
    visible: &mut VisibleSet,
    settings: &mut FrameSettings,
) {
    let culling = overlays
        .cull_camera
        .map(|spec| Camera::new(spec, camera.aspect))
        .unwrap_or(*camera);
    let set = &overlays.set;
    if set.needs_trace() {
        culler.flow.trace.get_or_insert_with(Vec::new);
    } else {
        culler.flow.trace = None;
    }
    super::world::animate(level, culler, settings);
    culler.cull(level, &culling, visible);
    renderer.culling = overlays.cull_camera.is_some().then_some(culling);
    let view = OverlayView {
        camera,
        culling: &culling,
        visible,
    };
    let trace = culler.flow.trace.as_deref().unwrap_or(&[]);
    let mut lines = overlay_lines(level, set, &view, trace);
    let world = &renderer.world;
    if set.culled_surfaces {
        let culled = world.culled_surfaces(visible, &culling, settings.surface_tests);
        culled_surface_lines(world.mesh(), &culled, &view, &mut lines);
    }
    // Wireframe: polygon-mode lines where the adapter has them, triangle edges as lines
    // otherwise.
    settings.wireframe = set.wireframe && world.can_draw_wireframe();
    if set.wireframe && !settings.wireframe {
        wireframe_lines(world.mesh(), &view, &mut lines);
    }
    renderer.overlay_lines = lines;
    settings.tint = set.tint();
    settings.overdraw = set.overdraw.then_some(overlays.overdraw_clip);
}
