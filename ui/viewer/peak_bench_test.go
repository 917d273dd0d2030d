package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkOpenPeak measures the peak heap of opening a table (CSV) and a
// JSON document of 2, 20 and 60 MiB (60 rather than 80: the viewer loads
// at most MaxViewBytes, 64 MiB), in the shapes of benchSetup's files, so
// growth with the size is visible:
//
//	go test ./ui/viewer -run '^$' -bench '^BenchmarkOpenPeak$' -benchtime 1x
//
// peak-x is the high-water mark of the heap's objects (runtime/metrics
// /memory/classes/heap/objects:bytes, sampled every peakSampleEvery while
// the file is read, parsed or indexed, and its first frame drawn) above
// the heap before, over the file's size; held-x is the live heap with the
// viewer open after a collection, over the file's size.
func BenchmarkOpenPeak(b *testing.B) {
	for _, kind := range []struct{ name, media string }{{"table", "text/csv"}, {"json", "application/json"}} {
		for _, mib := range []int{2, 20, 60} {
			b.Run(fmt.Sprintf("%s/%dMB", kind.name, mib), func(b *testing.B) {
				path, size := peakFile(b, kind.name, mib)
				var peak, held float64
				for b.Loop() {
					p, h := openPeak(b, path, kind.media, size)
					peak, held = max(peak, p), max(held, h)
				}
				b.ReportMetric(peak/float64(size), "peak-x")
				b.ReportMetric(held/float64(size), "held-x")
				b.ReportMetric(peak/(1<<20), "peakMB")
			})
		}
	}
}

// BenchmarkExpandAllPeak measures the peak heap of expand all (e) on a
// JSON document of 2, 20 and 60 MiB, open at its first frame: what the
// bound (maxExpandAllRows) lets it cost, over the file's size; rows is
// what the tree then shows, rows-open what it showed before.
//
//	go test ./ui/viewer -run '^$' -bench '^BenchmarkExpandAllPeak$' -benchtime 1x
func BenchmarkExpandAllPeak(b *testing.B) {
	for _, mib := range []int{2, 20, 60} {
		b.Run(fmt.Sprintf("%dMB", mib), func(b *testing.B) {
			path, size := peakFile(b, "json", mib)
			var peak, held float64
			var rows, before int
			for b.Loop() {
				m := benchViewer(path, "application/json", size)
				firstFrame(b, m)
				before = len(m.body.(*tree).rows)
				p, h := measurePeak(func() {
					m.Update(tea.KeyPressMsg{Code: 'e', Text: "e"})
					_ = m.View()
				})
				peak, held = max(peak, p), max(held, h)
				rows = len(m.body.(*tree).rows)
				runtime.KeepAlive(m)
			}
			b.ReportMetric(peak/float64(size), "peak-x")
			b.ReportMetric(held/float64(size), "held-x")
			b.ReportMetric(float64(rows), "rows")
			b.ReportMetric(float64(before), "rows-open")
		})
	}
}

// measurePeak runs f and returns the peak heap while it ran above the heap
// before, and what f left live after a collection, in bytes.
func measurePeak(f func()) (peak, held float64) {
	runtime.GC()
	base := heapObjects()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		hi := heapObjects()
		t := time.NewTicker(peakSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- max(hi, heapObjects())
				return
			case <-t.C:
				hi = max(hi, heapObjects())
			}
		}
	}()
	f()
	close(stop)
	hi := <-done
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return float64(hi) - float64(base), float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// peakSampleEvery is how often the heap is sampled while a viewer opens.
const peakSampleEvery = 200 * time.Microsecond

// openPeak opens path in a 120×40 viewer, draws the first frame, and
// returns the peak heap above the heap before, and the live heap the
// viewer holds after a collection, in bytes.
func openPeak(b *testing.B, path, media string, size int64) (peak, held float64) {
	// The digest is computed (and cached) first, so its hashing is not in
	// the measurement.
	benchViewer(path, media, size)
	var m *Model
	peak, held = measurePeak(func() {
		m = benchViewer(path, media, size)
		firstFrame(b, m)
	})
	runtime.KeepAlive(m)
	return peak, held
}

// heapObjects is the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakFiles are generated once per process, by kind and size.
var peakFiles sync.Map

// peakFile writes (once) a kind ("table" or "json") file of about mib MiB:
// benchSetup's CSV rows (a quoted newline in each) or its JSON records.
func peakFile(b *testing.B, kind string, mib int) (string, int64) {
	benchSetup(b)
	name := fmt.Sprintf("%s-%d", kind, mib)
	if p, ok := peakFiles.Load(name); ok {
		fi, err := os.Stat(p.(string))
		if err != nil {
			b.Fatal(err)
		}
		return p.(string), fi.Size()
	}
	var sb strings.Builder
	if kind == "table" {
		sb.WriteString("id,name,city,amount,note\n")
		for i := 0; sb.Len() < mib<<20; i++ {
			fmt.Fprintf(&sb, "%d,name %d,\"City, %d\",%d.%02d,\"a note\nwith a newline\"\n", i, i, i%97, i*7, i%100)
		}
	} else {
		sb.WriteString("[")
		for i := 0; sb.Len() < mib<<20; i++ {
			if i > 0 {
				sb.WriteString(",\n")
			}
			fmt.Fprintf(&sb, `{"id":%d,"name":"item %d","tags":["a","b","c"],"price":%d.5,"ok":true,"nested":{"x":%d,"y":[1,2,3],"note":"some text to make the record longer, like real data"}}`, i, i, i, i)
		}
		sb.WriteString("]")
	}
	p := filepath.Join(benchFiles.dir, name)
	if err := os.WriteFile(p, []byte(sb.String()), 0o444); err != nil {
		b.Fatal(err)
	}
	peakFiles.Store(name, p)
	return p, int64(sb.Len())
}
