#!/bin/bash
# Lanthorn against quakespasm on the 15 id maps, at the maps' own spawn and intermission
# cameras: side-by-side PNGs, image differences, black shares, frame times, surface counts.
# On demand, not in CI. Needs a release build (cargo build --release), quakespasm built once
# (bash ../shared/tools/quakespasm/build.sh) and ../shared/realdata. Options: see
#   scripts/compare-quakespasm.sh --help
# Exit code 1 when a camera misses the image thresholds fixed in compare_quakespasm.py.
set -euo pipefail
exec python3 "$(dirname "$0")/compare_quakespasm.py" "$@"
