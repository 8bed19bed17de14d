#!/usr/bin/env bash
# Generated levels through both compilers and the culling check: for each seed, `lanthorn
# generate` writes the map, `lanthorn compile` compiles it (.lvl) and ericw-tools' qbsp, vis
# (-fast) and light compile it (BSP29); `lanthorn vis-check` then checks both from random,
# near-portal and walk views. Prints one line per level and per compiled file, then the totals:
# levels, views, the portal method's missed surfaces and differing pixels, and the seeds whose
# levels failed to generate, compile, leaked or failed the check's run.
#
# Usage: scripts/generated-levels.sh COUNT [START_SEED]      (seeds START_SEED.., default 1)
# Environment: BIN (default target/release/lanthorn), SHARED (../shared: realdata/quake/wads,
# realdata/quake/palette.lmp, tools/ericw/bin), VIEWS (views per check, default 100), ROOMS
# (default 16), WORK (a folder to keep everything in; default a temporary one, removed).
# Exit code 1 when a level failed anywhere or the portal method missed a surface.
set -uo pipefail
count=${1:?usage: scripts/generated-levels.sh COUNT [START_SEED]}
start=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$root/target/release/lanthorn}
shared=${SHARED:-$root/../shared}
quake=$shared/realdata/quake
ericw=$shared/tools/ericw/bin
views=${VIEWS:-100}
rooms=${ROOMS:-16}
for need in "$bin" "$quake/wads/base.wad" "$quake/wads/start.wad" "$quake/palette.lmp" \
  "$ericw/qbsp" "$ericw/vis" "$ericw/light"; do
  [ -e "$need" ] || { echo "missing: $need (build with cargo build --release; set BIN or SHARED)" >&2; exit 2; }
done
if [ -n "${WORK:-}" ]; then
  work=$WORK; mkdir -p "$work"
else
  work=$(mktemp -d -t lanthorn-generated.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
# ericw reads the wads where the map's "wad" key says (gfx/ beside the map); Lanthorn's
# compiler beside the map, with palette.lmp.
mkdir -p "$work/gfx"
for w in base.wad start.wad; do
  ln -sf "$quake/wads/$w" "$work/gfx/$w"
  ln -sf "$quake/wads/$w" "$work/$w"
done
ln -sf "$quake/palette.lmp" "$work/palette.lmp"
results=$work/results.jsonl
: > "$results"
failed=()
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
note() { # SEED KEY VALUE(json)
  echo "{\"seed\":$1,\"$2\":$3}" >> "$results"
}
check() { # SEED FILE TAG
  local kind json
  for kind in random near-portals walk; do
    json=$("$bin" vis-check "$2" --views "$kind" --count "$views" --no-overdraw --size 480x270 \
      --json 2>"$work/vc.err" | grep '^{' | tail -1)
    if [ -z "$json" ]; then
      failed+=("seed $1: vis-check $3 $kind: $(tail -1 "$work/vc.err")")
      json=null
    fi
    echo "{\"seed\":$1,\"file\":\"$3\",\"views_kind\":\"$kind\",\"report\":$json}" >> "$results"
  done
}
t_all=$(now)
for ((seed = start; seed < start + count; seed++)); do
  map=$work/gen-$seed.map
  t0=$(now)
  if ! "$bin" generate --seed "$seed" --rooms "$rooms" -o "$map" 2>/dev/null; then
    failed+=("seed $seed: generate failed"); continue
  fi
  t1=$(now)
  lanthorn_ok=1
  if ! "$bin" compile "$map" -o "$work/gen-$seed.lvl" --json > "$work/gen-$seed.compile.log" 2>&1; then
    failed+=("seed $seed: lanthorn compile: $(grep -m1 -i 'error' "$work/gen-$seed.compile.log")")
    lanthorn_ok=0
  fi
  t2=$(now)
  ericw_ok=1
  (cd "$work" && "$ericw/qbsp" -noprogress "gen-$seed.map" && "$ericw/vis" -fast -noprogress "gen-$seed.bsp" \
    && "$ericw/light" -noprogress "gen-$seed.bsp") > "$work/gen-$seed.ericw.log" 2>&1 || ericw_ok=0
  if grep -q LEAK "$work/gen-$seed.ericw.log" || [ -e "$work/gen-$seed.pts" ]; then ericw_ok=0; fi
  [ "$ericw_ok" = 1 ] || failed+=("seed $seed: ericw: $(grep -m1 -iE 'leak|error' "$work/gen-$seed.ericw.log")")
  t3=$(now)
  warnings=$(grep -i 'warning' "$work/gen-$seed.ericw.log" | sed 's/^.*WARNING: *//' | sort | uniq -c | tr -s ' ' | paste -sd ';' -)
  note "$seed" times "{\"generate\":$(dt "$t0" "$t1"),\"lanthorn\":$(dt "$t1" "$t2"),\"ericw\":$(dt "$t2" "$t3")}"
  [ -n "$warnings" ] && note "$seed" ericw_warnings "\"${warnings//\"/}\""
  [ "$lanthorn_ok" = 1 ] && check "$seed" "$work/gen-$seed.lvl" lvl
  [ "$ericw_ok" = 1 ] && check "$seed" "$work/gen-$seed.bsp" bsp
  python3 - "$results" "$seed" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seed = int(sys.argv[2])
mine = [r for r in rows if r["seed"] == seed]
t = next((r["times"] for r in mine if "times" in r), {})
print(f"seed {seed}: generate {t.get('generate', 0):.2f} s, lanthorn compile {t.get('lanthorn', 0):.2f} s, "
      f"ericw qbsp+vis+light {t.get('ericw', 0):.2f} s")
for f in ("lvl", "bsp"):
    rs = [r for r in mine if r.get("file") == f and r["report"]]
    if rs:
        v = sum(r["report"]["views"] for r in rs)
        m = sum(r["report"]["missed_surfaces"]["portal"] for r in rs)
        p = sum(r["report"]["differing_pixels"]["portal"] for r in rs)
        kinds = ", ".join(f"{r['views_kind']} {r['report']['missed_surfaces']['portal']}/{r['report']['differing_pixels']['portal']}" for r in rs)
        print(f"  .{f}: {v} views, portal missed surfaces {m}, differing pixels {p}  ({kinds})")
PY
done
t_end=$(now)
printf '%s\n' "${failed[@]}" > "$work/failed.txt"
python3 - "$results" "$work/failed.txt" "$(dt "$t_all" "$t_end")" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
failed = [l.strip() for l in open(sys.argv[2]) if l.strip()]
levels = sorted({r["seed"] for r in rows if "times" in r})
print(f"\ntotal: {len(levels)} levels in {float(sys.argv[3]):.1f} s")
for f in ("lvl", "bsp"):
    rs = [r for r in rows if r.get("file") == f and r["report"]]
    v = sum(r["report"]["views"] for r in rs)
    m = sum(r["report"]["missed_surfaces"]["portal"] for r in rs)
    p = sum(r["report"]["differing_pixels"]["portal"] for r in rs)
    print(f"  .{f} ({'Lanthorn' if f == 'lvl' else 'ericw'}): {v} views, portal missed surfaces {m}, differing pixels {p}")
warn = {}
for r in rows:
    for w in r.get("ericw_warnings", "").split(";"):
        w = w.strip()
        if w:
            n, _, text = w.partition(" ")
            warn[text] = warn.get(text, 0) + int(n)
for text, n in sorted(warn.items()):
    print(f"  ericw warning x{n}: {text}")
print(f"  failed: {len(failed)}")
for l in failed:
    print(f"    {l}")
missed = sum(r["report"]["missed_surfaces"]["portal"] for r in rows if r.get("report"))
sys.exit(1 if failed or missed else 0)
PY
