#!/bin/sh
# A hostile module for runner's TestJobPollsShareTheWriteBound: a
# long-running capability whose every call (the start and each poll)
# writes 3 MiB of new data into the workspace, so no one call passes a
# 4 MiB write_mb while the job as a whole does; it succeeds at the
# fourth poll. Only shell builtins: a module gets no PATH.
P='"protocol":"xibodev.module/v1","module":"jobwrites"'
X='"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0'
E='"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}'
if [ "$1 $2" = "module describe" ]; then
	printf '%s\n' '{'"$P"',"operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{'"$X"',"artifacts":[]},
"result":{"module":"jobwrites","name":"Job writes","version":"1.0.0","protocol_versions":["xibodev.module/v1"],
"capabilities":[{"id":"j.start","title":"Start","summary":"Starts a job that writes at every poll.",'"$E"',"long_running":true,"poll_capability":"j.poll"},
{"id":"j.poll","title":"Poll","summary":"Polls the job, writing 3 MiB.",'"$E"'}],
"permissions":{"filesystem_read":["workspace"],"filesystem_write":["workspace"],"network":[],"subprocess":[]}}}'
	exit 0
fi
[ "$1 $2" = "module invoke" ] || exit 2
req=""
while IFS= read -r l || [ -n "$l" ]; do req="$req$l"; done < "$5"
ws=${req#*\"workspace\":\{\"path\":\"}
ws=${ws%%\"*}
rid=${req#*\"request_id\":\"}
rid=${rid%%\"*}
s=x
i=0
while [ $i -lt 18 ]; do s="$s$s"; i=$((i + 1)); done
i=0
while [ $i -lt 12 ]; do printf '%s' "$s" >> "$ws/part-$rid.bin" || break; i=$((i + 1)); done
n=0
[ -f "$ws/polls" ] && read -r n < "$ws/polls"
state=running
if [ "$3" = "j.poll" ]; then
	n=$((n + 1))
	printf '%s\n' "$n" > "$ws/polls"
	[ "$n" -ge 4 ] && state=succeeded
fi
printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":true,"result":{"job_id":"j1","state":"'"$state"'"},"warnings":[],"execution":{'"$X"',"artifacts":[]}}'
