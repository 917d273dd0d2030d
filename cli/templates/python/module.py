#!/usr/bin/env python3
"""MODULE_ID: a modbay module speaking xibodev.module/v1 (made by `modbay new`).

modbay runs it as
    MODULE_ID module describe --json
    MODULE_ID module invoke CAPABILITY --input REQUEST_FILE
and reads exactly one JSON envelope from stdout. Logs go to stderr.
The guide: docs/modules.md in the modbay repository.
"""
import hashlib
import json
import os
import sys
import traceback

PROTOCOL = "xibodev.module/v1"
MODULE = "MODULE_ID"
REPORT = MODULE + ".report"

DESCRIPTOR = json.loads(r"""
{
  "module": "MODULE_ID", "name": "MODULE_ID", "version": "0.1.0",
  "protocol_versions": ["xibodev.module/v1"],
  "capabilities": [{
    "id": "MODULE_ID.report", "title": "Write a report",
    "summary": "Write a markdown report and a CSV table from a title, a tone and a factor.",
    "request_schema": "MODULE_ID.report.request/v1",
    "result_schema": "MODULE_ID.report.result/v1",
    "artifact_schemas": ["MODULE_ID.report.markdown/v1", "MODULE_ID.report.table/v1"],
    "effects": {"local": true, "network": false, "external_writes": false,
                "provider": "local", "cost_known": true},
    "skills": [], "long_running": false
  }],
  "request_schemas": {
    "MODULE_ID.report.request/v1": {
      "type": "object",
      "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 200,
                  "description": "The report's heading."},
        "tone": {"type": "string", "enum": ["plain", "cheerful"], "default": "plain"},
        "factor": {"type": "number", "minimum": 0, "maximum": 1000, "default": 1,
                   "description": "Multiplies every value in the table."},
        "options": {"type": "object", "additionalProperties": false,
                    "properties": {"uppercase": {"type": "boolean", "default": false}}}
      },
      "required": ["title"],
      "additionalProperties": false
    }
  },
  "result_schemas": {
    "MODULE_ID.report.result/v1": {"type": "object", "required": ["rows"],
                                   "properties": {"rows": {"type": "integer"}}}
  },
  "artifact_schemas": {
    "MODULE_ID.report.markdown/v1": {"description": "report.md (text/markdown)"},
    "MODULE_ID.report.table/v1": {"description": "table.csv (text/csv): step, value"}
  },
  "agent_overlays": [], "skills": [],
  "permissions": {"filesystem_read": [], "filesystem_write": ["output"], "network": [],
                  "credentials": [], "paid_providers": [], "publish": false, "subprocess": []},
  "requirements": []
}
""")


class Refusal(Exception):
    """An error envelope: a protocol error code, a message, details."""

    def __init__(self, code, message, **details):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def envelope(operation, request_id, result=None, error=None, artifacts=()):
    """Print the one envelope; ok is true exactly when there is a result."""
    env = {
        "protocol": PROTOCOL, "module": MODULE, "operation": operation,
        "request_id": request_id, "ok": error is None, "warnings": [],
        "execution": {"local": True, "network": False, "external_writes": False,
                      "provider": "local", "estimated_cost": 0, "actual_cost": 0,
                      "artifacts": list(artifacts)},
    }
    if error is None:
        env["result"] = result
    else:
        env["error"] = error
    json.dump(env, sys.stdout)
    sys.stdout.write("\n")


def check_input(value):
    """Check the input as the request schema says; modbay checks it too,
    but a module never trusts its caller."""
    if not isinstance(value, dict):
        raise Refusal("invalid_request", "input must be an object", field="")
    unknown = sorted(set(value) - {"title", "tone", "factor", "options"})
    if unknown:
        raise Refusal("invalid_request", "unknown field %s" % unknown[0], field=unknown[0])
    title = value.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= 200:
        raise Refusal("invalid_request", "title must be a string of 1 to 200 characters", field="title")
    tone = value.get("tone", "plain")
    if tone not in ("plain", "cheerful"):
        raise Refusal("invalid_request", "tone must be plain or cheerful", field="tone")
    factor = value.get("factor", 1)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 <= factor <= 1000:
        raise Refusal("invalid_request", "factor must be a number from 0 to 1000", field="factor")
    options = value.get("options", {})
    if not isinstance(options, dict) or set(options) - {"uppercase"} \
            or not isinstance(options.get("uppercase", False), bool):
        raise Refusal("invalid_request", "options may only hold uppercase (a boolean)", field="options")
    return title, tone, factor, options.get("uppercase", False)


def write_artifact(root, rel, artifact_id, kind, media_type, text):
    """Write text under the root at rel; return the artifact entry."""
    data = text.encode("utf-8")
    path = os.path.join(root["path"], rel)
    with open(path, "wb") as f:
        f.write(data)
    return {"id": artifact_id, "kind": kind, "root": "output", "path": rel,
            "media_type": media_type, "bytes": len(data),
            "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "title": rel}


def report(request):
    title, tone, factor, uppercase = check_input(request.get("input"))
    root = request.get("roots", {}).get("output")
    if not root or root.get("mode") != "rw":
        raise Refusal("missing_requirement", "the host supplied no writable output root", root="output")
    if uppercase:
        title = title.upper()
    rows = [(step, step * factor) for step in range(1, 6)]
    greeting = "What a day!" if tone == "cheerful" else "Here is the table."
    markdown = "# %s\n\n%s\n\n| step | value |\n| --- | --- |\n" % (title, greeting)
    markdown += "".join("| %d | %g |\n" % row for row in rows)
    csv = "step,value\n" + "".join("%d,%g\n" % row for row in rows)
    prefix = request["request_id"]  # one run's files never overwrite another's
    artifacts = [
        write_artifact(root, prefix + "-report.md", "report", MODULE + ".report.markdown/v1", "text/markdown", markdown),
        write_artifact(root, prefix + "-table.csv", "table", MODULE + ".report.table/v1", "text/csv", csv),
    ]
    return {"rows": len(rows)}, artifacts


def main(argv):
    if argv[1:3] == ["module", "describe"]:
        envelope("describe", "", result=DESCRIPTOR)
        return 0
    if len(argv) != 6 or argv[1:3] != ["module", "invoke"] or argv[4] != "--input":
        print("usage: %s module describe --json | module invoke CAPABILITY --input FILE" % argv[0], file=sys.stderr)
        return 2
    capability, request_id = argv[3], ""
    try:
        with open(argv[5], encoding="utf-8") as f:
            request = json.load(f)
        request_id = request.get("request_id", "")
        if capability != REPORT:
            raise Refusal("unknown_capability", "no capability %s" % capability, capability=capability)
        result, artifacts = report(request)
        envelope("invoke", request_id, result=result, artifacts=artifacts)
    except Refusal as r:
        envelope("invoke", request_id, error={"code": r.code, "message": r.message,
                                              "retryable": False, "details": r.details})
    except Exception as e:  # a bug: say so in the envelope, the traceback on stderr
        traceback.print_exc()
        envelope("invoke", request_id, error={"code": "internal", "message": str(e) or type(e).__name__,
                                              "retryable": False, "details": {}})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
