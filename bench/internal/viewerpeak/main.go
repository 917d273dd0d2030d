// Command viewerpeak opens one file in the cockpit's artifact viewer at
// 120×40 (colored), draws its first frame and one scroll step, and prints
// how much resident memory that took at its peak, as one JSON object:
//
//	{"file_bytes":N,"rss_before":N,"rss_peak":N,"heap_before":N,"heap_held":N,"first_frame_ns":N,"scroll_ns":N}
//
// heap_before and heap_held are the live Go heap (HeapAlloc after a
// collection) before the file is touched and with the open viewer held
// after the scroll, in bytes. rss_before is VmRSS before the file is touched, rss_peak is VmHWM (the
// process's high-water mark) after the scroll, both in bytes; their
// difference over file_bytes is the viewer's peak memory as a multiple of
// the file size. bench/run runs it once per file, in a fresh process, so
// nothing else in the process has raised the mark. Usage:
//
//	viewerpeak FILE MEDIA-TYPE
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/viewer"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: viewerpeak FILE MEDIA-TYPE")
		os.Exit(2)
	}
	path, mediaType := os.Args[1], os.Args[2]
	fi, err := os.Stat(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewerpeak:", err)
		os.Exit(1)
	}
	// Build what does not depend on the file first, so its memory is in
	// the baseline.
	com := common.New(false)
	com.Width, com.Height = 120, 40
	keys := viewer.DefaultKeyMap()
	// The real digest, streamed, so the viewer's check passes (a viewer
	// that refused the file would measure its error screen).
	digest, err := fileDigest(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewerpeak:", err)
		os.Exit(1)
	}
	heapBefore := liveHeap()
	before := status("VmRSS")

	start := time.Now()
	a := runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "a", Title: filepath.Base(path), Path: filepath.Base(path), MediaType: mediaType,
			Digest: digest, Bytes: fi.Size()},
		Staged: path, Size: fi.Size(),
	}
	m := viewer.New(com, keys, viewer.Env{}, "r", a, nil, "")
	_, cmd := m.Update(m.Load()())
	// Markdown renders its first chunk in a Cmd and the rest in the
	// background: the first frame is the one after the first chunk.
	if strings.HasPrefix(mediaType, "text/markdown") && cmd != nil {
		if batch, ok := cmd().(tea.BatchMsg); ok && len(batch) > 0 && batch[0] != nil {
			m.Update(batch[0]())
		}
	}
	if err := m.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "viewerpeak: the viewer did not open the file:", err)
		os.Exit(1)
	}
	if len(m.View()) == 0 {
		fmt.Fprintln(os.Stderr, "viewerpeak: empty first frame")
		os.Exit(1)
	}
	first := time.Since(start)

	start = time.Now()
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	_ = m.View()
	scroll := time.Since(start)

	peak := status("VmHWM")
	held := liveHeap()
	runtime.KeepAlive(m)
	out, _ := json.Marshal(map[string]int64{
		"file_bytes": fi.Size(), "rss_before": before, "rss_peak": peak, "heap_before": int64(heapBefore), "heap_held": int64(held),
		"first_frame_ns": first.Nanoseconds(), "scroll_ns": scroll.Nanoseconds(),
	})
	fmt.Println(string(out))
}

// fileDigest is the file's digest (docs/protocol.md §8), streamed.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d, _, err := modproto.DigestReader(f)
	return d, err
}

// liveHeap is HeapAlloc after a collection: the bytes still reachable.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// status reads one "kB" field of /proc/self/status, in bytes; -1 when it
// cannot.
func status(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != field {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return -1
		}
		return n << 10
	}
	return -1
}
