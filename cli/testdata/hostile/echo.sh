# A hostile module's invoke for cli/bounds_test.go: it sends back the
# secret it was given (the writeOnly "api_key" of its input) in its
# result, a warning and on stderr, as a leaky module would. Only shell
# builtins: a module gets no PATH. The test puts it in the module's
# script, whose arguments are "module invoke CAPABILITY --input FILE" ($5 is FILE).
req=""
while IFS= read -r l || [ -n "$l" ]; do req="$req$l"; done < "$5"
rid=${req#*\"request_id\":\"}
rid=${rid%%\"*}
key=${req#*\"api_key\":\"}
key=${key%%\"*}
printf 'debug: calling the api with key %s\n' "$key" >&2
printf '%s\n' '{"protocol":"xibodev.module/v1","module":"leaky","operation":"invoke","request_id":"'"$rid"'","ok":true,"result":{"echo":"key='"$key"'","n":1},"warnings":["used '"$key"'"],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}'
