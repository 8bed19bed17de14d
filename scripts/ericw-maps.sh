#!/bin/bash
# Compiles id Quake map sources with ericw-tools (../shared/tools/ericw) into community-style
# maps: BSP2 (or another qbsp format flag), full vis, and coloured light written as a .lit
# beside each BSP. Every light entity gets a colour from a fixed cycle (warm, cool, green,
# white) so the .lit carries real colour. On demand, not in CI; needs apt's libtbb12.
#   scripts/ericw-maps.sh OUT_DIR [--format -bsp2|-2psb|-bsp29] [--prefix b2] MAP...
# writes OUT_DIR/PREFIXMAP.bsp and .lit for each MAP (e1m1, dm3, …), and prints their sizes.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tools="$here/../shared/tools/ericw/bin"
real="$here/../shared/realdata/quake"
out="$1"; shift
format="-bsp2"; prefix="b2"
while [ $# -gt 0 ]; do
  case "$1" in
    --format) format="$2"; shift 2;;
    --prefix) prefix="$2"; shift 2;;
    *) break;;
  esac
done
[ "$format" = "-bsp29" ] && format=""
mkdir -p "$out/gfx"
cp "$real"/wads/*.wad "$out/gfx/"
cp "$real/palette.lmp" "$out/"
for map in "$@"; do
  name="$prefix$map"
  python3 - "$real/maps/$map.map" "$out/$name.map" <<'PY'
import sys
text = open(sys.argv[1]).read()
colours = ["255 180 110", "140 170 255", "150 255 140", "255 255 255"]
parts, k = text.split('"classname"\t"light'), 0
out = parts[0]
for p in parts[1:]:
    out += f'"_color" "{colours[k % len(colours)]}"\n"classname"\t"light' + p
    k += 1
open(sys.argv[2], "w").write(out)
PY
  t0=$(date +%s.%N)
  "$tools/qbsp" -noprogress $format "$out/$name.map" "$out/$name.bsp" > /dev/null
  t1=$(date +%s.%N)
  "$tools/vis" -noprogress "$out/$name.bsp" > /dev/null
  t2=$(date +%s.%N)
  "$tools/light" -noprogress -lit "$out/$name.bsp" > /dev/null
  t3=$(date +%s.%N)
  printf '%s: %s %d bytes, .lit %d bytes; qbsp %.1f s, vis %.1f s, light %.1f s\n' "$name" \
    "$(head -c 4 "$out/$name.bsp" | tr -dc 'A-Z0-9' || true)" "$(stat -c %s "$out/$name.bsp")" \
    "$(stat -c %s "$out/$name.lit")" "$(echo "$t1-$t0" | bc)" "$(echo "$t2-$t1" | bc)" "$(echo "$t3-$t2" | bc)"
done
