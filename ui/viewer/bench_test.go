package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
)

// Benchmarks for the viewers' budgets: open and first frame of a
// 100 000-row CSV, a 20 MB JSON file and a 1 MB markdown file, and one
// scroll step of each, with the heap the open viewer holds. Run with
//
//	go test ./ui/viewer -run '^$' -bench . -benchtime 5x
//
// and record the results in bench/viewers.txt.

// benchFiles are generated once per process.
var benchFiles = struct {
	sync.Once
	dir              string
	csv, json, md    string
	csvN, jsonN, mdN int64
}{}

func benchSetup(b *testing.B) {
	benchFiles.Do(func() {
		dir, err := os.MkdirTemp("", "modbay-viewer-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchFiles.dir = dir
		write := func(name, s string) (string, int64) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(s), 0o444); err != nil {
				b.Fatal(err)
			}
			return p, int64(len(s))
		}
		var sb strings.Builder
		sb.WriteString("id,name,city,amount,note\n")
		for i := range 100_000 {
			fmt.Fprintf(&sb, "%d,name %d,\"City, %d\",%d.%02d,\"a note\nwith a newline\"\n", i, i, i%97, i*7, i%100)
		}
		benchFiles.csv, benchFiles.csvN = write("rows.csv", sb.String())
		sb.Reset()
		sb.WriteString("[")
		for i := 0; sb.Len() < 20<<20; i++ {
			if i > 0 {
				sb.WriteString(",\n")
			}
			fmt.Fprintf(&sb, `{"id":%d,"name":"item %d","tags":["a","b","c"],"price":%d.5,"ok":true,"nested":{"x":%d,"y":[1,2,3],"note":"some text to make the record longer, like real data"}}`, i, i, i, i)
		}
		sb.WriteString("]")
		benchFiles.json, benchFiles.jsonN = write("big.json", sb.String())
		sb.Reset()
		section := "## Section %d\n\nSome *emphasis*, **strong** text, `code` and a [link](https://example.com/path).\n" +
			"A second sentence that is long enough to wrap at eighty columns, to exercise the word wrapper.\n\n" +
			"- item one\n- item two\n  - nested item\n\n" +
			"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n" +
			"| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |\n\n"
		for i := 0; sb.Len() < 1<<20; i++ {
			fmt.Fprintf(&sb, section, i)
		}
		benchFiles.md, benchFiles.mdN = write("big.md", sb.String())
	})
}

// benchDigests are the files' real digests, by path: a viewer that
// refused the file as changed would measure its error screen.
var benchDigests sync.Map

// benchViewer builds a 120×40 viewer for path without loading it.
func benchViewer(path, mediaType string, size int64) *Model {
	com := common.New(false)
	com.Width, com.Height = 120, 40
	d, ok := benchDigests.Load(path)
	if !ok {
		f, err := os.Open(path)
		if err != nil {
			panic(err)
		}
		digest, _, err := modproto.DigestReader(f)
		f.Close()
		if err != nil {
			panic(err)
		}
		d, _ = benchDigests.LoadOrStore(path, digest)
	}
	a := runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "a", Title: filepath.Base(path), Path: filepath.Base(path), MediaType: mediaType, Digest: d.(string), Bytes: size},
		Staged:   path, Size: size,
	}
	return New(com, DefaultKeyMap(), Env{}, "r", a, nil, "")
}

// firstFrame loads the viewer and draws its first frame: for markdown, the
// frame after the first chunk arrives (the rest renders in the background).
func firstFrame(b *testing.B, m *Model) {
	msg := m.Load()()
	_, cmd := m.Update(msg)
	if md, ok := m.body.(*markdown); ok && cmd != nil {
		_ = md
		batch, _ := cmd().(tea.BatchMsg)
		if len(batch) > 0 {
			m.Update(batch[0]())
		}
	}
	if m.Err() != nil {
		b.Fatalf("the viewer did not open the file: %v", m.Err())
	}
	if v := m.View(); len(v) == 0 {
		b.Fatal("empty frame")
	}
}

// heapAfter reports the live heap held by the open viewer relative to the
// file size.
func heapAfter(b *testing.B, m *Model, size int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := benchViewer(m.art.Staged, m.art.MediaType, size)
	firstFrame(b, v)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	b.ReportMetric(held/(1<<20), "heapMB")
	b.ReportMetric(held/float64(size), "x-file")
}

func benchOpen(b *testing.B, path, mt string, size int64) {
	for b.Loop() {
		firstFrame(b, benchViewer(path, mt, size))
	}
	heapAfter(b, benchViewer(path, mt, size), size)
}

func benchScroll(b *testing.B, path, mt string, size int64, keys ...string) {
	m := benchViewer(path, mt, size)
	firstFrame(b, m)
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	for _, k := range keys {
		m.Update(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
	}
	b.ResetTimer()
	for b.Loop() {
		m.Update(down)
		_ = m.View()
	}
}

func BenchmarkOpenCSV100kRows(b *testing.B) {
	benchSetup(b)
	benchOpen(b, benchFiles.csv, "text/csv", benchFiles.csvN)
}

func BenchmarkScrollCSV100kRows(b *testing.B) {
	benchSetup(b)
	benchScroll(b, benchFiles.csv, "text/csv", benchFiles.csvN)
}

func BenchmarkOpenJSON20MB(b *testing.B) {
	benchSetup(b)
	benchOpen(b, benchFiles.json, "application/json", benchFiles.jsonN)
}

func BenchmarkScrollJSON20MB(b *testing.B) {
	benchSetup(b)
	benchScroll(b, benchFiles.json, "application/json", benchFiles.jsonN)
}

func BenchmarkOpenMarkdown1MB(b *testing.B) {
	benchSetup(b)
	benchOpen(b, benchFiles.md, "text/markdown", benchFiles.mdN)
}

func BenchmarkScrollMarkdown1MB(b *testing.B) {
	benchSetup(b)
	benchScroll(b, benchFiles.md, "text/markdown", benchFiles.mdN)
}

// BenchmarkMarkdown1MBComplete is the time until the whole 1 MB document
// is rendered in the background (two workers), for the record.
func BenchmarkMarkdown1MBComplete(b *testing.B) {
	benchSetup(b)
	var before, after runtime.MemStats
	var m *Model
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		m = benchViewer(benchFiles.md, "text/markdown", benchFiles.mdN)
		_, cmd := m.Update(m.Load()())
		drain(m, cmd)
		if md := m.body.(*markdown); md.known != len(md.chunks) {
			b.Fatalf("rendered %d of %d chunks", md.known, len(md.chunks))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	b.ReportMetric(held/(1<<20), "heapMB")
	b.ReportMetric(held/float64(benchFiles.mdN), "x-file")
}

// drain runs cmd and every Cmd it leads to, two at a time like the
// runtime's goroutines would.
func drain(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		batch := queue[:min(len(queue), markdownWorkers)]
		queue = queue[len(batch):]
		msgs := make([]tea.Msg, len(batch))
		var wg sync.WaitGroup
		for i, c := range batch {
			if c == nil {
				continue
			}
			wg.Go(func() { msgs[i] = c() })
		}
		wg.Wait()
		for _, msg := range msgs {
			switch msg := msg.(type) {
			case tea.BatchMsg:
				queue = append(queue, msg...)
			case Msg:
				_, next := m.Update(msg)
				queue = append(queue, next)
			}
		}
	}
}

// BenchmarkMarkdown1MBRevisit is the time to jump to the end of the fully
// laid out 1 MB document and back to the top, including re-rendering (in
// the Cmds, as the runtime would run them) the chunks that were dropped
// when they left the window: what a person waits for a screen to fill.
func BenchmarkMarkdown1MBRevisit(b *testing.B) {
	benchSetup(b)
	m := benchViewer(benchFiles.md, "text/markdown", benchFiles.mdN)
	_, cmd := m.Update(m.Load()())
	drain(m, cmd)
	end, top := tea.KeyPressMsg{Code: tea.KeyEnd}, tea.KeyPressMsg{Code: tea.KeyHome}
	for b.Loop() {
		for _, k := range []tea.KeyPressMsg{end, top} {
			_, cmd := m.Update(k)
			drain(m, cmd)
			_ = m.View()
		}
	}
	if md := m.body.(*markdown); md.lines[0] == nil {
		b.Fatal("the first chunk was not rendered again")
	}
}

// BenchmarkSourceJSON20MB is the time to build the 20 MB document's text
// source view (v), which loadSource does the first time it is asked for.
func BenchmarkSourceJSON20MB(b *testing.B) {
	benchSetup(b)
	m := benchViewer(benchFiles.json, "application/json", benchFiles.jsonN)
	for b.Loop() {
		if _, err := loadSource(m.input()); err != nil {
			b.Fatal(err)
		}
	}
}
