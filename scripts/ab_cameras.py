#!/usr/bin/env python3
"""Two or more Lanthorn builds against each other at still cameras of the id maps, alternating
build by build at each camera so that the host's slow minutes fall on all of them alike.

Each run is `lanthorn bench MAP --path still.json --frames FRAMES --per-frame` at 1280x720 with
the comparison's settings (`--styles normal --filter nearest --time` quakespasm's, no fragment count,
no GPU timestamp queries);
its figure is the 10th percentile of its frames' ms (less hit by the host's slow moments than
the median); a camera's figure is the median over ROUNDS runs. Prints each camera's figures,
then each build's geometric mean against the first build and how many cameras it was faster
at. On demand, not in CI; the builds are release binaries (copy each to its own path).

Cameras: lines `MAP X Y Z YAW PITCH` (pitch positive up, as Lanthorn's), or the N slowest
cameras (by Lanthorn / quakespasm) of a `scripts/compare-quakespasm.sh` results.json.

  python3 scripts/ab_cameras.py --builds /tmp/old /tmp/new --slowest 30 results.json
  python3 scripts/ab_cameras.py --builds /tmp/old /tmp/new --cameras cams.txt --rounds 5
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from compare_quakespasm import QS_TIME

ROOT = Path(__file__).resolve().parent.parent
BSP = ROOT.parent / "shared/realdata/quake/bsp"


def cameras(args):
    if args.cameras:
        out = []
        for line in Path(args.cameras).read_text().splitlines():
            p = line.split()
            if len(p) == 6:
                out.append((p[0], *map(float, p[1:])))
        return out
    rows = json.loads(Path(args.slowest_of).read_text())
    rows = [r for r in rows if r.get("qs_ms")]
    rows.sort(key=lambda r: -r["ln_ms"] / r["qs_ms"])
    return [(r["map"], *r["eye"], r["yaw"], -r["quake_pitch"]) for r in rows[: args.slowest]]


def p10(build, cam, frames, tmp):
    mp, x, y, z, yaw, pitch = cam
    path = tmp / "still.json"
    path.write_text(json.dumps({"speed": 8, "keys": [{"pos": [x, y, z], "yaw": yaw, "pitch": pitch}]}))
    out = subprocess.run(
        [build, "bench", str(BSP / f"{mp}.bsp"), "--path", str(path), "--allow-solid", "--frames",
         str(frames), "--warmup", "5", "--json", "--per-frame", "--no-overdraw", "--size",
         "1280x720", "--styles", "normal", "--filter", "nearest", "--time", str(QS_TIME),
         "--disable", "timestamp-query"],
        capture_output=True, text=True, check=True).stdout
    ms = sorted(json.loads(out.strip().splitlines()[-1])["per_frame"]["frame_ms"])
    return ms[len(ms) // 10]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--builds", nargs="+", required=True, help="release binaries; the first is the base")
    p.add_argument("--cameras", help="a file of `MAP X Y Z YAW PITCH` lines")
    p.add_argument("--slowest", type=int, default=30, help="with a results.json: its N slowest cameras")
    p.add_argument("slowest_of", nargs="?", help="a compare-quakespasm results.json")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--frames", type=int, default=60)
    args = p.parse_args()
    if not args.cameras and not args.slowest_of:
        sys.exit("give --cameras FILE or a results.json")
    os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    cams = cameras(args)
    runs = {(i, b): [] for i in range(len(cams)) for b in args.builds}
    with tempfile.TemporaryDirectory() as t:
        for _ in range(args.rounds):
            for i, cam in enumerate(cams):
                for b in args.builds:
                    runs[(i, b)].append(p10(b, cam, args.frames, Path(t)))
    fig = {k: statistics.median(v) for k, v in runs.items()}
    names = [Path(b).name for b in args.builds]
    print("camera".ljust(28) + "".join(n[:12].rjust(13) for n in names))
    for i, cam in enumerate(cams):
        label = f"{cam[0]} {cam[1]:g} {cam[2]:g} {cam[3]:g}"
        print(label.ljust(28) + "".join(f"{fig[(i, b)]:13.2f}" for b in args.builds))
    base = args.builds[0]
    for b, n in zip(args.builds[1:], names[1:]):
        ratios = [fig[(i, b)] / fig[(i, base)] for i in range(len(cams))]
        gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
        faster = sum(r < 1 for r in ratios)
        print(f"{n} / {names[0]}: geometric mean {gm:.3f}, faster at {faster} of {len(cams)}")


if __name__ == "__main__":
    main()
