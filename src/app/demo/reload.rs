//! `--watch` in the window: a level the watcher loaded again is swapped in between frames
//! (camera, overlays and settings stay); the time from the save to the frame that shows it is
//! said once that frame is presented; a failed reload is said once and the old level stays.

use std::time::SystemTime;

use super::Demo;
use crate::app::watch::Reload;

/// A swapped-in level whose first frame is not presented yet.
pub(super) struct SwappedIn {
    saved: SystemTime,
    load_s: f64,
    upload_s: f64,
}

impl Demo {
    /// Before a frame: swaps in what the watcher loaded since the last one.
    pub(super) fn take_reload(&mut self) -> Option<SwappedIn> {
        // Left waiting in the channel until the window is up.
        self.running.as_ref()?;
        match self.opts.watch.as_ref()?.poll()? {
            Reload::Failed(message) => {
                eprintln!("{message}");
                self.shown.watch = format!("reload failed, the old level stays: {message}");
                None
            }
            Reload::Loaded {
                world,
                saved,
                load_s,
            } => {
                let world = *world;
                self.set_leak(world.level.leak.clone());
                self.shown.switchable = crate::level::styles::switchable(&world.level.entities);
                let r = self.running.as_mut()?;
                r.session.overlays.set.leak |= world.level.leak.is_some();
                let upload_s = r.session.replace_level(&r.gpu, world.level, world.terrain);
                r.present
                    .prepare(&r.gpu, &r.session.renderer.target.color_view);
                Some(SwappedIn {
                    saved,
                    load_s,
                    upload_s,
                })
            }
        }
    }

    /// After the first frame of a swapped-in level is presented: how long the user waited.
    pub(super) fn report_reload(&mut self, s: SwappedIn) {
        let waited = SystemTime::now()
            .duration_since(s.saved)
            .map_or(0.0, |d| d.as_secs_f64());
        let line = format!(
            "reloaded {}: {waited:.2} s from save to frame (load {:.2} s, upload {:.3} s)",
            self.opts.level_name, s.load_s, s.upload_s
        );
        println!("{line}");
        self.shown.watch = line;
        self.reloads += 1;
        // The test's exit: a few frames more, so the saved screenshot has settled.
        if self.opts.exit_after_reloads == Some(self.reloads) {
            self.opts.frames = Some(self.frames + 20);
        }
    }
}
