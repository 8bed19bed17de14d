#!/usr/bin/env bash
# vis-check on the committed near-portal and walk views (tests/views/*-portals.json) of every
# id map (imported .bsp and compiled .map) and the keep; one JSON line per level into OUT.
# Usage: scripts/vis-check-portals.sh [OUT.jsonl]   (about an hour on 2 cores)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/vis-check-portals.jsonl}"
bin=${BIN:-./target/release/lanthorn}
q=../shared/realdata/quake
: > "$out"
run() { # NAME LEVEL VIEWS [ARGS...]
  local name=$1 level=$2 views=$3; shift 3
  local json
  json=$("$bin" vis-check "$level" --views-file "$views" --no-overdraw --json "$@" 2>/dev/null | tail -1)
  echo "{\"level\":\"$name\",\"report\":${json:-null}}" >> "$out"
  echo "$name: $json" | cut -c1-240
}
for v in tests/views/*.map-portals.json; do
  m=$(basename "$v" .map-portals.json)
  run "$m.bsp" "$q/bsp/$m.bsp" "tests/views/$m-portals.json"
  run "$m.map" "$q/maps/$m.map" "$v"
done
for t in 0 6.5 24; do run "keep@$t" keep tests/views/keep-portals.json --time "$t"; done
