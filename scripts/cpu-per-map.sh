#!/bin/bash
# The CPU time of a frame outside the submit-and-wait (culling, draw building, recording,
# uploads: every `cpu_*` stage of `lanthorn bench --json` but `submit + wait` and `readback`)
# on each id map and the keep, along each one's default walk at 1280×720: the medians of the
# stages, summed. Without the fragment count bench runs after each frame by default (its
# readback and CPU work between frames are no part of a frame, and leave the caches colder).
# On demand (#47's ≤ 0.3 ms a frame on every map); needs a release build.
#   scripts/cpu-per-map.sh [FRAMES]   (LANTHORN=path/to/build to time another build)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
frames="${1:-120}"
bin="${LANTHORN:-$here/target/release/lanthorn}"
maps=("$here"/../shared/realdata/quake/bsp/*.bsp keep)
printf '%-8s %8s  %s\n' map cpu_ms "stages (ms, medians)"
for m in "${maps[@]}"; do
  name="$(basename "$m" .bsp)"
  json="$(xvfb-run -a "$bin" bench "$m" --frames "$frames" --size 1280x720 --no-overdraw --json 2>/dev/null | tail -1)"
  python3 - "$name" "$json" <<'PY'
import json, sys
name, j = sys.argv[1], json.loads(sys.argv[2])
stages = {k[4:-10]: v for k, v in j.items()
          if k.startswith("cpu_") and k.endswith("_ms_median") and "submit" not in k and "readback" not in k}
top = ", ".join(f"{k} {v:.3f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])[:4])
print(f"{name:<8} {sum(stages.values()):8.3f}  {top}")
PY
done
