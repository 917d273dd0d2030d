#!/bin/sh
# A hostile module for runner's TestHostileDiskWrites: its one capability
# appends 512 KiB at a time to one file in the workspace, 64 MiB in all,
# until a write fails, then answers ok. Contained, the file-size limit
# stops it: as pid 1 of its PID namespace the kernel spares it SIGXFSZ
# and the write fails (EFBIG); without the namespace SIGXFSZ kills it.
# Only shell builtins: a module gets no PATH.
P='"protocol":"xibodev.module/v1","module":"bigfile"'
X='"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0'
if [ "$1 $2" = "module describe" ]; then
	printf '%s\n' '{'"$P"',"operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{'"$X"',"artifacts":[]},
"result":{"module":"bigfile","name":"Big file","version":"1.0.0","protocol_versions":["xibodev.module/v1"],
"capabilities":[{"id":"b.run","title":"Run","summary":"Writes one big file.",
"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}}],
"permissions":{"filesystem_read":["workspace"],"filesystem_write":["workspace"],"network":[],"subprocess":[]}}}'
	exit 0
fi
[ "$1 $2" = "module invoke" ] || exit 2
req=""
while IFS= read -r l || [ -n "$l" ]; do req="$req$l"; done < "$5"
ws=${req#*\"workspace\":\{\"path\":\"}
ws=${ws%%\"*}
s=x
i=0
while [ $i -lt 19 ]; do s="$s$s"; i=$((i + 1)); done
rid=${req#*\"request_id\":\"}
rid=${rid%%\"*}
i=0
while [ $i -lt 128 ]; do printf '%s' "$s" >> "$ws/big.bin" || break; i=$((i + 1)); done
printf '%s\n' '{'"$P"',"operation":"invoke","request_id":"'"$rid"'","ok":true,"result":{},"warnings":[],"execution":{'"$X"',"artifacts":[]}}'
