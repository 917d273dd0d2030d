#!/bin/sh
# A module with a long-running capability for the tests of jobs in
# cli/check_test.go: jobs.start returns a handle, jobs.poll answers
# "succeeded" (with no artifact), jobs.cancel "cancelled". Its file name
# picks the one deliberate fault:
#   jobs        none
#   done-state  the poll answers "state":"done", not a job state
# Only shell builtins: a module gets no PATH.
fault=${0##*/}
P='"protocol":"xibodev.module/v1","module":"'"$fault"'"'
X='"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0'
E='"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}'
if [ "$1 $2" = "module describe" ]; then
	printf '%s\n' '{'"$P"',"operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{'"$X"',"artifacts":[]},
"result":{"module":"'"$fault"'","name":"Jobs fixture","version":"1.0.0","protocol_versions":["xibodev.module/v1"],
"capabilities":[
{"id":"jobs.start","title":"Start a job","summary":"Start a job that ends at the first poll.","request_schema":"jobs.start.request/v1","long_running":true,"poll_capability":"jobs.poll","cancel_capability":"jobs.cancel",'"$E"'},
{"id":"jobs.poll","title":"Poll a job","summary":"Say how a job is going.","request_schema":"jobs.job.request/v1",'"$E"'},
{"id":"jobs.cancel","title":"Cancel a job","summary":"Stop a job.","request_schema":"jobs.job.request/v1",'"$E"'}],
"request_schemas":{"jobs.start.request/v1":{"type":"object","additionalProperties":false,"properties":{}},
"jobs.job.request/v1":{"type":"object","required":["job_id"],"properties":{"job_id":{"type":"string","minLength":1}}}},
"permissions":{"filesystem_read":[],"filesystem_write":[]}}}'
	exit 0
fi
[ "$1 $2" = "module invoke" ] || { echo "usage: jobs module describe --json | module invoke CAP --input FILE" >&2; exit 2; }
cap=$3
while IFS= read -r l; do line="$line$l"; done < "$5"
line="$line$l"
rid=${line#*\"request_id\":\"}
rid=${rid%%\"*}
reply() {
	printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":true,"result":'"$1"',"warnings":[],"execution":{'"$X"',"artifacts":[]}}'
	exit 0
}
fail() {
	printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":false,"error":{"code":"'"$1"'","message":"'"$2"'","retryable":false,"details":{}},"warnings":[],"execution":{'"$X"',"artifacts":[]}}'
	exit 0
}
case $cap in
jobs.start)
	case $line in *'"input":{}'*) ;; *) fail invalid_request "jobs.start takes no input" ;; esac
	reply '{"job_id":"job-1","state":"running","percent":0}' ;;
jobs.poll|jobs.cancel)
	case $line in
	*'"job_id":"job-1"'*) ;;
	*'"job_id":"'[!\"]*) fail unknown_job "no such job" ;;
	*) fail invalid_request "job_id: a non-empty string is required" ;;
	esac
	state=succeeded
	[ "$cap" = jobs.cancel ] && state=cancelled
	[ "$fault" = done-state ] && state=done
	reply '{"job_id":"job-1","state":"'"$state"'","percent":100}' ;;
esac
fail unknown_capability "no capability $cap"
