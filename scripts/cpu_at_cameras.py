#!/usr/bin/env python3
"""The CPU time of a frame outside the submit-and-wait at every spawn and intermission camera
of the id maps (the quakespasm comparison's cameras), one or more Lanthorn builds alternating
per camera so that the host's slow minutes fall on all of them alike.

A camera's figure is the sum of the `cpu_*` stage medians of `lanthorn bench MAP --path
still.json --frames 30 --warmup 5 --json --no-overdraw` at 1280x720 with the comparison's
settings, but `submit + wait` and `readback` (culling, draw building, recording, uploads: #47's
<= 0.3 ms). Prints each camera's figure per build (culling + world prepare in brackets), then
per build the median, the most and how many cameras are over 0.3 ms. On demand, not in CI;
the builds are release binaries (copy each to its own path).

  python3 scripts/cpu_at_cameras.py --builds /tmp/old /tmp/new
  python3 scripts/cpu_at_cameras.py --builds target/release/lanthorn --maps e1m1 e2m5 --kind inter
"""

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from compare_quakespasm import QS_TIME, cameras, cpu_outside_submit

ROOT = Path(__file__).resolve().parent.parent
BSP = ROOT.parent / "shared/realdata/quake/bsp"
MAPS = sorted(p.stem for p in BSP.glob("*.bsp"))


def cpu_ms(build, mp, cam, still):
    _, x, y, z, yaw, quake_pitch = cam
    still.write_text(json.dumps({"speed": 8, "keys": [{"pos": [x, y, z], "yaw": yaw, "pitch": -quake_pitch}]}))
    out = subprocess.run(
        [build, "bench", str(BSP / f"{mp}.bsp"), "--path", str(still), "--allow-solid", "--frames", "30",
         "--warmup", "5", "--json", "--no-overdraw", "--size", "1280x720", "--styles", "normal",
         "--filter", "nearest", "--time", str(QS_TIME)],
        capture_output=True, text=True, check=True).stdout
    j = json.loads(out.strip().splitlines()[-1])
    return cpu_outside_submit(j), j["cpu_culling_ms_median"], j["cpu_world_prepare_ms_median"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--builds", nargs="+", required=True)
    p.add_argument("--maps", nargs="+", default=MAPS)
    p.add_argument("--kind", choices=["all", "inter", "dm", "start"], default="all",
                   help="which cameras: all, or the intermission, deathmatch or start ones")
    args = p.parse_args()
    figures = {b: [] for b in args.builds}
    with tempfile.TemporaryDirectory() as tmp:
        still = Path(tmp) / "still.json"
        for mp in args.maps:
            for cam in cameras(BSP / f"{mp}.bsp"):
                if args.kind != "all" and not cam[0].startswith(args.kind):
                    continue
                row = []
                for b in args.builds:
                    total, culling, prepare = cpu_ms(b, mp, cam, still)
                    figures[b].append(total)
                    row.append(f"{total:.3f} ({culling:.3f}+{prepare:.3f})")
                print(mp, cam[0], *row, flush=True)
    for b, v in figures.items():
        if v:
            over = sum(x > 0.3 for x in v)
            print(f"{b}: median {statistics.median(v):.3f} ms, most {max(v):.3f}, over 0.3 ms: {over} of {len(v)}")


if __name__ == "__main__":
    main()
