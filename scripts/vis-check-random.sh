#!/usr/bin/env bash
# vis-check on the committed random views (tests/views/MAP.json: 200 per map, eyes 8 units from
# every cell plane) of the 15 id maps, imported (.bsp, with GLQuake's pvs) and compiled (.map),
# with the overdraw counts; one JSON line per level into OUT. The tables of docs/culling.md.
# Usage: scripts/vis-check-random.sh [OUT.jsonl [VIS-CHECK ARGS...]]   (about an hour on 2
# cores; half an hour with --no-overdraw)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/vis-check-random.jsonl}"
shift || true
bin=${BIN:-./target/release/lanthorn}
q=../shared/realdata/quake
extra=("$@")
: > "$out"
run() { # NAME LEVEL VIEWS
  local json
  json=$("$bin" vis-check "$2" --views-file "$3" --json "${extra[@]}" 2>/dev/null | tail -1)
  echo "{\"level\":\"$1\",\"report\":${json:-null}}" >> "$out"
  echo "$1: $json" | cut -c1-200
}
for v in tests/views/*.json; do
  case $v in *-portals.json) continue ;; esac
  m=$(basename "$v" .json)
  run "$m.bsp" "$q/bsp/$m.bsp" "$v"
  run "$m.map" "$q/maps/$m.map" "$v"
done
