#!/usr/bin/env python3
"""Lanthorn against OpenArena's own engine (Debian's `openarena`, ioquake3 with its OpenGL 1
renderer) on Mesa llvmpipe under Xvfb, at the same cameras, 1280x720.

Cameras come from the engine itself, so that both draw from the same eye: `devmap MAP` puts
the player on a spawn point (the eye 26 units over the player's origin, which rests on the
floor), `kill` and a click respawn it on another, and `timelimit 1` run fast (`timescale`)
ends the match on the map's intermission camera. At each the console's `viewpos` says where
the eye is (whole units; a spawn point's x, y and angle are whole in every map here, and the
eye stands a whole number of units above a whole-unit floor); the intermission's pitch comes
from the map's entity. Each camera: the engine's screenshot (TGA) and, timed, the mean of its
`com_speeds` "all" over FRAMES frames (the whole frame, game and renderer, 2D off, with the
swap to Xvfb) and `r_speeds`' surfaces; Lanthorn's `capture` and `bench` of a still camera
(submit + wait; without GPU timestamp queries, which the engine does not make either and which
cost lavapipe about 0.3 ms a frame: docs/profiling.md).

Both read the maps from the Debian packages development uses (openarena-data,
openarena-081-*, openarena-085-data): a folder of links to their archives (and the 0.8.5 game
code for the engine) is the game folder. The engine draws what Lanthorn does not (item and
weapon models, flares, shader stages Lanthorn replaces by the base texture), so the image
thresholds are looser than quakespasm's: see docs/quake3.md for what they are and why.

Writes OUT/MAP-CAMERA.png (OpenArena left, Lanthorn right), OUT/results.json, OUT/table.md.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)
DEV_PACKAGES = ("openarena-data openarena-081-maps openarena-081-misc openarena-081-players "
                "openarena-081-players-mature openarena-081-textures openarena-085-data").split()
ENGINE = "/usr/lib/ioquake3/ioquake3"
GAME_CODE = Path("/usr/lib/openarena/baseoa/pak6-patch085")

# Pass thresholds, per camera (fixed before the final run; see docs/quake3.md).
MAE_MAX = 0.05
SSIM_MIN = 0.5


def run(cmd, env=None, check=True, timeout=300):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout + p.stderr


def game_folder(root):
    """ROOT/baseoa: links to the development packages' archives and the 0.8.5 game code."""
    base = root / "baseoa"
    base.mkdir(parents=True, exist_ok=True)
    for pkg in DEV_PACKAGES:
        files = run(["dpkg", "-L", pkg], check=False).split()
        for f in files:
            if f.endswith(".pk3"):
                (base / Path(f).name).symlink_to(f)
    for so in GAME_CODE.glob("*.so"):
        (base / so.name).symlink_to(so)
    return root


def entities(map_name, game):
    """The map's entities (first value of each key), through Lanthorn's reader of the pk3s."""
    import zipfile
    import struct
    data = None
    for p in sorted((game / "baseoa").glob("*.pk3")):
        z = zipfile.ZipFile(p)
        if f"maps/{map_name}.bsp" in z.namelist():
            data = z.read(f"maps/{map_name}.bsp")
    ofs, length = struct.unpack_from("<ii", data, 8)
    text = data[ofs:ofs + length].decode("latin-1")
    out = []
    for body in re.findall(r"\{([^{}]*)\}", text):
        e = {}
        for k, v in re.findall(r'"([^"]*)"\s*"([^"]*)"', body):
            e.setdefault(k, v)
        out.append(e)
    return out


def intermission_view(ents):
    """Quake 3's intermission eye and view (yaw, pitch positive down): the first
    info_player_intermission's origin, looking at its target or along its angles. None when
    the map has none (the engine then uses a spawn point)."""
    spot = next((e for e in ents if e.get("classname") == "info_player_intermission"), None)
    if spot is None or "origin" not in spot:
        return None
    a = [float(v) for v in spot["origin"].split()]
    if "target" in spot:
        t = next((e for e in ents if e.get("targetname") == spot["target"]), None)
        if t and "origin" in t:
            b = [float(v) for v in t["origin"].split()]
            d = [b[i] - a[i] for i in range(3)]
            yaw = math.degrees(math.atan2(d[1], d[0])) % 360
            return a, yaw, -math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))
    if "angles" in spot:
        p, y = (float(v) for v in spot["angles"].split()[:2])
        return a, y, p
    return a, float(spot.get("angle", 0)), 0.0


ENGINE_CFG = """\
wait 400
viewpos
{shot1}
kill
wait 200
+attack
wait 5
-attack
wait 400
viewpos
{shot2}
timescale 30
wait 600
timescale 1
wait 200
viewpos
{shot3}
quit
"""


def engine(map_name, game, home, timed, frames):
    """Runs the engine on MAP: three cameras' screenshots (and their frame times when timed)."""
    shot = lambda n: (f"screenshot s{n}" if not timed else
                      f"com_speeds 1\nr_speeds 1\nwait {2 * frames}\ncom_speeds 0\nr_speeds 0\nscreenshot s{n}")
    cfg = home / "baseoa" / "lanthorn.cfg"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(ENGINE_CFG.format(shot1=shot(1), shot2=shot(2), shot3=shot(3)))
    for old in (home / "baseoa" / "screenshots").glob("*.tga"):
        old.unlink()
    args = ["xvfb-run", "-a", "-s", f"-screen 0 {SIZE[0]}x{SIZE[1]}x24", ENGINE,
            "+set", "com_basegame", "baseoa", "+set", "fs_basepath", str(game),
            "+set", "fs_homepath", str(home), "+set", "com_legacyprotocol", "71",
            "+set", "com_protocol", "71", "+set", "cl_renderer", "opengl1",
            "+set", "r_fullscreen", "0", "+set", "r_mode", "-1",
            "+set", "r_customwidth", str(SIZE[0]), "+set", "r_customheight", str(SIZE[1]),
            "+set", "cg_draw2D", "0", "+set", "cg_drawGun", "0", "+set", "com_introplayed", "1",
            "+set", "sv_pure", "0", "+set", "com_maxfps", "125", "+set", "timelimit", "1",
            "+set", "s_initsound", "0", "+set", "in_nograb", "1", "+set", "r_picmip", "0",
            # The timed runs print every frame: none of it on the screen.
            "+set", "con_notifytime", "-1",
            "+set", "r_textureMode", "GL_LINEAR_MIPMAP_LINEAR",
            "+devmap", map_name, "+exec", "lanthorn.cfg"]
    text = run(args, check=False, timeout=600)
    (home / "engine.log").write_text(text)
    return parse_engine_log(text, home, frames)


def parse_engine_log(text, home, frames):
    """Per camera: the eye and yaw `viewpos` printed, the screenshot, and from the frames
    between that and the screenshot the mean frame ms and the median surfaces drawn."""
    cams = []
    pos = re.compile(r"^\((-?\d+) (-?\d+) (-?\d+)\) : (-?\d+)", re.M)
    for n, m in enumerate(list(pos.finditer(text))[:3]):
        end = text.find("Wrote screenshots/", m.end())
        seg = text[m.end():end if end >= 0 else len(text)]
        alls = [int(a) for a in re.findall(r"frame:\d+ all:\s*(\d+)", seg)][1:]  # the first waited on loading
        surfs = [int(a) for a in re.findall(r"\d+/(\d+) shaders/surfs", seg)]
        eye = tuple(float(v) for v in m.groups())
        cams.append(dict(eye=eye[:3], yaw=eye[3], shot=home / "baseoa" / "screenshots" / f"s{n + 1}.tga",
                         ms=statistics.mean(alls) if alls else float("nan"),
                         surfaces=statistics.median(surfs) if surfs else None, frames=len(alls)))
    return cams


def lanthorn_args(cam, pitch):
    x, y, z = cam["eye"]
    # Lanthorn's pitch is positive up.
    return [f"--camera={x:g},{y:g},{z:g},{cam['yaw']:g},{-pitch:g}", "--size", f"{SIZE[0]}x{SIZE[1]}",
            "--filter", "linear", "--styles", "normal"]


class Compare:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.lanthorn = Path(args.lanthorn)
        if not self.lanthorn.exists():
            sys.exit(f"{self.lanthorn} is missing: cargo build --release (or set --lanthorn)")
        if not Path(ENGINE).exists():
            sys.exit(f"{ENGINE} is missing: apt-get install openarena")

    def lanthorn_run(self, mp, game, cam, pitch, tmp, timed):
        png = tmp / "ln.png"
        common = ["--basedir", str(game), "--game", "baseoa"] + lanthorn_args(cam, pitch)
        run([str(self.lanthorn), "capture", mp, "-o", str(png)] + common)
        r = {}
        if timed:
            path = tmp / "still.json"
            x, y, z = cam["eye"]
            path.write_text(json.dumps({"speed": 8, "keys": [{"pos": [x, y, z], "yaw": cam["yaw"], "pitch": -pitch}]}))
            ms = []
            for _ in range(1):
                b = run([str(self.lanthorn), "bench", mp, "--path", str(path), "--allow-solid",
                         "--frames", str(self.args.frames), "--warmup", "5", "--json", "--no-overdraw",
                         "--disable", "timestamp-query"]
                        + common[:4] + common[5:])
                j = json.loads([ln for ln in b.splitlines() if ln.startswith("{")][-1])
                ms.append(j["frame_ms_median"])
                r["ln_surfaces"] = j.get("surfaces_median")
            r["ln_ms"] = statistics.median(ms)
        return png, r

    def map(self, mp, game, home, results):
        """RUNS engine runs (one when untimed): each reaches three cameras (its spawn points
        are the engine's random choice) and gives each a row: the pictures compared and, timed,
        the engine's frame time with Lanthorn's at the same camera right after it."""
        ents = entities(mp, game)
        view = intermission_view(ents)
        for run_i in range(self.args.runs if self.args.timed else 1):
            cams = engine(mp, game, home, timed=self.args.timed, frames=self.args.frames)
            with tempfile.TemporaryDirectory() as t:
                tmp = Path(t)
                for i, cam in enumerate(cams):
                    name = ["spawn", "respawn", "intermission"][i]
                    pitch = 0.0
                    if i == 2 and view:
                        # viewpos prints whole units and degrees cut toward zero: the entity's own.
                        cam["eye"], cam["yaw"], pitch = tuple(view[0]), view[1], view[2]
                    oa_png = tmp / f"oa{i}.png"
                    # ioquake3 writes its TGA rows bottom-up without saying so.
                    run(["convert", str(cam["shot"]), "-flip", str(oa_png)], check=False)
                    if not oa_png.exists():
                        print(f"{mp} {name}: the engine wrote no picture", file=sys.stderr)
                        continue
                    ln_png, lr = self.lanthorn_run(mp, game, cam, pitch, tmp, timed=self.args.timed)
                    sbs = self.out / f"{mp}-{name}-{run_i + 1}.png"
                    out = run([str(self.lanthorn), "compare-image", str(oa_png), str(ln_png),
                               "--side-by-side", str(sbs)])
                    j = json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])
                    r = dict(map=mp, camera=f"{name}{run_i + 1}", eye=cam["eye"], yaw=cam["yaw"],
                             pitch=pitch, **j, **lr)
                    if self.args.timed:
                        r.update(oa_ms=cam["ms"], oa_surfaces=cam["surfaces"])
                    r["pass"] = r["mae_linear"] <= MAE_MAX and r["ssim"] >= SSIM_MIN
                    results.append(r)

    def main(self):
        results = []
        with tempfile.TemporaryDirectory() as g, tempfile.TemporaryDirectory() as h:
            game, home = game_folder(Path(g)), Path(h)
            for mp in self.args.maps:
                before = len(results)
                self.map(mp, game, home, results)
                for r in results[before:]:
                    print(row(r), flush=True)
                (self.out / "results.json").write_text(json.dumps(results, indent=1, default=str))
        table(results, self.out / "table.md")
        failed = [r for r in results if not r["pass"]]
        ratios = sorted(r["ln_ms"] / r["oa_ms"] for r in results if r.get("oa_ms", 0) == r.get("oa_ms", 0) and r.get("oa_ms"))
        print(f"\n{len(results)} cameras, {len(failed)} outside the thresholds (MAE <= {MAE_MAX}, SSIM >= {SSIM_MIN})")
        if ratios:
            p95 = ratios[min(len(ratios) - 1, int(round(0.95 * (len(ratios) - 1))))]
            print(f"Lanthorn / OpenArena frame time: median {statistics.median(ratios):.2f}, p95 {p95:.2f}, worst {ratios[-1]:.2f}")
        return 1 if failed else 0


def row(r):
    t = ""
    if "oa_ms" in r:
        t = f"  OA {r['oa_ms']:.2f} ms ({r.get('oa_surfaces')} surfs)  Lanthorn {r['ln_ms']:.2f} ms ({r.get('ln_surfaces')} surfs)"
    return (f"{r['map']:14} {r['camera']:12} MAE {r['mae_linear']:.4f} SSIM {r['ssim']:.3f} "
            f"{'ok' if r['pass'] else 'FAIL'}{t}")


def table(results, path):
    lines = ["| map | camera | eye | MAE | SSIM | OpenArena ms | Lanthorn ms | ratio | surfaces OA / Lanthorn |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        oa, ln = r.get("oa_ms"), r.get("ln_ms")
        ratio = f"{ln / oa:.2f}" if oa and ln and oa == oa else ""
        lines.append(f"| {r['map']} | {r['camera']} | {' '.join(f'{v:g}' for v in r['eye'])} | "
                     f"{r['mae_linear']:.4f} | {r['ssim']:.3f} | {oa if oa else ''} | {ln if ln else ''} | {ratio} | "
                     f"{r.get('oa_surfaces', '')} / {r.get('ln_surfaces', '')} |")
    path.write_text("\n".join(lines) + "\n")


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--maps", nargs="+", default=["oa_dm1", "oa_dm2", "oa_dm3", "oa_dm4", "oa_dm5",
                                                 "oa_dm6", "oa_dm7", "oa_ctf2", "aggressor", "kaos2"])
    p.add_argument("--out", default=str(ROOT / "target/compare-openarena"))
    p.add_argument("--lanthorn", default=os.environ.get("LANTHORN", str(ROOT / "target/release/lanthorn")))
    p.add_argument("--timed", action="store_true", help="time every camera too")
    p.add_argument("--runs", type=int, default=3, help="timed engine runs per map (each reaches its own spawn points)")
    p.add_argument("--frames", type=int, default=100, help="frames a timed camera is held")
    return p.parse_args()


if __name__ == "__main__":
    sys.exit(Compare(parse()).main())
