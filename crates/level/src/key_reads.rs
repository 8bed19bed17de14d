//! Which entity keys Lanthorn reads, by class: recorded while a test asks, so the editor's
//! entity definitions (`editors/trenchbroom`) can be checked against what the compiler and the
//! loader really read, in both directions. Only reads on the recording thread are seen.

use std::cell::RefCell;
use std::collections::BTreeSet;

/// A (classname, key) pair read.
pub type Read = (String, String);

thread_local! {
    static READS: RefCell<Option<BTreeSet<Read>>> = const { RefCell::new(None) };
}

/// Notes that `key` was looked up on the entity with these pairs (while recording).
pub fn note(pairs: &[(String, String)], key: &str) {
    READS.with(|r| {
        if let Some(set) = r.borrow_mut().as_mut() {
            let class = pairs
                .iter()
                .find(|(k, _)| k == "classname")
                .map_or("", |(_, v)| v.as_str());
            set.insert((class.to_string(), key.to_string()));
        }
    });
}

/// Runs `f`, returning what it returned and every key it read.
pub fn recorded<T>(f: impl FnOnce() -> T) -> (T, BTreeSet<Read>) {
    READS.with(|r| *r.borrow_mut() = Some(BTreeSet::new()));
    let out = f();
    let reads = READS.with(|r| r.borrow_mut().take()).unwrap_or_default();
    (out, reads)
}
