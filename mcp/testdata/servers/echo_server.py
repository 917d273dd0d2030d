"""A stdlib-only MCP server over stdio for the tests: the tool echo, and
grow, which adds a tool grown_<8 random hex> (a new one each call) and
says so with notifications/tools/list_changed before it answers."""
import json
import os
import sys

tools = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "grow", "description": "Adds a tool grown_<hex>.", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def reply(msg_id, result):
    send({"jsonrpc": "2.0", "id": msg_id, "result": result})


def text(s):
    return {"content": [{"type": "text", "text": s}]}


for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        reply(msg_id, {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {"listChanged": True}},
                       "serverInfo": {"name": "pyecho", "version": sys.version.split()[0]}})
    elif method == "tools/list":
        reply(msg_id, {"tools": tools})
    elif method == "tools/call":
        name, args = msg["params"]["name"], msg["params"].get("arguments") or {}
        if name == "echo":
            reply(msg_id, text(sys.executable + " " + args.get("text", "")))
        elif name == "grow":
            grown = "grown_" + os.urandom(4).hex()
            tools.append({"name": grown, "description": "Added by grow.", "inputSchema": {"type": "object"},
                          "annotations": {"readOnlyHint": True, "openWorldHint": False}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            reply(msg_id, text(grown))
        elif any(t["name"] == name for t in tools):
            reply(msg_id, text("I was " + name))
        else:
            reply(msg_id, {"content": [{"type": "text", "text": "no tool " + name}], "isError": True})
    else:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "no " + method}})
