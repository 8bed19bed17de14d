#!/usr/bin/env bash
# The portal method against the truth on OpenArena's maps (Quake 3's IBSP 46) from the Debian
# packages development uses (openarena-data, openarena-081-*, openarena-085-data): random,
# near-portal and walk views on every map, one JSON line per map and sampler into OUT, then
# the totals. The maps that later packages add (openarena-088-data, openarena-oacmp1) are
# left out: a folder of links to the development archives alone is the game folder, so a map
# a later archive replaces is read as the development packages have it.
# Usage: scripts/vis-check-openarena.sh [OUT.jsonl [COUNT [SEED]]]   (COUNT views per sampler,
# default 100; MAPS="a b" checks those maps alone)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/vis-check-openarena.jsonl}"
count=${2:-100}
seed=${3:-5}
bin=${BIN:-./target/release/lanthorn}
oa=${OPENARENA:-/usr/share/games/openarena/baseoa}
dev="openarena-data openarena-081-maps openarena-081-misc openarena-081-players openarena-081-players-mature openarena-081-textures openarena-085-data"
game=$(mktemp -d)
trap 'rm -rf "$game"' EXIT
mkdir -p "$game/baseoa"
for pkg in $dev; do
  for f in $(dpkg -L "$pkg" 2>/dev/null | grep '\.pk3$'); do ln -sf "$f" "$game/baseoa/"; done
done
maps=${MAPS:-$(python3 - "$game/baseoa" <<'PY'
import sys, zipfile, pathlib
names = set()
for p in pathlib.Path(sys.argv[1]).glob("*.pk3"):
    for n in zipfile.ZipFile(p).namelist():
        if n.startswith("maps/") and n.endswith(".bsp"):
            names.add(n[5:-4])
print(" ".join(sorted(names)))
PY
)}
: > "$out"
for m in $maps; do
  line="$m:"
  for kind in random near-portals walk; do
    json=$("$bin" vis-check "$m" --basedir "$game" --game baseoa --views "$kind" --count "$count" \
      --seed "$seed" --size 480x270 --no-overdraw --json 2>/dev/null | grep '^{' | tail -1)
    echo "{\"level\":\"$m\",\"views_kind\":\"$kind\",\"report\":${json:-null}}" >> "$out"
    line="$line $kind $(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("FAILED" if r is None else "%d/%d" % (r["missed_surfaces"]["portal"], r["differing_pixels"]["portal"]))' "${json:-null}")"
  done
  echo "$line"
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if r["report"]]
views = sum(r["report"]["views"] for r in ok)
missed = sum(r["report"]["missed_surfaces"]["portal"] for r in ok)
pixels = sum(r["report"]["differing_pixels"]["portal"] for r in ok)
holes = sum(r["report"]["through_holes"]["portal"][1] for r in ok)
ratio = [r["report"]["submitted_over_visible"] for r in ok if r["views_kind"] == "random"]
mean = lambda k: sum(x[k] for x in ratio if k in x) / max(sum(k in x for x in ratio), 1)
print(f"{len(ok)} of {len(rows)} runs; {views} views; portal missed {missed} surfaces, {pixels} pixels "
      f"({pixels * 300 / max(views, 1):.2f} per 300 views); through holes (not counted) {holes} pixels; "
      f"random views' submitted/visible mean: portal {mean('portal'):.2f}, pvs {mean('pvs'):.2f}")
PY
