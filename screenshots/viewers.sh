#!/usr/bin/env bash
# Regenerates screenshots/viewer-*.png: every artifact viewer's frame, drawn in
# color by the same fixtures as the golden tests (ui/viewer TestScreenshotFrames)
# and rendered with charmbracelet/freeze.
# Needs freeze (go install github.com/charmbracelet/freeze@v0.2.2) and the
# shared corpus (MODBAY_CORPUS, else where internal/testcorpus looks):
# three of the frames show real corpus files, so a missing corpus fails here.
# Usage: screenshots/viewers.sh   (from anywhere; writes next to this script)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
freeze="${FREEZE:-$(command -v freeze || echo "$HOME/go/bin/freeze")}"
frames="$(mktemp -d)"
(cd "$root" && MODBAY_SHOTS="$frames" MODBAY_REQUIRE_CORPUS=1 go test ./ui/viewer -run '^TestScreenshotFrames$' -count=1 >/dev/null)
for f in "$frames"/viewer-*.ansi; do
  name="$(basename "$f" .ansi)"
  # freeze treats the "default" fg/bg resets as black, so they are made
  # explicit first (as screenshots/make.sh does).
  sed 's/\x1b\[49m/\x1b[48;2;23;23;23m/g; s/\x1b\[39m/\x1b[38;2;221;221;221m/g; s/\x1b\[0\?m/\x1b[0m\x1b[48;2;23;23;23m\x1b[38;2;221;221;221m/g; s/^/\x1b[38;2;221;221;221m/' "$f" > "$f.fixed"
  "$freeze" --language ansi -o "$here/$name.png" "$f.fixed" >/dev/null
  echo "wrote screenshots/$name.png"
done
rm -rf "$frames"
