#!/bin/sh
# A module for `modbay check`'s tests (cli/check_test.go). It behaves well,
# but for the one deliberate fault its file name names:
#   ok                     none
#   log-line               prints a log line on stdout before the envelope
#   crash                  writes a traceback and exits 3 before any envelope
#   error-string           sends "error": "cannot open db" (a string)
#   wrong-request-id       echoes another request_id
#   undeclared-kind        reports an artifact kind it did not declare
#   bad-digest             reports a wrong artifact digest
#   no-invalid-request     accepts input its schema refuses
#   no-unknown-capability  answers internal to a capability it lacks
#   trailing-text          prints "done" on stdout after the envelope
#   no-protocol-versions   describes without protocol_versions
#   typo                   spells "properties" "propertes" (no input fits)
#   refused-write          writes beside itself (outside its rw roots) and
#                          answers internal with the shell's error
# Only shell builtins and absolute paths: a module gets no PATH. The
# programs it starts are declared (permissions.subprocess): granted none,
# a module could start none.
fault=${0##*/} # also its module id: a module loaded by path is named for its file
# Run by a launcher as <dir>/impl.sh, it is the module of its directory.
[ "$fault" = impl.sh ] && { d=${0%/*}; fault=${d##*/}; }
P='"protocol":"xibodev.module/v1","module":"'"$fault"'"'
X='"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0'

V='"protocol_versions":["xibodev.module/v1"],'
S=properties
case $fault in
no-protocol-versions) V= ;;
typo) S=propertes ;;
esac
if [ "$1 $2" = "module describe" ]; then
	printf '%s\n' '{'"$P"',"operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{'"$X"',"artifacts":[]},
"result":{"module":"'"$fault"'","name":"Check fixture","version":"1.0.0",'"$V"'
"capabilities":[{"id":"fixture.write","title":"Write a note","summary":"Write a markdown note named after the input.",
"request_schema":"fixture.write.request/v1","artifact_schemas":["fixture.note/v1"],
"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}}],
"request_schemas":{"fixture.write.request/v1":{"type":"object","required":["name"],"additionalProperties":false,
"'"$S"'":{"name":{"type":"string","minLength":1,"maxLength":8},"tone":{"enum":["plain","loud"]}}}},
"artifact_schemas":{"fixture.note/v1":{"type":"string"}},
"permissions":{"filesystem_read":["workspace"],"filesystem_write":["workspace"],"subprocess":["cut","sed","sha256sum","tr"]}}}'
	exit 0
fi
[ "$1 $2" = "module invoke" ] || { echo "usage: fixture module describe --json | module invoke CAP --input FILE" >&2; exit 2; }
cap=$3 req=$5
line=$(/usr/bin/tr -d '\n' < "$req")
field() { printf '%s' "$line" | /usr/bin/sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
rid=$(field request_id)
ws=$(printf '%s' "$line" | /usr/bin/sed -n 's/.*"workspace":{"path":"\([^"]*\)".*/\1/p')
name=$(printf '%s' "$line" | /usr/bin/sed -n 's/.*"input":{[^}]*"name":"\([^"]*\)".*/\1/p')
fail() {
	printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":false,"error":{"code":"'"$1"'","message":"'"$2"'","retryable":false,"details":{}},"warnings":[],"execution":{'"$X"',"artifacts":[]}}'
	exit 0
}
case $fault in
log-line) echo "fixture: starting" ;;
crash)
	echo 'Traceback (most recent call last):' >&2
	echo '  File "impl.py", line 3, in <module>' >&2
	echo "KeyError: 'name'" >&2
	exit 3 ;;
error-string)
	printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":false,"error":"cannot open db","warnings":[],"execution":{'"$X"',"artifacts":[]}}'
	exit 0 ;;
wrong-request-id) rid=req_00000000000000000000000000000000 ;;
refused-write)
	if [ "$cap" = fixture.write ] && [ -n "$name" ]; then
		out=${0%/*}/cache.txt
		msg=$( { printf x > "$out"; } 2>&1 ) || { echo "$msg" >&2; fail internal "cannot write $out"; }
	fi ;;
esac
if [ "$cap" != fixture.write ]; then
	[ "$fault" = no-unknown-capability ] && fail internal "something went wrong"
	fail unknown_capability "no capability $cap"
fi
if [ -z "$name" ] && [ "$fault" != no-invalid-request ]; then
	fail invalid_request "name: a string of 1 to 8 characters is required"
fi
printf '# %s\n' "$name" > "$ws/fixture-note.md"
digest=sha256:$(/usr/bin/sha256sum "$ws/fixture-note.md" | /usr/bin/cut -d' ' -f1)
kind=fixture.note/v1
[ "$fault" = undeclared-kind ] && kind=fixture.other/v1
[ "$fault" = bad-digest ] && digest=sha256:0000000000000000000000000000000000000000000000000000000000000000
printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":true,"result":{"name":"'"$name"'"},"warnings":[],"execution":{'"$X"',"artifacts":[{"id":"note","kind":"'"$kind"'","root":"workspace","path":"fixture-note.md","media_type":"text/markdown","digest":"'"$digest"'"}]}}'
[ "$fault" = trailing-text ] && echo done
exit 0
