"""modbay_module: the protocol side of a modbay module (xibodev.module/v1),
written by `modbay new` beside the module; standard library only.

It reads the argv and the request file, prints the one envelope on stdout,
writes artifacts beneath a root with their digests and makes job handles
with the documented states only. The module's own code is its
capabilities: functions of the request returning (result, artifacts).
The guide: docs/modules.md in the modbay repository.
"""
import hashlib
import json
import os
import sys
import traceback

PROTOCOL = "xibodev.module/v1"
JOB_STATES = ("queued", "running", "succeeded", "failed", "cancelled")


class Refusal(Exception):
    """An error envelope: a protocol error code, a message, details."""

    def __init__(self, code, message, **details):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def root(request, name, write=False):
    """The root `name` the host supplied (writable when write is set)."""
    r = request.get("roots", {}).get(name)
    if not r or (write and r.get("mode") != "rw"):
        raise Refusal("missing_requirement", "the host supplied no %s%s root" % ("writable " if write else "", name), root=name)
    return r


def write_artifact(request, root_name, rel, artifact_id, kind, media_type, data, title=None):
    """Write data (str or bytes) beneath the root at rel; return the artifact
    entry with its digest. rel may not be absolute or climb out with "..".
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    norm = os.path.normpath(rel)
    if os.path.isabs(rel) or norm == ".." or norm.startswith(".." + os.sep):
        raise Refusal("internal", "artifact path %r is not beneath the %s root" % (rel, root_name))
    path = os.path.join(root(request, root_name, write=True)["path"], norm)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    entry = {"id": artifact_id, "kind": kind, "root": root_name, "path": norm.replace(os.sep, "/"),
             "media_type": media_type, "bytes": len(data),
             "digest": "sha256:" + hashlib.sha256(data).hexdigest()}
    if title:
        entry["title"] = title
    return entry


def job(job_id, state, percent=None, detail=None):
    """A job handle or status; state must be one of JOB_STATES."""
    if state not in JOB_STATES:
        raise ValueError("%r is not a job state: use one of %s" % (state, ", ".join(JOB_STATES)))
    j = {"job_id": job_id, "state": state}
    if percent is not None:
        j["percent"] = percent
    if detail:
        j["detail"] = detail
    return j


def envelope(module, operation, request_id, result=None, error=None, artifacts=()):
    """Print the one envelope; ok is true exactly when there is no error."""
    env = {
        "protocol": PROTOCOL, "module": module, "operation": operation,
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


def run(module, descriptor, capabilities, argv=None):
    """Answer describe or invoke for argv (sys.argv by default) and return
    the exit status: capabilities maps an id to a function of the request
    returning (result, artifacts); a Refusal it raises is sent as is, any
    other exception as internal, its traceback on stderr."""
    argv = sys.argv if argv is None else argv
    if argv[1:3] == ["module", "describe"]:
        envelope(module, "describe", "", result=descriptor)
        return 0
    if len(argv) != 6 or argv[1:3] != ["module", "invoke"] or argv[4] != "--input":
        print("usage: %s module describe --json | module invoke CAPABILITY --input FILE" % argv[0], file=sys.stderr)
        return 2
    capability, request_id = argv[3], ""
    try:
        with open(argv[5], encoding="utf-8") as f:
            request = json.load(f)
        request_id = request.get("request_id", "")
        handler = capabilities.get(capability)
        if handler is None:
            raise Refusal("unknown_capability", "no capability %s" % capability, capability=capability)
        result, artifacts = handler(request)
        envelope(module, "invoke", request_id, result=result, artifacts=artifacts)
    except Refusal as r:
        envelope(module, "invoke", request_id, error={"code": r.code, "message": r.message,
                                                      "retryable": False, "details": r.details})
    except Exception as e:  # a bug: say so in the envelope, the traceback on stderr
        traceback.print_exc()
        envelope(module, "invoke", request_id, error={"code": "internal", "message": str(e) or type(e).__name__,
                                                      "retryable": False, "details": {}})
    return 0
