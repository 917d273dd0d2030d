#!/bin/sh
# Counts the words of the arguments and says where it runs.
echo "words: $#"
echo "cwd-is-scratch: $([ "$PWD" = "$HOME" ] && echo yes || echo no)"
if touch "$SKILL_DIR/written-by-script" 2>/dev/null; then echo "skill-dir: writable"; else echo "skill-dir: read-only"; fi
echo "to stderr" >&2
exit 3
