#!/bin/sh
# MODULE_ID: a modbay module speaking xibodev.module/v1 (made by `modbay new`).
#
# modbay runs it as
#     MODULE_ID module describe --json
#     MODULE_ID module invoke CAPABILITY --input REQUEST_FILE
# with no PATH: the tools it calls (jq, sha256sum) are declared under
# permissions.subprocess, and the host passes their absolute paths in the
# request's "binaries". stdout carries exactly one JSON envelope; logs go
# to stderr. The guide: docs/modules.md in the modbay repository.
set -u

MODULE='MODULE_ID'
DESCRIPTOR='{
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
                  "description": "The report heading."},
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
                  "credentials": [], "paid_providers": [], "publish": false,
                  "subprocess": ["jq", "sha256sum"]},
  "requirements": [
    {"kind": "binary", "name": "jq", "detail": "install jq, or map it under binaries: in config.yaml"},
    {"kind": "binary", "name": "sha256sum", "detail": "part of coreutils"}
  ]
}'
EXECUTION='{"local": true, "network": false, "external_writes": false, "provider": "local",
  "estimated_cost": 0, "actual_cost": 0, "artifacts": []}'

# fail CODE MESSAGE: an error envelope, and the end of the run. Built with
# jq once it is known (the message may quote the input), else with printf
# (our own messages, without quotes).
fail() {
  if [ -n "${JQ:-}" ]; then
    "$JQ" -n --arg mod "$MODULE" --arg id "$REQUEST_ID" --arg code "$1" --arg message "$2" --argjson execution "$EXECUTION" \
      '{protocol: "xibodev.module/v1", "module": $mod, operation: "invoke", request_id: $id, ok: false,
        error: {code: $code, message: $message, retryable: false, details: {}}, warnings: [], execution: $execution}'
  else
    printf '{"protocol": "xibodev.module/v1", "module": "%s", "operation": "invoke", "request_id": "%s", "ok": false, "error": {"code": "%s", "message": "%s", "retryable": false, "details": {}}, "warnings": [], "execution": %s}\n' \
      "$MODULE" "$REQUEST_ID" "$1" "$2" "$EXECUTION"
  fi
  exit 0
}

# binary NAME: the absolute path the host resolved for NAME, read from the
# request's "binaries" with shell builtins only (jq may be what is
# missing). The host writes the request as one line of compact JSON, and a
# quote inside a string is escaped, so "binaries":{ is the real key; the
# request id is read the same way.
binary() {
  rest=${REQUEST#*\"binaries\":\{}
  rest=${rest%%\}*}
  case $rest in
    *\"$1\":\"*) rest=${rest#*\"$1\":\"}; printf '%s' "${rest%%\"*}" ;;
  esac
}

if [ "${1:-}" = module ] && [ "${2:-}" = describe ]; then
  printf '{"protocol": "xibodev.module/v1", "module": "%s", "operation": "describe", "request_id": "", "ok": true, "result": %s, "warnings": [], "execution": %s}\n' \
    "$MODULE" "$DESCRIPTOR" "$EXECUTION"
  exit 0
fi
if [ $# -ne 5 ] || [ "$1" != module ] || [ "$2" != invoke ] || [ "$4" != --input ]; then
  echo "usage: $0 module describe --json | module invoke CAPABILITY --input FILE" >&2
  exit 2
fi
CAPABILITY=$3 REQUEST_ID='' REQUEST=''
IFS= read -r REQUEST < "$5" || [ -n "$REQUEST" ] || fail internal "cannot read the request file"
case $REQUEST in
  *\"request_id\":\"*) REQUEST_ID=${REQUEST#*\"request_id\":\"}; REQUEST_ID=${REQUEST_ID%%\"*} ;;
esac
JQ=$(binary jq)
SHA256SUM=$(binary sha256sum)
[ -n "$JQ" ] || fail missing_requirement "jq is not installed (the host resolved no jq)"
[ -n "$SHA256SUM" ] || fail missing_requirement "sha256sum is not installed"
[ "$CAPABILITY" = "$MODULE.report" ] || fail unknown_capability "no capability $CAPABILITY"

# Check the input as the request schema says (modbay checks it too, but a
# module never trusts its caller); jq prints the first problem, if any.
PROBLEM=$("$JQ" -r '.input | if type != "object" then "input must be an object"
  elif (keys - ["title", "tone", "factor", "options"]) != [] then "unknown field \((keys - ["title", "tone", "factor", "options"])[0])"
  elif (.title | type) != "string" or (.title | length) < 1 or (.title | length) > 200 then "title must be a string of 1 to 200 characters"
  elif has("tone") and (.tone | IN("plain", "cheerful") | not) then "tone must be plain or cheerful"
  elif has("factor") and ((.factor | type) != "number" or .factor < 0 or .factor > 1000) then "factor must be a number from 0 to 1000"
  elif has("options") and ((.options | type) != "object" or (.options | keys - ["uppercase"]) != []
    or ((.options.uppercase // false) | type) != "boolean") then "options may only hold uppercase (a boolean)"
  else "" end' "$5")
[ -z "$PROBLEM" ] || fail invalid_request "$PROBLEM"

ROOT=$("$JQ" -r 'if .roots.output.mode == "rw" then .roots.output.path else "" end' "$5")
[ -n "$ROOT" ] || fail missing_requirement "the host supplied no writable output root"
# No mkdir without PATH: jq cannot create folders either, so the files go
# straight into the root, named by the request id.
MD="$REQUEST_ID-report.md" CSV="$REQUEST_ID-table.csv"
"$JQ" -r '.input | (.factor // 1) as $f | (if .options.uppercase // false then .title | ascii_upcase else .title end) as $t
  | "# \($t)\n\n\(if .tone == "cheerful" then "What a day!" else "Here is the table." end)\n\n| step | value |\n| --- | --- |",
    (range(1; 6) | "| \(.) | \(. * $f) |")' "$5" > "$ROOT/$MD" || fail internal "cannot write the report"
"$JQ" -r '.input | (.factor // 1) as $f | "step,value", (range(1; 6) | "\(.),\(. * $f)")' "$5" > "$ROOT/$CSV" || fail internal "cannot write the table"

# artifact FILE ID KIND MEDIA_TYPE DIGEST: one artifact entry.
artifact() {
  "$JQ" -n --arg path "$1" --arg id "$2" --arg kind "$3" --arg type "$4" --arg digest "sha256:${5%% *}" \
    --argjson bytes "$("$JQ" -Rs 'utf8bytelength' "$ROOT/$1")" \
    '{id: $id, kind: $kind, root: "output", path: $path, media_type: $type, bytes: $bytes, digest: $digest, title: $path}'
}
SUM_MD=$("$SHA256SUM" "$ROOT/$MD") || fail internal "cannot hash the report"
SUM_CSV=$("$SHA256SUM" "$ROOT/$CSV") || fail internal "cannot hash the table"
ARTIFACTS="[$(artifact "$MD" report "$MODULE.report.markdown/v1" text/markdown "$SUM_MD"),
  $(artifact "$CSV" table "$MODULE.report.table/v1" text/csv "$SUM_CSV")]"
"$JQ" -n --arg mod "$MODULE" --arg id "$REQUEST_ID" --argjson execution "$EXECUTION" --argjson artifacts "$ARTIFACTS" \
  '{protocol: "xibodev.module/v1", "module": $mod, operation: "invoke", request_id: $id, ok: true,
    result: {rows: 5}, warnings: [], execution: ($execution | .artifacts = $artifacts)}'
