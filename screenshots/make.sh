#!/usr/bin/env bash
# Regenerates screenshots/*.png by driving the real cockpit in tmux on the
# built-in examples and rendering each captured frame with charmbracelet/freeze.
# Needs tmux and freeze (go install github.com/charmbracelet/freeze@v0.2.2).
# Usage: screenshots/make.sh   (from anywhere; writes next to this script)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
freeze="${FREEZE:-$(command -v freeze || echo "$HOME/go/bin/freeze")}"
bin="$(mktemp -d)/modbay"
home="$(mktemp -d)"
(cd "$root" && go build -o "$bin" .)
session="modbay-shots-$$"
cols=100 rows=30

start() { tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "$cols" -y "$rows" "MODBAY_HOME='$home' '$bin'"; sleep 2; }
keys() { for k in "$@"; do tmux send-keys -t "$session" "$k"; sleep 0.4; done; }
# shot NAME: capture the pane with colors and render it. freeze treats the
# "default" fg/bg resets as black, so they are made explicit first.
shot() {
  tmux capture-pane -e -p -t "$session" |
    sed 's/\x1b\[49m/\x1b[48;2;23;23;23m/g; s/\x1b\[39m/\x1b[38;2;221;221;221m/g; s/\x1b\[0m/\x1b[0m\x1b[48;2;23;23;23m\x1b[38;2;221;221;221m/g; s/^/\x1b[38;2;221;221;221m/' \
    > "$here/$1.ansi"
  "$freeze" --language ansi -o "$here/$1.png" "$here/$1.ansi" >/dev/null
  rm "$here/$1.ansi"
  echo "wrote screenshots/$1.png"
}

start
shot list
keys j Enter; shot capabilities
keys Enter; shot form
keys C-s; sleep 1.5; shot result
keys Enter; sleep 1; shot artifact-markdown
keys Escape; sleep 0.3; keys j Enter; sleep 1; shot artifact-table
keys Escape; sleep 0.3; keys j Enter; sleep 1; shot artifact-json

start
keys Enter Enter
tmux send-keys -t "$session" "https://example.com/"; sleep 0.3
keys C-s; sleep 0.3; shot approval

start
keys j j j; shot needs-setup

start
keys :
tmux send-keys -t "$session" "rep"; sleep 0.4; shot jump

start
keys j Enter Enter C-s; sleep 1.5; keys Escape Escape Escape A; sleep 0.5; shot activity
tmux kill-session -t "$session"
