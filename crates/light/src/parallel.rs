//! The one scheduler of the light's parallel loops (the lightmap bake's surfaces, the light
//! grid's points): scoped threads taking items one at a time from a shared counter, so uneven
//! items balance, with the results in item order. No thread pool crate: the loops are few,
//! long and independent, and this is all they need.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Told how far a long loop is: (what it is doing, items done, items in all). The program
/// draws it (`lanthorn compile` on a terminal); a library user may log it or ignore it.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(&str, usize, usize) + Send + Sync>);

impl Progress {
    /// A progress that tells no one.
    pub fn silent() -> Progress {
        Progress(Arc::new(|_, _, _| {}))
    }

    /// Tells the callback.
    pub fn report(&self, stage: &str, done: usize, total: usize) {
        (self.0)(stage, done, total)
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::silent()
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// `work(i)` for every `i` in `0..n` on up to 16 threads, in index order; `progress` hears
/// about every tenth of a second how many items were taken, and once at the end.
pub fn map<T: Send>(
    n: usize,
    work: impl Fn(usize) -> T + Sync,
    (stage, progress): (&str, &Progress),
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 16);
    let next = AtomicUsize::new(0);
    let done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        out.push((i, work(i)));
                    }
                    out
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(Duration::from_millis(100));
            progress.report(stage, next.load(Ordering::Relaxed).min(n), n);
        }
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    progress.report(stage, n, n);
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for (i, t) in done {
        slots[i] = Some(t);
    }
    slots
        .into_iter()
        .map(|t| t.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Every item runs once, the results come back in item order whatever finished first, and
    /// the progress ends at n of n.
    #[test]
    fn every_item_once_in_order() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = heard.clone();
        let progress = Progress(Arc::new(move |s, d, t| {
            h.lock().unwrap().push((s.to_string(), d, t))
        }));
        let out = map(
            1000,
            |i| {
                // Uneven items: some much slower than others.
                if i % 97 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                i * 3
            },
            ("test", &progress),
        );
        assert_eq!(out, (0..1000).map(|i| i * 3).collect::<Vec<_>>());
        let heard = heard.lock().unwrap();
        assert_eq!(heard.last(), Some(&("test".to_string(), 1000, 1000)));
        assert!(
            heard.windows(2).all(|w| w[0].1 <= w[1].1),
            "progress never goes back"
        );
        assert!(map(0, |i| i, ("none", &Progress::silent())).is_empty());
    }
}
