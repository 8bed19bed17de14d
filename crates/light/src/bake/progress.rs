//! The bake's progress on a terminal.

use std::time::Instant;

/// While `workers` bake: once the bake has run a second, on a terminal, its share done on one
/// stderr line (`next` counts the surfaces taken of `total`).
pub(super) fn show<T>(
    workers: &[std::thread::ScopedJoinHandle<'_, T>],
    next: &std::sync::atomic::AtomicUsize,
    total: usize,
    start: Instant,
) {
    use std::io::{IsTerminal, Write};
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        if terminal && start.elapsed().as_secs_f64() > 1.0 {
            let taken = next.load(std::sync::atomic::Ordering::Relaxed).min(total);
            eprint!(
                "\rlight: {:3} % of {total} surfaces, {:.1} s",
                taken * 100 / total.max(1),
                start.elapsed().as_secs_f64()
            );
            let _ = std::io::stderr().flush();
            shown = true;
        }
    }
    if shown {
        eprintln!(
            "\rlight: done, {total} surfaces in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}
