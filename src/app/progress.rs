//! Long library loops drawn on the terminal: the light bake's share done on one stderr line,
//! once it has run a second, and a last line when it ends. Nothing when stderr is not a
//! terminal (logs and tests stay clean).

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::compile::Progress;

/// The progress line for a terminal (silent where stderr is none).
pub fn terminal() -> Progress {
    if !std::io::stderr().is_terminal() {
        return Progress::silent();
    }
    // Per stage: when it started and whether its line shows.
    let state: Mutex<Option<(String, Instant, bool)>> = Mutex::new(None);
    Progress(Arc::new(move |stage, done, total| {
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        let (name, start, shown) =
            state.get_or_insert_with(|| (stage.to_string(), Instant::now(), false));
        if name != stage {
            (*name, *start, *shown) = (stage.to_string(), Instant::now(), false);
        }
        let seconds = start.elapsed().as_secs_f64();
        if done >= total {
            if *shown {
                eprintln!("\r{stage}: done, {total} in {seconds:.1} s          ");
            }
            *shown = false;
        } else if seconds > 1.0 {
            let percent = done * 100 / total.max(1);
            eprint!("\r{stage}: {percent:3} % of {total}, {seconds:.1} s");
            let _ = std::io::stderr().flush();
            *shown = true;
        }
    }))
}
