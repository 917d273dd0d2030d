"""A stdlib-only MCP server over stdio for the tests: it declares the
logging capability and refuses logging/setLevel debug (any other level is
taken); the tool echo answers its text."""
import json
import sys


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}, "logging": {}}, "serverInfo": {"name": "picky", "version": "1"}}})
    elif method == "logging/setLevel" and msg["params"].get("level") == "debug":
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": "debug is too loud"}})
    elif method == "logging/setLevel":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": "echo"}]}})
    else:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "no " + method}})
