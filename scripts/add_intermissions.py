#!/usr/bin/env python3
"""Adds N `info_intermission` cameras to a Quake .map, at the origins of N of its lights (24
units lower), each looking along a random yaw and a pitch in [-35, 35] (Quake's: positive
looks down): eyes near ceilings and walls, often looking up into the sky. The comparison with
quakespasm (`scripts/compare_quakespasm.py --bsp-dir`) takes its cameras from these entities,
so a generated level gets cameras nobody chose. On demand, not in CI.

  lanthorn generate --seed 301 -o raw.map
  python3 scripts/add_intermissions.py raw.map gen301.map --seed 301 --count 6
  qbsp gen301.map && vis gen301.bsp && light gen301.bsp     (ericw-tools; gfx/*.wad beside it)
  python3 scripts/compare_quakespasm.py --bsp-dir DIR --maps gen301 --timed -1 --runs 3
      (DIR holds the BSPs and palette.lmp; quakespasm's id1/maps a copy of the BSPs)
"""

import argparse
import random
import re
import sys


def light_origins(text):
    out = []
    for entity in re.findall(r'\{[^{}]*?"classname" "light"[^{}]*?\}', text):
        m = re.search(r'"origin" "([-\d.]+) ([-\d.]+) ([-\d.]+)"', entity)
        if m:
            out.append(tuple(float(v) for v in m.groups()))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=6)
    a = p.parse_args()
    text = open(a.input).read()
    rng = random.Random(a.seed)
    origins = light_origins(text)
    rng.shuffle(origins)
    cameras = "".join(
        '{\n"classname" "info_intermission"\n"origin" "%d %d %d"\n"mangle" "%d %d 0"\n}\n'
        % (x, y, z - 24, rng.randint(-35, 35), rng.randint(0, 359))
        for x, y, z in origins[: a.count])
    with open(a.output, "w") as f:
        f.write(text + cameras)
    print(f"{a.output}: {min(a.count, len(origins))} cameras at {len(origins)} lights' origins",
          file=sys.stderr)


if __name__ == "__main__":
    main()
