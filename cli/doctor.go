package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/contain"
	"modbay/mcp"
	"modbay/runner"
)

// trialExecutables are the programs `modbay doctor` starts contained, the
// first that exists: tiny, present on every Linux.
var trialExecutables = []string{"/usr/bin/true", "/bin/true"}

// DoctorOptions is what `modbay doctor` was asked to do.
type DoctorOptions struct {
	IO *ioStreams
	G  *globals
	// JSON prints the report as JSON (doctorReport).
	JSON bool
}

// newDoctorCommand builds `modbay doctor`; runF, when non-nil, replaces
// doctorRun.
func newDoctorCommand(g *globals, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what containment this machine supports, and what a module run would get",
		Long: `Report what this machine offers to contain modules (Landlock and its ABI, user,
PID and network namespaces, seccomp, whether modbay runs as root) and why
something is missing; the config's sandbox mode; then start a trial process
contained exactly as a module's describe would be (the config's limits
included) and list what was enforced, layer by layer, as applied.

Exit status: 0 when the trial was fully contained (every layer enforced, so
sandbox: require runs modules here); 1 when some layer was not enforced (the
report says which and why: sandbox: require would refuse every module, and
sandbox: auto runs them and records the gap); 2 usage (a config that does not
load).`,
		Example: `  modbay doctor
  modbay doctor --json | jq .require_would_run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// doctorReport is what `modbay doctor` found; --json prints it as is.
type doctorReport struct {
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
	// Support is contain.Probe(): each mechanism, with why when missing;
	// Mechanisms is the same as lines for a person.
	Support    contain.Support `json:"support"`
	Mechanisms []string        `json:"mechanisms"`
	// Config is the config file's path and ConfigExists whether there is
	// one; Sandbox the mode it sets ("auto" when unset or no file).
	Config       string `json:"config"`
	ConfigExists bool   `json:"config_exists"`
	Sandbox      string `json:"sandbox"`
	// TrialProgram is the executable started for the trial; Trial is
	// what containment applied to it (sandbox: auto, the config's
	// limits); TrialError says why it did not start or failed.
	TrialProgram string          `json:"trial_program"`
	Trial        *enforcementOut `json:"trial,omitempty"`
	TrialError   string          `json:"trial_error,omitempty"`
	// Full is true when the trial was fully contained (exit 0).
	Full bool `json:"full"`
	// RequireWouldRun is whether sandbox: require starts modules here: the
	// same as Full (a network grant is never a gap).
	RequireWouldRun bool `json:"require_would_run"`
	// Verdict is the conclusion in one sentence.
	Verdict string `json:"verdict"`
	// Interpreters say, per MCP server whose command runs through a
	// version manager, what it resolves to and what the sandbox grants it.
	Interpreters []string `json:"interpreters,omitempty"`
}

// doctorRun probes, runs the trial, prints the report and exits 0 when
// the trial was fully contained, 1 otherwise.
func doctorRun(ctx context.Context, o *DoctorOptions) error {
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	sup := contain.Probe()
	rep := doctorReport{
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Support:  sup, Mechanisms: sup.Lines(),
		Config: filepath.Join(home, config.FileName), Sandbox: cfg.Sandbox,
	}
	if _, err := os.Stat(rep.Config); err == nil {
		rep.ConfigExists = true
	}
	if rep.Sandbox == "" {
		rep.Sandbox = config.SandboxAuto
	}
	enf, err := trialRun(ctx, runner.NewHost(cfg), &rep.TrialProgram)
	if recorded(enf) {
		e := enforcementJSON(enf)
		rep.Trial = &e
	}
	if err != nil {
		rep.TrialError = err.Error()
	} else {
		rep.Full = enf.Complete()
	}
	rep.RequireWouldRun = rep.Full
	rep.Verdict = doctorVerdict(rep)
	for _, id := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		if in, ok := mcp.InterpreterOf(cfg.MCPServers[id], nil); ok {
			rep.Interpreters = append(rep.Interpreters, fmt.Sprintf("mcp server %s: %s runs %s; the sandbox grants read and execute of %s (its install tree), nothing else of the home",
				id, in.Manager, in.Path, strings.Join(in.Trees, ", ")))
		}
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, rep); err != nil {
			return err
		}
	} else {
		writeDoctor(o.IO.Out, rep)
	}
	if !rep.Full {
		return silentExit(1)
	}
	return nil
}

// trialRun starts a trial executable as host would start a module's
// describe (its containment spec: config limits, no root, no network),
// always in sandbox: auto so every gap is seen rather than refused, waits
// for it and returns what was enforced. *program is set to the executable.
func trialRun(ctx context.Context, host *runner.Host, program *string) (contain.Enforcement, error) {
	exe := ""
	for _, p := range trialExecutables {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			exe = r
			break
		}
	}
	if exe == "" {
		return contain.Enforcement{}, fmt.Errorf("no trial program: none of %v exists", trialExecutables)
	}
	*program = exe
	dir, err := os.MkdirTemp("", "modbay-doctor-")
	if err != nil {
		return contain.Enforcement{}, err
	}
	defer os.RemoveAll(dir)
	spec := host.ContainSpec(filepath.Dir(exe))
	spec.Module, spec.RunDir, spec.Mode = exe, dir, contain.ModeAuto
	cmd := exec.CommandContext(ctx, exe)
	cmd.Dir = dir
	cmd.Env = []string{"TMPDIR=" + dir}
	_, enf, err := contain.Start(cmd, spec)
	if err != nil {
		return enf, fmt.Errorf("start %s: %w", exe, err)
	}
	if err := cmd.Wait(); err != nil {
		return enf, fmt.Errorf("%s contained: %w", exe, err)
	}
	return enf, nil
}

// doctorVerdict is rep's conclusion in one sentence.
func doctorVerdict(rep doctorReport) string {
	switch {
	case rep.Trial == nil:
		return "the trial process did not run: containment is unknown here, and sandbox: require would refuse modules"
	case rep.Full && rep.Sandbox == config.SandboxOff:
		return "full containment is available here, but the config says sandbox: off: modules run uncontained"
	case rep.Full:
		return "full containment: every layer is enforced here, and sandbox: require runs modules"
	}
	v := fmt.Sprintf("not fully contained here (%s): sandbox: require would refuse every module", count(len(rep.Trial.Gaps), "gap", "gaps"))
	switch rep.Sandbox {
	case config.SandboxAuto:
		v += "; sandbox: auto (configured) runs them and records what was not enforced"
	case config.SandboxOff:
		v += "; the config says sandbox: off: modules run uncontained"
	}
	return v
}

// writeDoctor prints rep for a person.
func writeDoctor(w io.Writer, rep doctorReport) {
	fmt.Fprintf(w, "containment on this machine (%s):\n", rep.Platform)
	for _, l := range rep.Mechanisms {
		fmt.Fprintf(w, "  %s\n", clean(l))
	}
	if rep.ConfigExists {
		fmt.Fprintf(w, "config: sandbox: %s (%s)\n", clean(rep.Sandbox), clean(rep.Config))
	} else {
		fmt.Fprintf(w, "config: sandbox: %s (the default: there is no %s)\n", clean(rep.Sandbox), clean(rep.Config))
	}
	if rep.Trial != nil {
		fmt.Fprintf(w, "trial: %s, started as a module's describe would be, got\n", clean(rep.TrialProgram))
		writeEnforcement(w, rep.Trial.Enforcement, true)
	}
	if rep.TrialError != "" {
		fmt.Fprintf(w, "trial: %s\n", clean(rep.TrialError))
	}
	for _, l := range rep.Interpreters {
		fmt.Fprintf(w, "interpreter: %s\n", clean(l))
	}
	fmt.Fprintf(w, "verdict: %s\n", rep.Verdict)
}
