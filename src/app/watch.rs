//! `demo --watch`: a thread polls the level's source files (the level, a map's wads and
//! palette, a scene's textures) and loads the level again when one of them changes; the demo
//! swaps the new world in between frames. Polling rather than OS notifications: an editor's
//! save is a write, a rename or a delete-and-create, and a poll sees all three the same way
//! on every platform, for a handful of files, at no measurable cost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use super::World;

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(100);
/// A change is loaded once the files have stood still this long (an editor writing a large
/// map in pieces is not caught half-way).
const SETTLE: Duration = Duration::from_millis(50);

/// What the watcher's thread hands the demo.
pub enum Reload {
    /// The level loaded again after a change.
    Loaded {
        world: Box<World>,
        /// When the newest changed file was written (the save the user made).
        saved: SystemTime,
        /// Seconds the load (compile, light, terrain) took.
        load_s: f64,
    },
    /// The changed level did not load: the message, once per change.
    Failed(String),
}

/// A file's modification time and length; `None` while it does not exist.
type Stamp = Option<(SystemTime, u64)>;

/// The watched files and their last stamps.
#[derive(Default)]
struct Stamps(BTreeMap<PathBuf, Stamp>);

impl Stamps {
    fn read(files: &[PathBuf]) -> Stamps {
        Stamps(files.iter().map(|f| (f.clone(), stamp(f))).collect())
    }

    fn now(&self) -> Stamps {
        Stamps(self.0.keys().map(|f| (f.clone(), stamp(f))).collect())
    }

    /// The newest write among the files whose stamp differs from `before`'s.
    fn changed_since(&self, before: &Stamps) -> Option<SystemTime> {
        self.0
            .iter()
            .filter(|(f, s)| before.0.get(*f) != Some(*s))
            .map(|(_, s)| s.map_or_else(SystemTime::now, |(t, _)| t))
            .max()
    }
}

fn stamp(file: &Path) -> Stamp {
    let m = std::fs::metadata(file).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// The watching thread's handle; dropping it stops the thread at its next poll.
pub struct Watch {
    reloads: mpsc::Receiver<Reload>,
    /// What is watched, for the user.
    pub files: Vec<PathBuf>,
}

impl Watch {
    /// Watches `files` (listed again by `list` after each load, so a scene that names a new
    /// texture has it watched) and calls `load` when one of them changes.
    pub fn start(
        files: Vec<PathBuf>,
        list: impl Fn() -> Vec<PathBuf> + Send + 'static,
        load: impl Fn() -> anyhow::Result<World> + Send + 'static,
    ) -> std::io::Result<Watch> {
        let (send, reloads) = mpsc::channel();
        // Read before the thread starts: a save made once this returns is a change.
        let seen = Stamps::read(&files);
        std::thread::Builder::new()
            .name("lanthorn-watch".into())
            .spawn(move || poll_loop(seen, &list, &load, &send))?;
        Ok(Watch { reloads, files })
    }

    /// The reload finished since the last call, if any.
    pub fn poll(&self) -> Option<Reload> {
        self.reloads.try_recv().ok()
    }
}

/// Polls until the demo drops its [`Watch`] (the send fails).
fn poll_loop(
    mut seen: Stamps,
    list: &dyn Fn() -> Vec<PathBuf>,
    load: &dyn Fn() -> anyhow::Result<World>,
    send: &mpsc::Sender<Reload>,
) {
    loop {
        std::thread::sleep(POLL);
        let now = seen.now();
        let Some(saved) = now.changed_since(&seen) else {
            continue;
        };
        std::thread::sleep(SETTLE);
        if now.now().0 != now.0 {
            continue; // still being written: look again next poll
        }
        let start = Instant::now();
        let reload = match load() {
            Ok(world) => Reload::Loaded {
                world: Box::new(world),
                saved,
                load_s: start.elapsed().as_secs_f64(),
            },
            Err(e) => Reload::Failed(format!("{e:#}")),
        };
        // Stamps taken before listing again: a file saved during the load is seen next poll.
        let mut next = Stamps::read(&list());
        for (f, s) in &now.0 {
            if let Some(old) = next.0.get_mut(f) {
                *old = *s;
            }
        }
        seen = next;
        if send.send(reload).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lanthorn-watch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The stamps see a rewrite of the same length, a deletion and a new file, and name the
    /// newest write as the save.
    #[test]
    fn stamps_see_rewrites_deletions_and_creations() {
        let dir = scratch("stamps");
        let (a, b) = (dir.join("a.map"), dir.join("b.wad"));
        std::fs::write(&a, "one").unwrap();
        let before = Stamps::read(&[a.clone(), b.clone()]);
        assert_eq!(before.now().changed_since(&before), None);
        let later = SystemTime::now() + Duration::from_secs(5);
        let f = std::fs::File::options().write(true).open(&a).unwrap();
        f.set_modified(later).unwrap();
        drop(f);
        assert_eq!(before.now().changed_since(&before), Some(later));
        std::fs::write(&b, "new").unwrap();
        let with_b = before.now();
        assert!(with_b.0[&b].is_some());
        std::fs::remove_file(&a).unwrap();
        let gone = with_b.now();
        assert!(gone.0[&a].is_none());
        assert!(gone.changed_since(&with_b).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A save reaches the demo as one reload; a load that fails is one message; nothing
    /// arrives while nothing changes.
    #[test]
    fn a_save_reloads_once_and_a_failure_is_said_once() {
        let dir = scratch("loop");
        let file = dir.join("level.ron");
        std::fs::write(&file, "v1").unwrap();
        let watched = file.clone();
        let load = move || -> anyhow::Result<World> {
            let text = std::fs::read_to_string(&watched)?;
            anyhow::ensure!(text != "broken", "{}:1: broken", watched.display());
            Ok(World {
                level: crate::level::Level::default(),
                name: watched.clone(),
                camera: "0,0,0,0,0".parse().unwrap(),
                terrain: None,
            })
        };
        let list_file = file.clone();
        let watch =
            Watch::start(vec![file.clone()], move || vec![list_file.clone()], load).unwrap();
        let wait = |what: &str| -> Reload {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Some(r) = watch.poll() {
                    return r;
                }
                assert!(Instant::now() < deadline, "no reload after {what}");
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        assert!(watch.poll().is_none(), "a reload without a change");
        std::fs::write(&file, "v2, longer").unwrap();
        assert!(matches!(wait("a save"), Reload::Loaded { .. }));
        std::fs::write(&file, "broken").unwrap();
        match wait("a broken save") {
            Reload::Failed(m) => assert!(m.contains("level.ron:1: broken"), "{m}"),
            Reload::Loaded { .. } => panic!("a broken level loaded"),
        }
        std::thread::sleep(4 * POLL);
        assert!(watch.poll().is_none(), "a failure was said twice");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
