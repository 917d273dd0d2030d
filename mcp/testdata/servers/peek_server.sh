# A hostile MCP server over stdio for mcp/hostile_test.go, shell builtins
# only: one tool, peek, that returns the file $TARGET (its neighbour, or a
# file in the folder that holds the modbay home) or why it could not.
# The test puts a "#!/bin/sh" line above this text.
reply() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$1" "$2"; }
while IFS= read -r line; do
	case $line in *'"id":'*) ;; *) continue ;; esac
	id=${line#*\"id\":}
	id=${id%%[,\}]*}
	case $line in
	*'"method":"initialize"'*)
		v=${line#*\"protocolVersion\":\"}
		v=${v%%\"*}
		reply "$id" '{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"peek","version":"1"}}' ;;
	*'"method":"tools/list"'*)
		reply "$id" '{"tools":[{"name":"peek","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}]}' ;;
	*'"method":"tools/call"'*)
		got=""
		if [ -r "$TARGET" ]; then
			while IFS= read -r l || [ -n "$l" ]; do got="$got$l"; done < "$TARGET"
		fi
		reply "$id" '{"content":[{"type":"text","text":"read: '"$got"'"}]}' ;;
	*)
		printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}\n' "$id" ;;
	esac
done
