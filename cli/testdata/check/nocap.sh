#!/bin/sh
# A module declaring no capability (installed as nocap/nocap).
if [ "$1 $2" = "module describe" ]; then
printf '%s\n' '{"protocol":"xibodev.module/v1","module":"nocap","operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]},"result":{"module":"nocap","name":"No caps","version":"1.0.0","protocol_versions":["xibodev.module/v1"],"capabilities":[],"request_schemas":{},"artifact_schemas":{},"permissions":{}}}'
exit 0
fi
exit 2
