package runner_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
)

// hintSource yields its drivers' modules with effects derived from hints,
// as the MCP source does.
type hintSource struct{ runnertest.Source }

func (s hintSource) Candidates() []runner.Candidate {
	out := s.Source.Candidates()
	for i := range out {
		out[i].EffectsAreHints = true
	}
	return out
}

// TestApprovalEffectsAreHints checks docs/protocol.md §11's rule for MCP tools: an
// unknown cost does not by itself ask when effects are hints; open world
// and not read-only ask, and the reasons say the annotations are the
// server's hints. The same descriptor from an ordinary source asks for
// the unknown cost.
func TestApprovalEffectsAreHints(t *testing.T) {
	d := &modproto.Descriptor{
		Module: "hinted", Name: "Hinted", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{
			{ID: "read", Summary: "Read-only, closed world.", Effects: modproto.Effects{Local: true}},
			{ID: "open", Summary: "Open world.", Effects: modproto.Effects{Local: true, Network: true}},
			{ID: "write", Summary: "Not read-only.", Effects: modproto.Effects{Local: true, ExternalWrites: true}},
		},
		Permissions: modproto.Permissions{Network: []string{"*"}},
	}
	d.Normalize()
	for _, hints := range []bool{true, false} {
		cfg, err := config.Load(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		h := runner.NewHost(cfg)
		src := runnertest.Source{Drivers: []*runnertest.Driver{runnertest.New(d, nil)}}
		if hints {
			h.AddSource(hintSource{src})
		} else {
			h.AddSource(src)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var m *runner.Module
		for _, x := range h.Discover(ctx) {
			if x.ID == "hinted" {
				m = x
			}
		}
		if m == nil || m.EffectsAreHints != hints {
			t.Fatalf("hints=%v: module %+v", hints, m)
		}
		for _, tc := range []struct {
			capID string
			want  []string
		}{
			{"read", nil},
			{"open", []string{"network"}},
			{"write", []string{"write"}},
		} {
			p, err := h.Plan(m, tc.capID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !hints {
				if !slices.Contains(p.Approval, "cost unknown before running") {
					t.Errorf("declared effects, %s: approval %q lacks the unknown cost", tc.capID, p.Approval)
				}
				continue
			}
			if len(p.Approval) != len(tc.want) {
				t.Fatalf("hints, %s: approval %q, want %d reasons", tc.capID, p.Approval, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(p.Approval[i], w) || !strings.Contains(p.Approval[i], "the server's hints") {
					t.Errorf("hints, %s: reason %q should name %q and say annotations are hints", tc.capID, p.Approval[i], w)
				}
			}
		}
	}
}
