#!/usr/bin/env bash
# Build times of one revision, in a fresh worktree and target folder: a clean release build,
# the build after an edit of a literal in a render file and in a vis file (each reverted),
# and the test targets' build from the release build, clean and after the vis edit.
#
# Usage: scripts/build-times.sh REV LABEL RENDER_FILE VIS_FILE
#   e.g. scripts/build-times.sh HEAD after crates/render/src/world/mod.rs crates/vis/src/portal_flow.rs
# Writes the worktree to /tmp/wt-LABEL and the target to /tmp/tgt-LABEL (removed first).
set -uo pipefail
rev=${1:?usage: scripts/build-times.sh REV LABEL RENDER_FILE VIS_FILE}
label=${2:?}; rfile=${3:?}; vfile=${4:?}
root=$(cd "$(dirname "$0")/.." && pwd)
wt=/tmp/wt-$label; tgt=/tmp/tgt-$label
rm -rf "$wt" "$tgt"
git -C "$root" worktree add -f "$wt" "$rev" >/dev/null 2>&1 || { echo "cannot check out $rev" >&2; exit 2; }
cd "$wt" || exit 2
export CARGO_TARGET_DIR=$tgt
timed() {
  local s e
  s=$(date +%s.%N); "$@" >"/tmp/build-times-$label.log" 2>&1; local rc=$?; e=$(date +%s.%N)
  printf "%.1f s (exit %d)" "$(echo "$e - $s" | bc)" "$rc"
}
# Replaces the first OLD in FILE by NEW.
edit() { python3 -c "import sys; p,a,b=sys.argv[1:]; s=open(p).read(); i=s.index(a); open(p,'w').write(s[:i]+b+s[i+len(a):])" "$@"; }
with_edit() {
  local file=$1 old=$2 new=$3; shift 3
  cp "$file" "$file.orig"; edit "$file" "$old" "$new"
  timed "$@"; mv "$file.orig" "$file"
}
echo "$label: clean cargo build --release: $(timed cargo build --release)"
echo "$label: after a render edit: $(with_edit "$rfile" 'self.viewport.1 as f32 * 0.5' 'self.viewport.1 as f32 * 0.51' cargo build --release)"
echo "$label: after a vis edit: $(with_edit "$vfile" 'OCTAGON_MARGIN: f32 = 1e-' 'OCTAGON_MARGIN: f32 = 1.1e-' cargo build --release)"
timed cargo build --release >/dev/null
echo "$label: test targets (--no-run): $(timed cargo test --release --features test-hooks --no-run)"
echo "$label: test targets after a vis edit: $(with_edit "$vfile" 'OCTAGON_MARGIN: f32 = 1e-' 'OCTAGON_MARGIN: f32 = 1.1e-' cargo test --release --features test-hooks --no-run)"
