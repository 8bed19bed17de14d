//! The demo's key map — one table, which the help panel lists — and the scripted input of
//! `demo --input-script` (timed key presses, for the windowed test: CI has no xdotool).

use winit::keyboard::KeyCode;

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Forward,
    Back,
    Left,
    Right,
    Up,
    Down,
    Fast,
    YawLeft,
    YawRight,
    PitchUp,
    PitchDown,
    Faster,
    Slower,
    /// Toggles overlay `i` of `render::overlay::OVERLAY_NAMES`.
    Overlay(usize),
    /// The overdraw overlay with octagon clipping, or without.
    OverdrawOctagons,
    Panel,
    RecordPath,
    /// F12: the frame as a PNG (with Shift: with the panel).
    Screenshot,
    /// F11: the next frame captured by RenderDoc (when the program runs under it).
    RenderDocCapture,
    /// `[` / `]`: the camera to the leak line's previous / next corner.
    LeakStep(i32),
    Quit,
}

/// The key map: (key, action, what the help panel says). Held keys act while down; the
/// others on each press.
pub const KEY_MAP: &[(KeyCode, Action, &str)] = &[
    (KeyCode::KeyW, Action::Forward, "W / ↑  forward"),
    (KeyCode::ArrowUp, Action::Forward, ""),
    (KeyCode::KeyS, Action::Back, "S / ↓  back"),
    (KeyCode::ArrowDown, Action::Back, ""),
    (KeyCode::KeyA, Action::Left, "A / ←  left"),
    (KeyCode::ArrowLeft, Action::Left, ""),
    (KeyCode::KeyD, Action::Right, "D / →  right"),
    (KeyCode::ArrowRight, Action::Right, ""),
    (KeyCode::Space, Action::Up, "Space  up"),
    (KeyCode::KeyC, Action::Down, "C  down"),
    (KeyCode::ShiftLeft, Action::Fast, "Shift  fast"),
    (KeyCode::ShiftRight, Action::Fast, ""),
    (KeyCode::KeyQ, Action::YawLeft, "Q / E  turn left / right"),
    (KeyCode::KeyE, Action::YawRight, ""),
    (KeyCode::KeyR, Action::PitchUp, "R / F  look up / down"),
    (KeyCode::KeyF, Action::PitchDown, ""),
    (
        KeyCode::Equal,
        Action::Faster,
        "+  faster (or the mouse wheel)",
    ),
    (KeyCode::NumpadAdd, Action::Faster, ""),
    (KeyCode::Minus, Action::Slower, "−  slower"),
    (KeyCode::NumpadSubtract, Action::Slower, ""),
    (KeyCode::Digit1, Action::Overlay(0), "1  portals overlay"),
    (KeyCode::Digit2, Action::Overlay(1), "2  octagons overlay"),
    (KeyCode::Digit3, Action::Overlay(2), "3  cells overlay"),
    (KeyCode::Digit4, Action::Overlay(3), "4  depth overlay"),
    (
        KeyCode::Digit5,
        Action::Overlay(4),
        "5  culled-surfaces overlay",
    ),
    (
        KeyCode::Digit6,
        Action::Overlay(5),
        "6  freeze culling (frozen overlay)",
    ),
    (KeyCode::Digit7, Action::Overlay(6), "7  overdraw overlay"),
    (KeyCode::Digit8, Action::Overlay(7), "8  wireframe overlay"),
    (
        KeyCode::Digit9,
        Action::Overlay(8),
        "9  leak overlay (a level compiled with --allow-leak)",
    ),
    (
        KeyCode::Digit0,
        Action::Overlay(9),
        "0  light grid overlay (moving objects' light)",
    ),
    (
        KeyCode::KeyO,
        Action::OverdrawOctagons,
        "O  overdraw with / without octagon clipping",
    ),
    (
        KeyCode::BracketLeft,
        Action::LeakStep(-1),
        "[ / ]  walk the leak: previous / next corner",
    ),
    (KeyCode::BracketRight, Action::LeakStep(1), ""),
    (KeyCode::F1, Action::Panel, "F1  panel"),
    (
        KeyCode::KeyP,
        Action::RecordPath,
        "P  record a camera path (again: stop, write path-<time>.json)",
    ),
    (
        KeyCode::F12,
        Action::Screenshot,
        "F12  save the frame (Shift+F12: with the panel)",
    ),
    (
        KeyCode::F11,
        Action::RenderDocCapture,
        "F11  RenderDoc capture of the next frame (under RenderDoc)",
    ),
    (KeyCode::Escape, Action::Quit, "Esc  quit"),
];

/// The action of `key`, if it has one.
pub fn action(key: KeyCode) -> Option<Action> {
    KEY_MAP
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, a, _)| *a)
}

/// The help panel's lines.
pub fn help_lines() -> impl Iterator<Item = &'static str> {
    KEY_MAP
        .iter()
        .map(|(_, _, text)| *text)
        .filter(|t| !t.is_empty())
        .chain(["right mouse button held  look", "mouse wheel  camera speed"])
}

/// One scripted key press: `key` goes down at frame `frame` and up `hold` frames later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedKey {
    pub frame: u64,
    pub key: KeyCode,
    pub hold: u64,
}

/// Reads an input script: one press a line, `FRAME KEY [FRAMES]` (the key by its winit name —
/// `KeyQ`, `Digit1`, `F12`, `ShiftLeft` — held FRAMES frames, default 1); `#` starts a
/// comment. Errors name the file and the line.
pub fn parse_script(path: &std::path::Path, text: &str) -> anyhow::Result<Vec<ScriptedKey>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fail = |what: &str| {
            anyhow::anyhow!(
                "{}:{}: {what} (expected FRAME KEY [FRAMES], e.g. \"30 KeyQ 10\")",
                path.display(),
                n + 1
            )
        };
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(fail("wrong number of fields"));
        }
        let frame = parts[0]
            .parse()
            .map_err(|_| fail("the frame is not a number"))?;
        let key = key_named(parts[1]).ok_or_else(|| fail("unknown key name"))?;
        let hold = match parts.get(2) {
            Some(h) => h.parse().map_err(|_| fail("the hold is not a number"))?,
            None => 1,
        };
        out.push(ScriptedKey { frame, key, hold });
    }
    Ok(out)
}

/// A key by the name `KeyCode`'s Debug gives it (the keys of the map and a few more).
fn key_named(name: &str) -> Option<KeyCode> {
    KEY_MAP
        .iter()
        .map(|(k, _, _)| *k)
        .find(|k| format!("{k:?}") == name)
}

/// The key events of `frame`: (key, down).
pub fn events_at(script: &[ScriptedKey], frame: u64) -> Vec<(KeyCode, bool)> {
    let mut out = Vec::new();
    for s in script {
        if s.frame == frame {
            out.push((s.key, true));
        }
        if s.frame + s.hold.max(1) == frame {
            out.push((s.key, false));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_one_action_and_the_help_lists_every_action() {
        for (i, (k, _, _)) in KEY_MAP.iter().enumerate() {
            assert!(
                !KEY_MAP[i + 1..].iter().any(|(o, _, _)| o == k),
                "{k:?} is mapped twice"
            );
        }
        // A key without a line of its own shares the line above it, which names two keys
        // ("Q / E"); so every action is on the help.
        for i in 1..KEY_MAP.len() {
            if KEY_MAP[i].2.is_empty() {
                let above = KEY_MAP[..i].iter().rev().find(|e| !e.2.is_empty()).unwrap();
                let same = above.1 == KEY_MAP[i].1;
                assert!(
                    same || above.2.contains(" / "),
                    "{:?} has no help line",
                    KEY_MAP[i].1
                );
            }
        }
        assert_eq!(action(KeyCode::KeyQ), Some(Action::YawLeft));
        assert_eq!(action(KeyCode::KeyR), Some(Action::PitchUp));
    }

    #[test]
    fn scripts_parse_press_and_release_and_errors_name_the_line() {
        let p = std::path::Path::new("s.txt");
        let s = parse_script(p, "# toggle two overlays\n5 Digit1\n8 KeyQ 10 # turn\n").unwrap();
        assert_eq!(
            s,
            vec![
                ScriptedKey {
                    frame: 5,
                    key: KeyCode::Digit1,
                    hold: 1
                },
                ScriptedKey {
                    frame: 8,
                    key: KeyCode::KeyQ,
                    hold: 10
                },
            ]
        );
        assert_eq!(events_at(&s, 5), vec![(KeyCode::Digit1, true)]);
        assert_eq!(events_at(&s, 6), vec![(KeyCode::Digit1, false)]);
        assert_eq!(events_at(&s, 18), vec![(KeyCode::KeyQ, false)]);
        let err = parse_script(p, "1 Digit1\n2 KeyZed\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.txt:2: unknown key name"), "{err}");
    }
}
