#!/usr/bin/env python3
"""Save-to-frame time of `lanthorn demo --watch` (on demand, not CI).

Copies a level source (and, for a .map, its wads and palette found beside the real data) into
a temporary folder, opens the demo on the copy with --watch under the current DISPLAY (run it
under xvfb-run), saves an edit N times — each a real change the compiler sees: a light entity
moved one unit back and forth — waiting for the demo's "reloaded" line after each, and prints
the demo's own lines and the medians.

    xvfb-run -a -s "-screen 0 1280x720x24" scripts/watch-timing.py LEVEL [--edits 5] [--bin PATH]
"""
import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

LINE = re.compile(
    r"reloaded .*: ([0-9.]+) s from save to frame \(load ([0-9.]+) s, upload ([0-9.]+) s\)"
)


def copy_level(src: Path, into: Path) -> Path:
    """The level copied into `into`, with what its compile reads found the compiler's way."""
    if src.suffix == ".map":
        level = into / "maps" / src.name
        level.parent.mkdir(parents=True)
        shutil.copy(src, level)
        for wads in [src.parent / "../wads", src.parent]:
            for wad in wads.glob("*.wad"):
                (into / "wads").mkdir(exist_ok=True)
                shutil.copy(wad, into / "wads" / wad.name)
        for pal in [src.parent / "palette.lmp", src.parent / "../palette.lmp"]:
            if pal.exists():
                shutil.copy(pal, into / "palette.lmp")
        return level
    # A scene: its folder (textures are named relative to it).
    shutil.copytree(src.parent.parent, into / "tree", dirs_exist_ok=True)
    return into / "tree" / src.parent.name / src.name


def edit(level: Path, k: int) -> None:
    """Moves the first light one unit along x (odd edits) and back (even edits)."""
    text = level.read_text()
    d = 1 if k % 2 else -1
    if level.suffix == ".map":
        m = re.search(r'"origin"\s+"(-?\d+) [^"]*"\s+"classname"\s+"light', text) or re.search(
            r'"classname"\s+"light[^"]*"\s+"origin"\s+"(-?\d+) ', text
        )
    else:
        m = re.search(r'\("classname", "light"\), \("origin", "(-?\d+) ', text)
    assert m, f"no light entity with an origin in {level}"
    x = int(m.group(1)) + d
    text = text[: m.start(1)] + str(x) + text[m.end(1) :]
    level.write_text(text)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("level", type=Path)
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--bin", default="target/release/lanthorn")
    ap.add_argument("--camera", default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        level = copy_level(a.level.resolve(), Path(tmp))
        cmd = [a.bin, "demo", str(level), "--watch", "--frames", "100000000", "--size", "1280x720"]
        cmd += ["--exit-after-reloads", str(a.edits), "--screenshot", f"{tmp}/last.png"]
        if a.camera:
            cmd += ["--camera", a.camera]
        demo = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        lines = []
        seen = threading.Semaphore(0)

        def read():
            for line in demo.stdout:
                lines.append(line.rstrip())
                print(line.rstrip(), flush=True)
                if line.startswith("watching") or LINE.search(line):
                    seen.release()

        threading.Thread(target=read, daemon=True).start()
        if not seen.acquire(timeout=600):
            print("the demo never said it was watching", file=sys.stderr)
            return 1
        time.sleep(3)  # the first frames: the window up, the level on screen
        for k in range(a.edits):
            edit(level, k + 1)
            if not seen.acquire(timeout=600):
                print(f"no reload after edit {k + 1}", file=sys.stderr)
                return 1
            time.sleep(1)
        demo.wait(timeout=600)
    found = [tuple(map(float, m.groups())) for m in map(LINE.search, lines) if m]
    for name, i in [("save to frame", 0), ("load", 1), ("upload", 2)]:
        vals = [f[i] for f in found]
        print(f"{name}: median {statistics.median(vals):.3f} s of {len(vals)} ({', '.join(f'{v:.2f}' for v in vals)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
