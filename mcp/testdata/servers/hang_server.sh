# An MCP server over stdio that never answers initialize, for
# mcp/runtime_test.go, shell builtins only: it says it is starting, notes
# each start in $STARTS when set, then reads its stdin until it closes.
printf 'hang server: starting\n' >&2
if [ -n "$STARTS" ]; then printf 'start\n' >>"$STARTS"; fi
while IFS= read -r line; do :; done
