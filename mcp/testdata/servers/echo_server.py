"""A stdlib-only MCP server over stdio for the tests: one tool, echo."""
import json
import sys


def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        reply(msg_id, {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                       "serverInfo": {"name": "pyecho", "version": sys.version.split()[0]}})
    elif method == "tools/list":
        reply(msg_id, {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                                  "annotations": {"readOnlyHint": True, "openWorldHint": False}}]})
    elif method == "tools/call":
        reply(msg_id, {"content": [{"type": "text", "text": sys.executable + " " + msg["params"]["arguments"].get("text", "")}]})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "no " + method}}) + "\n")
        sys.stdout.flush()
