// Command disk is a hostile module for the runner's tests that aims at the
// host's disk. Its mode is its executable's name (installed as
// <mode>/<mode>), one capability d.run:
//
//	sparse-huge  lists a 64 GiB hole as an artifact: one copy fills a disk
//	sparse-many  lists the same 3 MiB hole eight times
//	sparse-slow  lists a 3 GiB hole, which takes seconds to copy
//	fill         writes 24 files of 512 KiB (12 MiB) into the workspace,
//	             then waits a minute before it answers
//	fill-exit    writes the same and answers at once
//	slack        writes 16 files of 1 MiB, unlinks them and holds them open
//	             2 s (statfs sees them, no walk does), closes them, then
//	             writes 8 files of 1 MiB seen and answers
//	huge-schema  describes d.run with a 2 MiB request schema (nested
//	             anyOf): past schema.MaxSchemaBytes, under the describe's
//	             bound
//	huge-describe  the same with an 11 MB schema, which took the host
//	             10 s to decode and refuse
//
// A hole holds no data: the module pays nothing, the host would pay its
// size.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modbay/modkit"
)

func main() {
	mode := filepath.Base(os.Args[0])
	request, schemas := "", ""
	if size := map[string]int{"huge-schema": 2 << 20, "huge-describe": 11 << 20}[mode]; size > 0 {
		var b strings.Builder
		b.WriteString(`{"anyOf":[`)
		for b.Len() < size {
			b.WriteString(`{"anyOf":[{"type":"string","minLength":1},{"type":"integer"}]},`)
		}
		b.WriteString(`{}]}`)
		request, schemas = `"request_schema":"d.request",`, `"request_schemas":{"d.request":`+b.String()+`},`
	}
	desc := fmt.Sprintf(`{"module":%q,"name":"Disk","version":"1.0.0","protocol_versions":["xibodev.module/v1"],
"capabilities":[{"id":"d.run","title":"Run","summary":"Aims at the host's disk.",%s"artifact_schemas":["d.blob"],
"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}}],
%s"artifact_schemas":{"d.blob":{"type":"object"}},
"permissions":{"filesystem_read":["workspace"],"filesystem_write":["workspace"],"network":[],"subprocess":[]}}`, mode, request, schemas)
	modkit.Main(modkit.Module{ID: mode, Descriptor: json.RawMessage(desc), Capabilities: map[string]modkit.Handler{
		"d.run": func(r *modkit.Request) (*modkit.Result, error) { return run(mode, r) },
	}})
}

func run(mode string, r *modkit.Request) (*modkit.Result, error) {
	ws, err := r.Root("workspace", true)
	if err != nil {
		return nil, err
	}
	switch mode {
	case "sparse-huge":
		return holes(ws.Path, 64<<30, 1, false)
	case "sparse-many":
		return holes(ws.Path, 3<<20, 8, true)
	case "sparse-slow":
		return holes(ws.Path, 3<<30, 1, false)
	case "fill", "fill-exit":
		chunk := []byte(strings.Repeat("x", 512<<10))
		for i := range 24 {
			if err := os.WriteFile(filepath.Join(ws.Path, fmt.Sprintf("fill%d", i)), chunk, 0o644); err != nil {
				return nil, err
			}
		}
		if mode == "fill" {
			time.Sleep(time.Minute)
		}
		return &modkit.Result{Value: map[string]any{}}, nil
	case "slack":
		chunk := []byte(strings.Repeat("s", 1<<20))
		var held []*os.File
		for i := range 16 {
			p := filepath.Join(ws.Path, fmt.Sprintf("held%d", i))
			f, err := os.Create(p)
			if err != nil {
				return nil, err
			}
			if _, err := f.Write(chunk); err != nil {
				return nil, err
			}
			f.Sync()
			os.Remove(p)
			held = append(held, f)
		}
		time.Sleep(2 * time.Second)
		for _, f := range held {
			f.Close()
		}
		for i := range 8 {
			if err := os.WriteFile(filepath.Join(ws.Path, fmt.Sprintf("seen%d", i)), chunk, 0o644); err != nil {
				return nil, err
			}
			time.Sleep(100 * time.Millisecond)
		}
		return &modkit.Result{Value: map[string]any{}}, nil
	}
	return nil, modkit.Errorf("internal", "", "no mode %q", mode)
}

// holes makes one file of size bytes holding no data and lists it n times
// (its real digest when digest is set, else a made-up one).
func holes(ws string, size int64, n int, digest bool) (*modkit.Result, error) {
	f, err := os.Create(filepath.Join(ws, "hole.bin"))
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	d := "sha256:" + strings.Repeat("0", 64)
	if digest {
		d = modkit.Digest(make([]byte, size))
	}
	res := &modkit.Result{Value: map[string]any{}}
	for i := range n {
		res.Artifacts = append(res.Artifacts, modkit.Artifact{ID: fmt.Sprintf("hole%d", i), Kind: "d.blob", Root: "workspace",
			Path: "hole.bin", MediaType: "application/octet-stream", Digest: d, Bytes: size})
	}
	return res, nil
}
