package schemalint

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// maxMemo bounds the Unsatisfiable answers remembered: more request
// schemas than a cockpit lists (a few servers of a few hundred tools); the
// memo is emptied when full, so it never grows past it.
const maxMemo = 4096

// unsatisfiableAnswer is one remembered answer of Unsatisfiable.
type unsatisfiableAnswer struct {
	finding Finding
	refused bool
}

// unsatisfiableMemo remembers Unsatisfiable's answers by the SHA-256 of
// the schema id and the schema's bytes: the answer is a pure function of
// both, so a schema judged again (a tool list listed again, a module
// described again) is not parsed and linted again.
var unsatisfiableMemo = struct {
	sync.Mutex
	m map[[sha256.Size]byte]unsatisfiableAnswer
}{m: map[[sha256.Size]byte]unsatisfiableAnswer{}}

// memoUnsatisfiable answers from the memo, or with judge, remembering
// its answer.
func memoUnsatisfiable(id string, raw json.RawMessage, judge func(string, json.RawMessage) (Finding, bool)) (Finding, bool) {
	h := sha256.New()
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write(raw)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	unsatisfiableMemo.Lock()
	a, ok := unsatisfiableMemo.m[key]
	unsatisfiableMemo.Unlock()
	if ok {
		return a.finding, a.refused
	}
	f, refused := judge(id, raw)
	unsatisfiableMemo.Lock()
	if len(unsatisfiableMemo.m) >= maxMemo {
		clear(unsatisfiableMemo.m)
	}
	unsatisfiableMemo.m[key] = unsatisfiableAnswer{finding: f, refused: refused}
	unsatisfiableMemo.Unlock()
	return f, refused
}
