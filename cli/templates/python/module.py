#!/usr/bin/env python3
"""MODULE_ID: a modbay module speaking xibodev.module/v1 (made by `modbay new`).

modbay runs it as
    MODULE_ID module describe --json
    MODULE_ID module invoke CAPABILITY --input REQUEST_FILE
and reads exactly one JSON envelope from stdout. Logs go to stderr.
The guide: docs/modules.md in the modbay repository.
"""
import json
import os
import sys

# modbay_module.py beside this file writes the protocol's side (the argv,
# the envelope, artifacts with their digests); no bytecode is written into
# the module's folder, which runs read-only.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from modbay_module import Refusal, run, write_artifact  # noqa: E402

MODULE = "MODULE_ID"

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


def report(request):
    title, tone, factor, uppercase = check_input(request.get("input"))
    if uppercase:
        title = title.upper()
    rows = [(step, step * factor) for step in range(1, 6)]
    greeting = "What a day!" if tone == "cheerful" else "Here is the table."
    markdown = "# %s\n\n%s\n\n| step | value |\n| --- | --- |\n" % (title, greeting)
    markdown += "".join("| %d | %g |\n" % row for row in rows)
    csv = "step,value\n" + "".join("%d,%g\n" % row for row in rows)
    prefix = request["request_id"]  # one run's files never overwrite another's
    artifacts = [
        write_artifact(request, "output", prefix + "-report.md", "report", MODULE + ".report.markdown/v1",
                       "text/markdown", markdown, title=prefix + "-report.md"),
        write_artifact(request, "output", prefix + "-table.csv", "table", MODULE + ".report.table/v1",
                       "text/csv", csv, title=prefix + "-table.csv"),
    ]
    return {"rows": len(rows)}, artifacts


if __name__ == "__main__":
    sys.exit(run(MODULE, DESCRIPTOR, {MODULE + ".report": report}))
