#!/usr/bin/env python3
"""Merges Quake .map sources into one larger map: each map's brushes and entities moved along x
by a multiple of 8192 units (a multiple of every texture's size, so the textures stay
aligned), one world, the first map's player start only. Past BSP29's limits with enough maps:
a test of BSP2 at scale. On demand, not in CI.

    scripts/merge-maps.py OUT.map e1m1.map e1m2.map ...
"""
import re
import sys

POINT = re.compile(r"\(\s*(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*\)")
ORIGIN = re.compile(r'"origin"\s+"(-?[\d.]+) (-?[\d.]+) (-?[\d.]+)"')


def blocks(text):
    """Top-level { … } entities, as text."""
    out, depth, start = [], 0, None
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out


def moved(block, dx):
    block = POINT.sub(lambda m: f"( {float(m.group(1)) + dx:g} {m.group(2)} {m.group(3)} )", block)
    return ORIGIN.sub(lambda m: f'"origin" "{float(m.group(1)) + dx:g} {m.group(2)} {m.group(3)}"', block)


def main():
    out, maps = sys.argv[1], sys.argv[2:]
    world, others = None, []
    for k, path in enumerate(maps):
        ents = blocks(open(path).read())
        dx = 8192 * k
        head = moved(ents[0], dx)
        if world is None:
            world = head[:-1]
        else:
            # The worldspawn's brushes: everything from its first brush on.
            world += head[head.index("{", 1):-1]
        for e in ents[1:]:
            if k > 0 and '"info_player_start"' in e:
                continue
            others.append(moved(e, dx))
    open(out, "w").write(world + "}\n" + "\n".join(others) + "\n")


main()
