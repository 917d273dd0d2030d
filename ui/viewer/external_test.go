package viewer

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"modbay/modproto"
	"modbay/render"
)

// recordingPager writes a pager script into dir that records its argument,
// the copy's mode and its contents in dir/record, and returns its path.
func recordingPager(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "pager.sh")
	script := "#!/bin/sh\n{ echo \"arg=$1\"; stat -c 'mode=%a' \"$1\"; echo ---; cat \"$1\"; } > " + filepath.Join(dir, "record") + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSanitizedCopy(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) (string, render.Meta) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o444); err != nil {
			t.Fatal(err)
		}
		return p, render.Meta{MediaType: "text/plain", Bytes: int64(len(b)), Digest: modproto.Digest(b), Verified: true}
	}
	// Escape sequences, a bare CR and C1 CSI become inert glyphs.
	p, meta := write("evil.txt", []byte("title\x1b]52;c;cHduZWQ=\x07\nline\r over\n\u009b2J\tend"))
	text, what, err := sanitizedCopy(meta, p, modproto.PresentationText)
	if err != nil {
		t.Fatal(err)
	}
	if what != whatText || strings.ContainsAny(text, "\x1b\x07\r\u009b") {
		t.Fatalf("copy (%s) keeps control bytes: %q", what, text)
	}
	if !strings.Contains(text, "␛]52;c;cHduZWQ=␇") || !strings.HasSuffix(text, "end\n") {
		t.Fatalf("copy does not show the escapes as glyphs: %q", text)
	}
	// Binary: a hex head, never the bytes.
	p, meta = write("x.png", append([]byte("\x89PNG\r\n\x1a\n\x00\x1b[2J"), make([]byte, 300)...))
	meta.MediaType = "image/png"
	text, what, err = sanitizedCopy(meta, p, modproto.PresentationImage)
	if err != nil || what != whatHex || !strings.Contains(text, "Type:   image/png") || strings.Contains(text, "\x1b") {
		t.Fatalf("binary copy (%s, %v): %q", what, err, text)
	}
	// A staged file changed since it was verified is refused.
	meta.Digest = modproto.Digest([]byte("other"))
	if _, _, err := sanitizedCopy(meta, p, modproto.PresentationImage); !errors.Is(err, ErrChanged) {
		t.Fatalf("changed file: err %v, want ErrChanged", err)
	}
}

func TestDetectExternal(t *testing.T) {
	look := func(name string) (string, error) {
		if name == "less" || name == "vim" {
			return "/usr/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	var e Env
	detectExternal(&e, env(nil), look)
	if e.Pager != "less" || e.Editor != "" {
		t.Fatalf("unset: pager %q editor %q, want less and none", e.Pager, e.Editor)
	}
	e = Env{}
	detectExternal(&e, env(map[string]string{"PAGER": "most -s", "EDITOR": "vim -u NONE"}), look)
	if e.Pager != "" || e.Editor != "vim -u NONE" {
		t.Fatalf("missing pager, set editor: pager %q editor %q", e.Pager, e.Editor)
	}
	if why := e.CannotOpen(ToolEditor); !strings.Contains(why, "No home") {
		t.Fatalf("no tmp dir: %q", why)
	}
	e.TmpDir = "/x"
	if why := e.CannotOpen(ToolPager); !strings.Contains(why, "$PAGER") {
		t.Fatalf("no pager: %q", why)
	}
	if !e.CanOpen(ToolEditor) || e.CanOpen(ToolPager) || e.ToolName(ToolEditor) != "vim" {
		t.Fatalf("CanOpen editor %v pager %v, name %q", e.CanOpen(ToolEditor), e.CanOpen(ToolPager), e.ToolName(ToolEditor))
	}
	// Neither set: editor, then vi, as git does; the name says so.
	withVi := func(name string) (string, error) {
		if name == "vi" {
			return "/usr/bin/vi", nil
		}
		return look(name)
	}
	e = Env{}
	detectExternal(&e, env(nil), withVi)
	if e.Editor != "vi" || e.ToolName(ToolEditor) != "vi ($VISUAL and $EDITOR unset)" {
		t.Fatalf("fallback: editor %q, name %q", e.Editor, e.ToolName(ToolEditor))
	}
}

// execModel runs one Cmd in a real program and keeps the OpenedCopyMsg.
type execModel struct {
	cmd tea.Cmd
	got *OpenedCopyMsg
}

func (m execModel) Init() tea.Cmd { return m.cmd }
func (m execModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if oc, ok := msg.(OpenedCopyMsg); ok {
		*m.got = oc
		return m, tea.Quit
	}
	return m, nil
}
func (m execModel) View() tea.View { return tea.NewView("waiting") }

// TestOpenCopyRunsThePager runs OpenCopy in a real program with a pager
// that records what it got: a 0600 sanitized copy under the tmp dir,
// removed once the pager exits, and a note that says so.
func TestOpenCopyRunsThePager(t *testing.T) {
	dir := t.TempDir()
	src := []byte("# Report\x1b[2J\n\nok\n")
	art := filepath.Join(dir, "report.md")
	if err := os.WriteFile(art, src, 0o444); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "home", "tmp")
	env := Env{Pager: recordingPager(t, dir), TmpDir: tmp}
	meta := render.Meta{MediaType: "text/markdown", Bytes: int64(len(src)), Digest: modproto.Digest(src), Verified: true}
	var got OpenedCopyMsg
	tm := teatest.NewTestModel(t, execModel{cmd: OpenCopy(env, ToolPager, meta, art, modproto.PresentationMarkdown), got: &got})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if got.Err != nil {
		t.Fatal(got.Err)
	}
	rec, err := os.ReadFile(filepath.Join(dir, "record"))
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := bytes.Cut(rec, []byte("---\n"))
	if !bytes.Contains(head, []byte("arg="+filepath.Join(tmp, copyPrefix))) || !bytes.Contains(head, []byte("mode=600")) {
		t.Fatalf("pager got:\n%s", head)
	}
	if !strings.Contains(string(head), ".md\n") {
		t.Fatalf("the copy of a markdown file is not named .md:\n%s", head)
	}
	if want := "# Report␛[2J\n\nok\n"; string(body) != want {
		t.Fatalf("pager read %q, want %q", body, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the copy is left in %s: %v", tmp, left)
	}
	if n := got.Note(); n != "Opened a sanitized copy (its text) in pager.sh." {
		t.Fatalf("note %q", n)
	}
}
