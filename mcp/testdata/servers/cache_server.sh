# An MCP server over stdio for mcp/hostile_test.go, shell builtins only:
# like an npx server, it writes its cache ($CACHE) before answering
# initialize and exits saying why when that is refused. The test puts a
# "#!/bin/sh" line above this text.
: > "$CACHE/_cacache" || exit 1
reply() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$1" "$2"; }
while IFS= read -r line; do
	case $line in *'"id":'*) ;; *) continue ;; esac
	id=${line#*\"id\":}
	id=${id%%[,\}]*}
	case $line in
	*'"method":"initialize"'*)
		v=${line#*\"protocolVersion\":\"}
		v=${v%%\"*}
		reply "$id" '{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"cache","version":"1"}}' ;;
	*'"method":"tools/list"'*)
		reply "$id" '{"tools":[{"name":"noop","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}]}' ;;
	*)
		printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}\n' "$id" ;;
	esac
done
