// Command viewerkey shows one file in the cockpit's artifact viewer as the
// cockpit runs it: a Bubble Tea program on the terminal it is started on,
// alt screen, the viewer's own keys, q to quit. bench/run starts it on a
// pseudo-terminal and times a key to the first byte of the answer, beside
// less on the same file. Usage:
//
//	viewerkey [-fps N] FILE MEDIA-TYPE
//
// -fps sets the renderer's frame rate (Bubble Tea's default, 60, when 0),
// to weigh what the renderer's ticker costs a key.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/viewer"
)

// model hosts the viewer alone, sized by the terminal.
type model struct {
	com *common.Common
	v   *viewer.Model
}

func (m model) Init() tea.Cmd { return m.v.Load() }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.com.Width, m.com.Height = msg.Width, msg.Height
		m.v.SetSize(msg.Width, msg.Height)
		return m, m.v.Reflow()
	case tea.KeyPressMsg:
		if msg.String() == "q" || msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
	}
	_, cmd := m.v.Update(msg)
	return m, cmd
}

func (m model) View() tea.View {
	v := tea.NewView(m.v.View())
	v.AltScreen = true
	return v
}

func main() {
	fps := flag.Int("fps", 0, "the renderer's frame rate (0: Bubble Tea's default)")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: viewerkey [-fps N] FILE MEDIA-TYPE")
		os.Exit(2)
	}
	path, mediaType := flag.Arg(0), flag.Arg(1)
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewerkey:", err)
		os.Exit(1)
	}
	digest, size, err := modproto.DigestReader(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewerkey:", err)
		os.Exit(1)
	}
	com := common.New(false)
	com.Width, com.Height = 80, 24
	a := runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "a", Title: filepath.Base(path), Path: filepath.Base(path), MediaType: mediaType,
			Digest: digest, Bytes: size},
		Staged: path, Size: size,
	}
	m := model{com: com, v: viewer.New(com, viewer.DefaultKeyMap(), viewer.Env{}, "r", a, nil, "")}
	opts := []tea.ProgramOption{}
	if *fps > 0 {
		opts = append(opts, tea.WithFPS(*fps))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "viewerkey:", err)
		os.Exit(1)
	}
}
