package viewer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/runner"
)

// Tool is a terminal program outside the cockpit that opens a sanitized
// copy of an artifact: the pager (O) or the editor (E). The cockpit
// suspends while it runs (tea.ExecProcess), so it works over SSH with no
// display.
type Tool int

const (
	// ToolPager is $PAGER, else less.
	ToolPager Tool = iota
	// ToolEditor is $VISUAL, else $EDITOR (offered only when one is set).
	ToolEditor
)

// defaultPager is the pager used when $PAGER is unset.
const defaultPager = "less"

// What a sanitized copy holds, as the status line says it.
const (
	whatText = "its text"
	whatHex  = "a hex head"
)

// copyPrefix begins every sanitized copy's file name in the home's tmp.
const copyPrefix = "modbay-copy-"

// externalCommand is the command line of tool in env ("" when none).
func (e Env) externalCommand(t Tool) string {
	if t == ToolEditor {
		return e.Editor
	}
	return e.Pager
}

// CanOpen reports whether tool t can open a sanitized copy: its command
// is known and there is a directory to write the copy into.
func (e Env) CanOpen(t Tool) bool { return e.externalCommand(t) != "" && e.TmpDir != "" }

// CannotOpen says why tool t cannot open a copy, "" when it can.
func (e Env) CannotOpen(t Tool) string {
	switch {
	case e.TmpDir == "":
		return "No home to write a sanitized copy into: s saves a copy."
	case e.externalCommand(t) != "":
		return ""
	case t == ToolEditor:
		return "No editor: set $VISUAL or $EDITOR to a program on PATH (neither editor nor vi was found)."
	default:
		return "No pager: set $PAGER to a program on PATH (less was not found)."
	}
}

// ToolName is the program's name as the status line says it ("less").
func (e Env) ToolName(t Tool) string {
	f := strings.Fields(e.externalCommand(t))
	if len(f) == 0 {
		return ""
	}
	name := render.SanitizeLine(filepath.Base(f[0]))
	if t == ToolEditor && e.EditorFrom == "" {
		name += " ($VISUAL and $EDITOR unset)"
	}
	return name
}

// detectExternal fills the pager and the editor from the environment:
// a command whose program is not found on PATH is left out, so O and E
// are offered only where they act.
func detectExternal(e *Env, getenv func(string) string, look func(string) (string, error)) {
	found := func(cmd string) string {
		f := strings.Fields(cmd)
		if len(f) == 0 {
			return ""
		}
		if _, err := look(f[0]); err != nil {
			return ""
		}
		return strings.TrimSpace(cmd)
	}
	pager := strings.TrimSpace(getenv("PAGER"))
	if pager == "" {
		pager = defaultPager
	}
	e.Pager = found(pager)
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if ed := strings.TrimSpace(getenv(v)); ed != "" {
			e.Editor, e.EditorFrom = found(ed), "$"+v
			break
		}
	}
	if e.EditorFrom == "" {
		// Neither is set: fall back as git does.
		for _, ed := range fallbackEditors {
			if e.Editor = found(ed); e.Editor != "" {
				break
			}
		}
	}
}

// fallbackEditors are tried in order when $VISUAL and $EDITOR are unset.
var fallbackEditors = []string{"editor", "vi"}

// OpenedCopyMsg is the end of a pager or editor run on a sanitized copy;
// the copy is removed before it is sent.
type OpenedCopyMsg struct {
	// Tool is the program's kind, Name its name ("less").
	Tool Tool
	Name string
	// What is what the copy held: whatText, whatHex.
	What string
	Err  error
}

// Note is the status line's sentence for m: what was opened, and how.
func (m OpenedCopyMsg) Note() string {
	if m.Err != nil {
		return fmt.Sprintf("Could not open a sanitized copy in %s: %s", m.Name, m.Err)
	}
	s := fmt.Sprintf("Opened a sanitized copy (%s) in %s", m.What, m.Name)
	if m.Tool == ToolEditor {
		s += "; the copy is removed, edits are not kept"
	}
	return s + "."
}

// OpenCopy returns the Cmd that writes a sanitized copy of the artifact
// at path (described by meta, presented as pres) under env.TmpDir (mode
// 0600) and runs tool on it with the cockpit suspended; the copy is
// removed when the tool exits, and an OpenedCopyMsg says how it went.
// Module bytes never reach the terminal raw: text is render.SanitizeText's,
// anything else what the source view shows of it (type, size, digest and a
// hex head).
func OpenCopy(env Env, t Tool, meta render.Meta, path, pres string) tea.Cmd {
	name := env.ToolName(t)
	argv := strings.Fields(env.externalCommand(t))
	dir := env.TmpDir
	return func() tea.Msg {
		fail := func(err error) tea.Msg { return OpenedCopyMsg{Tool: t, Name: name, Err: err} }
		if len(argv) == 0 || dir == "" {
			return fail(errors.New("no program or no home to write the copy into"))
		}
		text, what, err := sanitizedCopy(meta, path, pres)
		if err != nil {
			return fail(err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fail(err)
		}
		ext := ".txt"
		if what == whatText {
			ext = copyExt(path)
		}
		f, err := os.CreateTemp(dir, copyPrefix+"*"+ext)
		if err != nil {
			return fail(err)
		}
		tmp := f.Name()
		_, werr := f.WriteString(text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(tmp)
			return fail(werr)
		}
		c := exec.Command(argv[0], append(argv[1:], tmp)...)
		// The Cmd tea.ExecProcess returns yields the message that makes the
		// program release the terminal, run c and send the callback's.
		return tea.ExecProcess(c, func(err error) tea.Msg {
			os.Remove(tmp)
			return OpenedCopyMsg{Tool: t, Name: name, What: what, Err: err}
		})()
	}
}

// OpenArtifactCopy is OpenCopy for a run's verified artifact a.
func OpenArtifactCopy(env Env, t Tool, a runner.VerifiedArtifact) tea.Cmd {
	meta := metaOf(a)
	return OpenCopy(env, t, meta, a.Staged, render.Resolve(meta.Presentation, meta.MediaType))
}

// sanitizedCopy is the text a pager or editor gets for the file at path:
// its text sanitized (decoded first when the presentation decodes text),
// or, for a binary file or one over MaxViewBytes, its type, size, digest
// and a hex head. Bytes that no longer hash to a verified digest are
// refused (an error wrapping ErrChanged).
func sanitizedCopy(meta render.Meta, path, pres string) (text, what string, err error) {
	in := loadInput{meta: meta, path: path, pres: pres}
	if meta.Bytes > MaxViewBytes {
		return hexText(in, meta.Bytes, meta.Digest), whatHex, nil
	}
	src, err := readCapped(path, MaxViewBytes+1)
	if err != nil {
		return "", "", err
	}
	if meta.Verified && meta.Digest != "" {
		if err := checkBytes(meta.Digest, src); err != nil {
			return "", "", err
		}
	}
	if render.DecodesText(pres) {
		src, _ = render.DecodeText(src)
	}
	if render.IsBinary(src) {
		return hexText(in, int64(len(src)), meta.Digest), whatHex, nil
	}
	text = render.SanitizeText(string(src))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text, whatText, nil
}

// hexText is hexSource's text for a file of size bytes.
func hexText(in loadInput, size int64, digest string) string {
	head, _ := readCapped(in.path, sourceHexBytes)
	return hexSourceText(in.meta.MediaType, size, digest, head)
}

// copyExt is the copy's file extension, the artifact's own when it is
// short and plain (so an editor picks its syntax), else ".txt".
func copyExt(path string) string {
	ext := filepath.Ext(path)
	if len(ext) < 2 || len(ext) > 9 {
		return ".txt"
	}
	for _, c := range ext[1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ".txt"
		}
	}
	return ext
}
