#!/usr/bin/env python3
"""Lanthorn against quakespasm on the 15 id maps (run by scripts/compare-quakespasm.sh).

For every map, the cameras are the map's own entities: each info_player_start and
info_player_deathmatch (the eye 22 units above it, looking along its "angle") and each
info_intermission (its origin, "mangle" = pitch yaw roll, Quake's pitch looks down). Both
renderers draw each at 1280x720 with matched settings:

  quakespasm  QS_LIGHTSTYLES=1 (every style "m"), QS_ENTS=1 (brush models where the map puts
              them: doors closed), gl_overbright 1, GL_NEAREST_MIPMAP_LINEAR, fov 90 with
              fov_adapt 0 (90 degrees across the 16:9 window; quakespasm 0.95's cvar is
              "fov_adapt", its default widens to 106 degrees), game time stepped 1 ms a frame
  Lanthorn    --styles normal, --filter nearest, --time QS_TIME (the game time of
              quakespasm's screenshot, so sky and liquids match)

and the script writes OUT/MAP-CAMERA.png (quakespasm left, Lanthorn right), OUT/results.json
and OUT/table.md: mean absolute error in linear light, SSIM on greyscale, the pure-black share
of each, and for the timed cameras the frame ms of both (median over RUNS alternating runs;
quakespasm: timedemo of a demo recorded at the camera, whole frame with its 2D pass and the
swap to Xvfb; Lanthorn: headless bench of a one-key path, submit + wait, without GPU timestamp
queries, which quakespasm does not make either and which cost lavapipe about 0.3 ms a frame),
Lanthorn's world pass GPU ms (one more bench run with the timestamp queries) and Lanthorn's world
surfaces drawn against quakespasm's wpoly. The exit code is 1 when a camera misses the image
thresholds below (fixed before the final run), 0 otherwise.
"""

import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

# Pass thresholds, per camera (fixed before the final run).
MAE_MAX = 0.015  # mean |linear(a) - linear(b)| over RGB, 0..1 (worst seen: 0.010, lava)
# Greyscale SSIM, 8x8 windows (worst seen: 0.765, e1m7 inter1: two pillars, func_doors with
# START_OPEN, stand raised as the game spawns them in Lanthorn, where compiled in quakespasm here).
SSIM_MIN = 0.75
BLACK_EXTRA_MAX = 0.01  # Lanthorn's pure-black share may exceed quakespasm's by this much

# Cameras whose ratio is above this are timed again with `--recheck` runs.
RECHECK_ABOVE = 0.45

# Game time of quakespasm's screenshot, fitted to its sky (whose layers scroll with the time):
# Lanthorn's sky correlates best with quakespasm's at 1.33-1.34 s on generated levels' cameras
# looking up, and at 1.3-1.4 on e1m7's and e2m5's (docs/performance.md, 2026-12-07 twentieth).
# The server's clock starts at 1 s; 0.04, the spawn frames and console waits alone, put the sky
# elsewhere than quakespasm's.
QS_TIME = 1.335

MAPS = "dm1 dm2 dm3 dm4 dm5 dm6 e1m1 e1m2 e1m3 e1m4 e1m5 e1m6 e1m7 e1m8 start".split()
SIZE = (1280, 720)
ROOT = Path(__file__).resolve().parent.parent


def entities(bsp):
    """The entity lump of a BSP29 file as a list of dicts (first value of each key)."""
    data = bsp.read_bytes()
    ofs, length = struct.unpack_from("<ii", data, 4)
    text = data[ofs : ofs + length].decode("latin-1")
    out = []
    for body in re.findall(r"\{([^{}]*)\}", text):
        e = {}
        for k, v in re.findall(r'"([^"]*)"\s*"([^"]*)"', body):
            e.setdefault(k, v)
        out.append(e)
    return out


def floats(s, n):
    v = [float(x) for x in s.split()]
    return v if len(v) == n else None


def cameras(bsp):
    """(name, x, y, z, yaw, quake_pitch) for every spawn point and intermission camera."""
    out, counts = [], {}
    for e in entities(bsp):
        cls = e.get("classname", "")
        o = floats(e.get("origin", ""), 3)
        if o is None:
            continue
        if cls in ("info_player_start", "info_player_deathmatch"):
            yaw, pitch, z = float(e.get("angle", "0") or 0), 0.0, o[2] + 22.0
            short = "start" if cls == "info_player_start" else "dm"
        elif cls == "info_intermission":
            m = floats(e.get("mangle", "0 0 0"), 3) or [0.0, 0.0, 0.0]
            pitch, yaw, z = m[0], m[1], o[2]
            short = "inter"
        else:
            continue
        counts[short] = counts.get(short, 0) + 1
        out.append((f"{short}{counts[short]}", o[0], o[1], z, yaw, pitch))
    return out


def run(cmd, env=None, check=True):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout


def qs_env(timing, frames):
    env = dict(os.environ)
    env.update(
        QS_W=str(SIZE[0]), QS_H=str(SIZE[1]), QS_LIGHTSTYLES="1", QS_ENTS="1",
        QS_TEXMODE="GL_NEAREST_MIPMAP_LINEAR", QS_OVERBRIGHT="1", QS_EXTRA="fov_adapt 0",
        QS_TIMING="1" if timing else "0", QS_FRAMES=str(frames),
    )
    return env


def cpu_outside_submit(j):
    """The frame's CPU time outside the submit-and-wait: every `cpu_*` stage median of
    `bench --json` but `submit + wait` and `readback` (culling, draw building, recording)."""
    return sum(v for k, v in j.items() if k.startswith("cpu_") and k.endswith("_ms_median")
               and "submit" not in k and "readback" not in k)


def fmt(v):
    return f"{v:g}"


class Compare:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.qs = Path(args.qs_root) / "qs_shot.sh"
        self.lanthorn = Path(args.lanthorn)
        self.bsp_dir = Path(args.bsp_dir) if args.bsp_dir else ROOT.parent / "shared/realdata/quake/bsp"
        # Quake's palette for Lanthorn wherever the maps lie (a folder of generated levels has
        # none: Lanthorn would draw grey checkerboards, saying so only on its stderr).
        self.palette = ROOT.parent / "shared/realdata/quake/palette.lmp"
        if not self.qs.exists():
            sys.exit(f"{self.qs} is missing: run bash ../shared/tools/quakespasm/build.sh once")
        if not self.lanthorn.exists():
            sys.exit(f"{self.lanthorn} is missing: cargo build --release (or set LANTHORN)")

    def lanthorn_common(self, cam):
        _, x, y, z, yaw, pitch = cam
        # Lanthorn's pitch is positive up.
        return [f"--camera={fmt(x)},{fmt(y)},{fmt(z)},{fmt(yaw)},{fmt(-pitch)}",
                "--size", f"{SIZE[0]}x{SIZE[1]}", "--styles", "normal", "--filter", "nearest",
                "--time", str(QS_TIME)] + (["--palette", str(self.palette)] if self.palette.exists() else [])

    def qs_cmd(self, mp, cam, png):
        _, x, y, z, yaw, pitch = cam
        return ["bash", str(self.qs), mp, fmt(x), fmt(y), fmt(z), fmt(yaw), fmt(pitch), str(png)]

    def images(self, mp, cam, tmp):
        qs_png, ln_png = tmp / "qs.png", tmp / "ln.png"
        run(self.qs_cmd(mp, cam, qs_png), env=qs_env(False, 1), check=False)
        if not qs_png.exists():
            print(f"{mp} {cam[0]}: quakespasm wrote no picture", file=sys.stderr)
            return dict(mae_linear=float("nan"), ssim=float("nan"), black_a=float("nan"),
                        black_b=float("nan"), error="quakespasm wrote no picture")
        run([str(self.lanthorn), "capture", str(self.bsp_dir / f"{mp}.bsp"), "-o", str(ln_png)]
            + self.lanthorn_common(cam))
        sbs = self.out / f"{mp}-{cam[0]}.png"
        j = json.loads(run([str(self.lanthorn), "compare-image", str(qs_png), str(ln_png),
                            "--side-by-side", str(sbs)]).strip().splitlines()[-1])
        return j

    def timing(self, mp, cam, tmp, runs=None):
        """RUNS alternating runs of both renderers at `cam` (`--runs` by default), their medians;
        the runs' own figures are kept (`qs_runs`, `ln_runs`) so that a recheck can pool more."""
        _, x, y, z, yaw, pitch = cam
        path = tmp / "still.json"
        path.write_text(json.dumps({"speed": 8, "keys": [{"pos": [x, y, z], "yaw": yaw, "pitch": -pitch}]}))
        qs_ms, ln_ms, ln_world, ln_cpu, wpoly, surfaces, sky = [], [], [], [], None, None, None
        for _ in range(runs or self.args.runs):
            text = run(self.qs_cmd(mp, cam, tmp / "qs_t.png"), env=qs_env(True, self.args.frames))
            m = re.search(r"= ([\d.]+) ms/frame", text)
            w = re.search(r"wpoly (\d+)", text)
            if m:
                qs_ms.append(float(m.group(1)))
            if w:
                wpoly = int(w.group(1))
            j = self.bench(mp, cam, path, ["--disable", "timestamp-query"])
            ln_ms.append(j["frame_ms_median"])
            ln_cpu.append(cpu_outside_submit(j))
            surfaces = j.get("surfaces_median")
            sky = j.get("sky_surfaces_median")
        # The GPU's time per pass needs the timestamp queries: one run of its own.
        ln_world.append(self.bench(mp, cam, path, []).get("gpu_world_ms_median", float("nan")))
        return dict(qs_ms=med(qs_ms), ln_ms=med(ln_ms), ln_world_ms=med(ln_world),
                    ln_cpu_ms=med(ln_cpu), wpoly=wpoly, surfaces=surfaces, sky_surfaces=sky,
                    runs=len(ln_ms), qs_runs=qs_ms, ln_runs=ln_ms)

    def recheck(self, r):
        """`--recheck` more alternating runs at a camera over RECHECK_ABOVE, pooled with its
        first: near the line at 0.5 a figure of three runs is the host's noise as much as the
        renderers' (one camera's pairs ran 0.40-0.59 in one sitting)."""
        cam = (r["camera"], *r["eye"], r["yaw"], r["quake_pitch"])
        with tempfile.TemporaryDirectory() as t:
            more = self.timing(r["map"], cam, Path(t), runs=self.args.recheck)
        r["qs_runs"] += more["qs_runs"]
        r["ln_runs"] += more["ln_runs"]
        r.update(qs_ms=med(r["qs_runs"]), ln_ms=med(r["ln_runs"]), runs=len(r["ln_runs"]))

    def bench(self, mp, cam, path, extra):
        """`lanthorn bench` at `cam` (the one-key path at `path`), its JSON report."""
        b = run([str(self.lanthorn), "bench", str(self.bsp_dir / f"{mp}.bsp"), "--path", str(path),
                 "--allow-solid", "--frames", str(self.args.frames), "--warmup", "5", "--json",
                 "--no-overdraw"]
                + self.lanthorn_common(cam)[1:] + extra)
        return json.loads(b.strip().splitlines()[-1])

    def camera(self, mp, cam, timed):
        with tempfile.TemporaryDirectory() as t:
            tmp = Path(t)
            r = dict(map=mp, camera=cam[0], eye=list(cam[1:4]), yaw=cam[4], quake_pitch=cam[5])
            r.update(self.images(mp, cam, tmp))
            if timed:
                r.update(self.timing(mp, cam, tmp))
        r["pass"] = (r["mae_linear"] <= MAE_MAX and r["ssim"] >= SSIM_MIN
                     and r["black_b"] - r["black_a"] <= BLACK_EXTRA_MAX)
        return r

    def main(self):
        results = []
        for mp in self.args.maps:
            cams = cameras(self.bsp_dir / f"{mp}.bsp")
            if self.args.cameras > 0:
                cams = cams[:self.args.cameras]
            for i, cam in enumerate(cams):
                timed = self.args.timed < 0 or i < self.args.timed
                if self.args.only_timed and not timed:
                    continue
                if self.args.only and f"{mp}:{cam[0]}" not in self.args.only:
                    continue
                r = self.camera(mp, cam, timed)
                results.append(r)
                print(row(r), flush=True)
                (self.out / "results.json").write_text(json.dumps(results, indent=1))
        for r in results:
            if self.args.recheck > 0 and r.get("qs_ms") and r["ln_ms"] / r["qs_ms"] > RECHECK_ABOVE:
                self.recheck(r)
                print("rechecked:", row(r), flush=True)
                (self.out / "results.json").write_text(json.dumps(results, indent=1))
        table = "\n".join([HEADER, RULE] + [row(r) for r in results])
        failed = [r for r in results if not r["pass"]]
        timed = [r for r in results if r.get("qs_ms", 0) == r.get("qs_ms", 0) and r.get("qs_ms")]
        ratios = sorted(r["ln_ms"] / r["qs_ms"] for r in timed)
        summary = (f"\n{len(results)} cameras, {len(failed)} outside the thresholds (MAE <= {MAE_MAX}, "
                   f"SSIM >= {SSIM_MIN}, black share <= quakespasm's + {BLACK_EXTRA_MAX})")
        if ratios:
            # The worst camera by name, and the 95th percentile (nearest rank): what a flight feels.
            slow = max(timed, key=lambda r: r["ln_ms"] / r["qs_ms"])
            p95 = ratios[min(len(ratios) - 1, max(0, -(-95 * len(ratios) // 100) - 1))]
            summary += (f"; Lanthorn / quakespasm frame ms over {len(ratios)} timed cameras: median "
                        f"{statistics.median(ratios):.2f}, p95 {p95:.2f}, worst {ratios[-1]:.2f} "
                        f"({slow['map']} {slow['camera']}), {sum(r <= 0.5 for r in ratios)} at or "
                        f"under 0.5")
            busy = max(timed, key=lambda r: r.get("ln_cpu_ms", 0))
            summary += (f"; CPU outside the submit: median "
                        f"{statistics.median(r.get('ln_cpu_ms', 0) for r in timed):.3f} ms, most "
                        f"{busy.get('ln_cpu_ms', 0):.3f} ({busy['map']} {busy['camera']})")
            summary += surfaces_summary(timed)
            summary += spread_summary(timed)
            rechecked = [r for r in timed if r["runs"] > self.args.runs]
            if rechecked:
                summary += (f"; {len(rechecked)} cameras over {RECHECK_ABOVE} timed "
                            f"{self.args.recheck} more times (medians of all their runs)")
        summary += f"; host: {host()}"
        (self.out / "table.md").write_text(table + "\n" + summary + "\n")
        print(summary)
        worst = sorted(results, key=lambda r: r["ssim"])[:5]
        print("lowest SSIM:", ", ".join(f"{r['map']}-{r['camera']} ({r['ssim']:.3f})" for r in worst))
        return 1 if failed else 0


HEADER = ("| map | camera | MAE linear | SSIM | black QS / Lanthorn | QS ms | Lanthorn ms (world GPU, timed run) "
          "| ratio | QS wpoly / Lanthorn surfaces (of which sky) | pass |")
RULE = "|---|---|---|---|---|---|---|---|---|---|"


def host():
    """The CPU the figures were taken on: the ratios move with it (an AMD EPYC of family 25 gave
    e1m4 inter1 0.67-0.72 where the hosts before gave 0.50; docs/performance.md)."""
    info = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        return "unknown"
    return (f"{info.get('model name', '?')} (family {info.get('cpu family', '?')}, model "
            f"{info.get('model', '?')}), {os.cpu_count()} CPUs")


def med(v):
    return statistics.median(v) if v else float("nan")


def spread_summary(timed):
    """How far a camera's alternating runs disagree: each run's own ratio (its quakespasm and
    Lanthorn figures taken back to back), the largest over the smallest. On a shared host a
    camera near 0.5 lands on either side by the minute (docs/performance.md)."""
    spreads = []
    for r in timed:
        own = [ln / qs for qs, ln in zip(r.get("qs_runs", []), r.get("ln_runs", [])) if qs > 0]
        if len(own) > 1:
            spreads.append((max(own) / min(own), r))
    if not spreads:
        return ""
    most, wide = max(spreads, key=lambda s: s[0])
    return (f"; each camera's runs' own ratios spread by x{statistics.median(s for s, _ in spreads):.2f} "
            f"(median), most x{most:.2f} ({wide['map']} {wide['camera']})")


def sky_note(r):
    """The sky's share of Lanthorn's surfaces, where the bench reported it."""
    sky = r.get("sky_surfaces")
    return f" ({sky:.0f})" if sky is not None else ""


def surfaces_summary(timed):
    """Lanthorn's surfaces without the sky against quakespasm's wpoly (which leaves the sky out),
    over the cameras that have both."""
    rows = [r for r in timed if r.get("wpoly") is not None and r.get("sky_surfaces") is not None]
    if not rows:
        return ""
    ours = sum(r["surfaces"] - r["sky_surfaces"] for r in rows)
    more = [r for r in rows if r["surfaces"] - r["sky_surfaces"] > r["wpoly"]]
    return (f"; world surfaces without the sky {ours:.0f} against quakespasm's wpoly "
            f"{sum(r['wpoly'] for r in rows)} over {len(rows)} cameras, more than wpoly at "
            f"{len(more)}" + "".join(f" {r['map']} {r['camera']}" for r in more[:5]))


def row(r):
    t = ""
    if "qs_ms" in r:
        t = (f"{r['qs_ms']:.1f} | {r['ln_ms']:.1f} ({r['ln_world_ms']:.1f}) | {r['ln_ms'] / r['qs_ms']:.2f} "
             f"| {r['wpoly']} / {r['surfaces']:.0f}{sky_note(r)}")
    else:
        t = " |  |  | "
    return (f"| {r['map']} | {r['camera']} | {r['mae_linear']:.4f} | {r['ssim']:.3f} "
            f"| {r['black_a']:.3f} / {r['black_b']:.3f} | {t} | {'yes' if r['pass'] else 'NO'} |")


def parse():
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "lanthorn-vs-quakespasm"))
    p.add_argument("--maps", nargs="+", default=MAPS)
    p.add_argument("--runs", type=int, default=5, help="alternating timing runs per timed camera (>= 5)")
    p.add_argument("--timed", type=int, default=2, help="cameras timed per map (-1: all, 0: none)")
    p.add_argument("--frames", type=int, default=20, help="frames per timing run")
    p.add_argument("--recheck", type=int, default=0, metavar="RUNS",
                   help=f"time the cameras over {RECHECK_ABOVE} RUNS more times, pooled with their first runs")
    p.add_argument("--only-timed", action="store_true", help="skip the cameras that are not timed")
    p.add_argument("--qs-root", default=os.environ.get("QS_ROOT", os.path.join(tempfile.gettempdir(), "qs-ref")))
    p.add_argument("--lanthorn", default=os.environ.get("LANTHORN", os.path.join(target, "release/lanthorn")))
    p.add_argument("--bsp-dir", help="where the maps are (default: the id maps in ../shared/realdata); "
                   "quakespasm reads the same files from QS_ROOT/id1/maps, .lit files beside them")
    p.add_argument("--cameras", type=int, default=0, help="the first N cameras of each map (0: all)")
    p.add_argument("--only", nargs="+", metavar="MAP:CAMERA",
                   help="only these cameras, e.g. e2m4:dm4 dm3:inter2 (the maps still come from --maps)")
    return p.parse_args()


if __name__ == "__main__":
    sys.exit(Compare(parse()).main())
