package runner

import (
	"path/filepath"
	"testing"

	"modbay/config"
)

// TestGlobalsLine: a line names a home other than the default and a
// workspace other than the home's, before the subcommand, quoted; the
// defaults add nothing.
func TestGlobalsLine(t *testing.T) {
	def := filepath.Join(t.TempDir(), "xdg")
	t.Setenv("XDG_DATA_HOME", def)
	cfg := &config.Config{Home: filepath.Join(def, "modbay"), Workspace: filepath.Join(def, "modbay", "workspace")}
	if got := GlobalsOf(cfg).Line("jobs", "wait", "req_1"); got != "modbay jobs wait req_1" {
		t.Errorf("default home and workspace: %q", got)
	}
	cfg = &config.Config{Home: "/srv/my home", Workspace: "/srv/ws"}
	g := GlobalsOf(cfg).For(&Module{Origin: OriginExamples})
	if got, want := g.Line("invoke", "notes", "notes.report", "--input", "{}"), `modbay --home '/srv/my home' --workspace /srv/ws --examples invoke notes notes.report --input '{}'`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
