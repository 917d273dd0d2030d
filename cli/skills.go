package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/contain"
	"modbay/render"
	"modbay/runner"
	"modbay/skills"
)

// SkillsOptions is what `modbay skills …` was asked to do.
type SkillsOptions struct {
	IO *ioStreams
	G  *globals
	// Command is the subcommand: list, show, check, run or prompt.
	Command string
	// JSON prints JSON.
	JSON bool
	// Dirs are the folders `skills list DIR…` names (only these are
	// listed, without the modules' skills).
	Dirs []string
	// Name is the skill `show`/`run` names: a listed name, a module's
	// "<module>/<id>", or a path to a skill folder.
	Name string
	// Args are `--arg name=value` pairs.
	Args []string
	// Script and ScriptArgs are what `skills run` runs.
	Script     string
	ScriptArgs []string
	// Load are the skills `skills prompt --load` activates; Output is
	// its -o file.
	Load   []string
	Output string
}

// newSkillsCommand builds `modbay skills` (list), `skills list`, `skills
// show` (alias render), `skills check` (alias validate), `skills run` and
// `skills prompt`; runF, when non-nil, replaces every run function.
func newSkillsCommand(g *globals, runF func(context.Context, *SkillsOptions) error) *cobra.Command {
	do := func(ctx context.Context, o *SkillsOptions, f func(context.Context, *SkillsOptions) error) error {
		if runF != nil {
			return runF(ctx, o)
		}
		return f(ctx, o)
	}
	list := &SkillsOptions{IO: g.io, G: g, Command: "list"}
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List, show, check and run Agent Skills and module skills",
		Long: `Skills are SKILL.md folders (<project>/.agents/skills, ~/.agents/skills, the
config's skills.dirs and --skills DIR) and the skills and agent overlays that
modules declare. Without a subcommand, lists them all (docs/skills.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return do(cmd.Context(), list, skillsListRun) },
	}
	cmd.Flags().BoolVar(&list.JSON, "json", false, "print JSON")

	listDirs := &SkillsOptions{IO: g.io, G: g, Command: "list"}
	listCmd := &cobra.Command{
		Use:   "list [DIR...]",
		Short: "List skills: every source, or only the folders named",
		RunE: func(cmd *cobra.Command, args []string) error {
			listDirs.Dirs = args
			return do(cmd.Context(), listDirs, skillsListRun)
		},
	}
	listCmd.Flags().BoolVar(&listDirs.JSON, "json", false, "print JSON")

	show := &SkillsOptions{IO: g.io, G: g, Command: "show"}
	showCmd := &cobra.Command{
		Use:     "show NAME|DIR",
		Aliases: []string{"render"},
		Short:   "Print what an agent would be given: the body rendered with arguments",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			show.Name = args[0]
			return do(cmd.Context(), show, skillsShowRun)
		},
	}
	showCmd.Flags().BoolVar(&show.JSON, "json", false, "print JSON")
	showCmd.Flags().StringArrayVar(&show.Args, "arg", nil, "argument `name=value` (repeatable)")

	check := &SkillsOptions{IO: g.io, G: g, Command: "check"}
	checkCmd := &cobra.Command{
		Use:     "check DIR",
		Aliases: []string{"validate"},
		Short:   "Check a skill folder (or a folder of skills) strictly; exit 1 on a broken rule",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			check.Dirs = args
			return do(cmd.Context(), check, skillsCheckRun)
		},
	}
	checkCmd.Flags().BoolVar(&check.JSON, "json", false, "print JSON")

	run := &SkillsOptions{IO: g.io, G: g, Command: "run"}
	runCmd := &cobra.Command{
		Use:   "run NAME|DIR SCRIPT [-- ARGS...]",
		Short: "Run a skill's script contained (needs skills.scripts: true in config.yaml)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			run.Name, run.Script, run.ScriptArgs = args[0], args[1], args[2:]
			return do(cmd.Context(), run, skillsRunRun)
		},
	}
	runCmd.Flags().BoolVar(&run.JSON, "json", false, "print JSON")
	prompt := &SkillsOptions{IO: g.io, G: g, Command: "prompt"}
	promptCmd := &cobra.Command{
		Use:   "prompt [--load NAME]... [--arg k=v]... [-o FILE]",
		Short: "Print what the agent sees: the catalog of available skills and the loaded skills' text",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return do(cmd.Context(), prompt, skillsPromptRun) },
	}
	promptCmd.Flags().StringArrayVar(&prompt.Load, "load", nil, "load the skill `NAME` (a listed name, <module>/<id> or a folder; repeatable)")
	promptCmd.Flags().StringArrayVar(&prompt.Args, "arg", nil, "argument `name=value` for the loaded skills (repeatable)")
	promptCmd.Flags().StringVarP(&prompt.Output, "output", "o", "", "write the markdown to `FILE` instead of stdout")
	cmd.AddCommand(listCmd, showCmd, checkCmd, runCmd, promptCmd)
	return cmd
}

// skillFolders is where skills are looked for (docs/skills.md): the
// project's .agents/skills — the project of --workspace when given, else
// of the current folder — the home's, the config's skills.dirs and
// --skills (relative to the current folder).
func skillFolders(cfg *config.Config, g *globals) []skills.Folder {
	return skillFoldersAt(cfg, g.skills, g.workspace)
}

// skillFoldersAt is skillFolders with the project's skills those of the
// project of dir ("": the current folder): serve's are its workspace's.
func skillFoldersAt(cfg *config.Config, flagDirs []string, dir string) []skills.Folder {
	cwd, _ := os.Getwd()
	if dir == "" {
		dir = cwd
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	userHome, _ := os.UserHomeDir()
	return skills.Folders(dir, userHome, cfg.Skills.Dirs, absAll(flagDirs))
}

// writableRoots are the folders modules may write: the workspace and the
// state folders. A skill found there may have been written by a module.
func writableRoots(cfg *config.Config) []string {
	return []string{cfg.Workspace, filepath.Join(cfg.Home, "state")}
}

// moduleDocJSON is one module skill or overlay in --json output.
type moduleDocJSON struct {
	skills.Doc
	// Name is how `skills show` names it: "<module>/<id>".
	Name string `json:"name"`
	// Status is "ok", "drifted" or "unreadable".
	Status string `json:"status"`
	// ActualDigest is the file's digest when it drifted.
	ActualDigest string `json:"actualDigest,omitempty"`
	Error        string `json:"error,omitempty"`
	// TokenText is the estimate as shown ("≈" when modbay's).
	TokenText string `json:"tokenText,omitempty"`
}

// checkDoc loads doc to verify it.
func checkDoc(doc skills.Doc) (moduleDocJSON, []byte) {
	j := moduleDocJSON{Doc: doc, Name: doc.Module + "/" + doc.ID, Status: "ok"}
	b, err := doc.Load()
	var de *skills.DriftError
	switch {
	case errors.As(err, &de):
		j.Status, j.ActualDigest, j.Error = "drifted", de.Actual, err.Error()
	case err != nil:
		j.Status, j.Error = "unreadable", err.Error()
	}
	j.TokenText = skills.TokenText(doc.Tokens, len(b))
	return j, b
}

// moduleDocs discovers the modules and lists their documents.
func moduleDocs(ctx context.Context, host *runner.Host) []skills.Doc {
	var docs []skills.Doc
	for _, m := range host.Discover(ctx) {
		docs = append(docs, skills.Docs(m.ID, m.Dir, m.Descriptor)...)
	}
	return docs
}

// skillsListRun lists folder skills and (without DIRs) module documents.
func skillsListRun(ctx context.Context, o *SkillsOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	cfg := e.host.Config()
	var folders []skills.Folder
	var docs []moduleDocJSON
	if len(o.Dirs) > 0 {
		folders = skills.Folders("", "", nil, absAll(o.Dirs))
	} else {
		folders = skillFolders(cfg, o.G)
		for _, d := range moduleDocs(ctx, e.host) {
			j, _ := checkDoc(d)
			docs = append(docs, j)
		}
	}
	cat := skills.Scan(folders, writableRoots(cfg))
	if o.JSON {
		if docs == nil {
			docs = []moduleDocJSON{}
		}
		if cat.Skills == nil {
			cat.Skills = []skills.Record{}
		}
		return writeJSON(o.IO.Out, struct {
			Skills  []skills.Record `json:"skills"`
			Modules []moduleDocJSON `json:"modules"`
			Missing []string        `json:"missing,omitempty"`
		}{cat.Skills, docs, cat.Missing})
	}
	tw := tabwriter.NewWriter(o.IO.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTOKENS\tSTATUS\tDESCRIPTION")
	for _, r := range cat.Skills {
		src := r.Source
		if r.ModuleWritable {
			src += " (modules may write it)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cleanID(r.Key.Name), src, skills.TokenText(0, r.Bytes), recordStatus(r), clean(shorten(r.Description, 60)))
	}
	for _, d := range docs {
		fmt.Fprintf(tw, "%s\tmodule %s\t%s\t%s\t%s\n", cleanID(d.Name), d.Kind, d.TokenText, d.Status, clean(shorten(firstNonEmpty(d.Summary, d.Title), 60)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(cat.Skills) == 0 && len(docs) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No skills found. Looked in:", strings.Join(folderPaths(folders), ", "))
	}
	return nil
}

// recordStatus is a folder skill's status column: "ok", "N warnings" or
// "unusable".
func recordStatus(r skills.Record) string {
	switch {
	case !r.Usable():
		return "unusable"
	case len(r.Warnings) == 1:
		return "1 warning"
	case len(r.Warnings) > 1:
		return fmt.Sprintf("%d warnings", len(r.Warnings))
	}
	return "ok"
}

// argValues reads --arg name=value pairs.
func argValues(args []string) (map[string]string, error) {
	values := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, withCode(ExitUsage, "--arg %q: want name=value", a)
		}
		values[k] = v
	}
	return values, nil
}

// skillsPromptRun composes what the agent sees: every usable folder skill
// and verified module skill in the catalog block, then the --load skills'
// text (rendered with --arg), as one markdown document.
func skillsPromptRun(ctx context.Context, o *SkillsOptions) error {
	values, err := argValues(o.Args)
	if err != nil {
		return err
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	cfg := e.host.Config()
	cat := skills.Scan(skillFolders(cfg, o.G), writableRoots(cfg))
	docs := moduleDocs(ctx, e.host)
	var entries []skills.CatalogEntry
	for _, r := range cat.Skills {
		if r.Usable() {
			entries = append(entries, skills.CatalogOf(r))
		}
	}
	for _, d := range docs {
		if _, err := d.Load(); err == nil && d.Kind == skills.KindSkill {
			entries = append(entries, d.Catalog())
		}
	}
	var sess skills.Session
	for _, name := range o.Load {
		r, doc, err := findSkill(ctx, e.host, o.G, name)
		if err != nil {
			return err
		}
		if doc != nil {
			b, err := doc.Load()
			if err != nil {
				return withCode(ExitHostVerdict, "%v", err)
			}
			sess.Load([]skills.Active{doc.Activate(b)}, skills.LoadAdd)
			continue
		}
		if !r.Usable() {
			return withCode(ExitHostVerdict, "%s: %s", r.Key.Location, r.Err)
		}
		a, res := skills.ActivateRecord(r, values)
		for _, u := range res.UnknownPlaceholders {
			fmt.Fprintf(o.IO.ErrOut, "%s: unknown placeholder %s (left as written)\n", cleanID(r.Key.Name), clean(u))
		}
		sess.Load([]skills.Active{a}, skills.LoadAdd)
	}
	text := skills.WhatTheAgentSees(entries, &sess)
	if o.Output != "" {
		if err := os.WriteFile(o.Output, []byte(text), 0o644); err != nil {
			return withCode(ExitUsage, "%v", err)
		}
		fmt.Fprintf(o.IO.ErrOut, "wrote %s (%d skills available, %d loaded, %s)\n", o.Output, len(entries), len(o.Load), sess.TokenTotal())
		return nil
	}
	fmt.Fprint(o.IO.Out, sanitizeBody(text))
	return nil
}

// skillsShowRun prints a skill's body rendered with --arg values.
func skillsShowRun(ctx context.Context, o *SkillsOptions) error {
	values, err := argValues(o.Args)
	if err != nil {
		return err
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	r, doc, err := findSkill(ctx, e.host, o.G, o.Name)
	if err != nil {
		return err
	}
	if doc != nil {
		j, b := checkDoc(*doc)
		if j.Status != "ok" {
			return withCode(ExitHostVerdict, "%s", j.Error)
		}
		if len(values) > 0 {
			fmt.Fprintln(o.IO.ErrOut, "warning: module documents declare no arguments; --arg ignored")
		}
		if o.JSON {
			return writeJSON(o.IO.Out, struct {
				moduleDocJSON
				Text string `json:"text"`
			}{j, doc.Body(b)})
		}
		fmt.Fprint(o.IO.Out, endLine(sanitizeBody(doc.Body(b))))
		return nil
	}
	if !r.Usable() {
		return withCode(ExitHostVerdict, "%s: %s", r.Key.Location, r.Err)
	}
	res := skills.Render(r.Body, r.Arguments, values)
	if o.JSON {
		return writeJSON(o.IO.Out, struct {
			Name             string              `json:"name"`
			Description      string              `json:"description,omitempty"`
			DisplayName      string              `json:"displayName,omitempty"`
			Insert           string              `json:"insert"`
			Resources        skills.ResourceInfo `json:"resources"`
			Text             string              `json:"text"`
			Arguments        []skills.Argument   `json:"arguments,omitempty"`
			AppliedArguments map[string]string   `json:"appliedArguments,omitempty"`
			Unknown          []string            `json:"unknownPlaceholders,omitempty"`
			RawFrontmatter   map[string]any      `json:"rawFrontmatter,omitempty"`
			Warnings         []string            `json:"warnings,omitempty"`
		}{r.Key.Name, r.Description, r.DisplayName, r.Insert, r.Resources, res.Text, r.Arguments,
			res.AppliedArguments, res.UnknownPlaceholders, r.RawFrontmatter, append(r.Warnings, res.Warnings...)})
	}
	for _, w := range append(r.Warnings, res.Warnings...) {
		fmt.Fprintln(o.IO.ErrOut, "warning:", clean(w))
	}
	if len(res.UnknownPlaceholders) > 0 {
		fmt.Fprintln(o.IO.ErrOut, "unknown placeholders (left as written):", clean(strings.Join(res.UnknownPlaceholders, " ")))
	}
	fmt.Fprint(o.IO.Out, endLine(sanitizeBody(res.Text)))
	return nil
}

// findSkill finds name: a path to a skill folder (one holding SKILL.md),
// a module's "<module>/<id>", or a listed folder skill.
func findSkill(ctx context.Context, host *runner.Host, g *globals, name string) (skills.Record, *skills.Doc, error) {
	// A path to a folder holding SKILL.md is that skill; a bare name
	// that happens to name some other folder here is still a name.
	if fi, err := os.Stat(filepath.Join(name, skills.FileName)); err == nil && fi.Mode().IsRegular() {
		r, _ := skills.Index(name)
		return r, nil, nil
	}
	cfg := host.Config()
	cat := skills.Scan(skillFolders(cfg, g), writableRoots(cfg))
	if r, ok := cat.Find(name); ok {
		return r, nil, nil
	}
	docs := moduleDocs(ctx, host)
	if mod, id, ok := strings.Cut(name, "/"); ok {
		for _, d := range docs {
			if d.Module == mod && d.ID == id {
				return skills.Record{}, &d, nil
			}
		}
	}
	// A module's own name: its documents are shown as <module>/<id>.
	var ids []string
	for _, d := range docs {
		if d.Module == name {
			ids = append(ids, cleanID(d.Module+"/"+d.ID))
		}
	}
	if len(ids) > 0 {
		more := ""
		if len(ids) > 5 {
			ids, more = ids[:5], fmt.Sprintf(" and %d more", len(ids)-5)
		}
		return skills.Record{}, nil, withCode(ExitUsage, "no skill %q; module %s has %s%s (modbay skills show <module>/<id>)",
			name, cleanID(name), strings.Join(ids, ", "), more)
	}
	return skills.Record{}, nil, withCode(ExitUsage, "no skill %q (see modbay skills)", name)
}

// checkJSON is one skill of `skills check --json`.
type checkJSON struct {
	Location string           `json:"location"`
	Name     string           `json:"name"`
	OK       bool             `json:"ok"`
	Error    string           `json:"error,omitempty"`
	Problems []skills.Problem `json:"problems"`
}

// skillsCheckRun checks a skill folder, or each skill of a folder, and
// fails (exit 1) when one is unusable or breaks a rule; notes (a BOM
// stripped, a list accepted) do not fail.
func skillsCheckRun(_ context.Context, o *SkillsOptions) error {
	dir, err := filepath.Abs(o.Dirs[0])
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return withCode(ExitUsage, "%s is not a folder", o.Dirs[0])
	}
	cat := skills.Scan([]skills.Folder{{Path: dir, Source: skills.SourceFlag}}, nil)
	if len(cat.Skills) == 0 {
		r, _ := skills.Index(dir)
		cat.Skills = []skills.Record{r}
	}
	failed := false
	var out []checkJSON
	for _, r := range cat.Skills {
		ok := r.Usable() && !r.Strict()
		failed = failed || !ok
		j := checkJSON{Location: r.Key.Location, Name: r.Name, OK: ok, Error: r.Err, Problems: r.Problems}
		if j.Problems == nil {
			j.Problems = []skills.Problem{}
		}
		out = append(out, j)
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, out); err != nil {
			return err
		}
	} else {
		for _, j := range out {
			verdict := "ok"
			if !j.OK {
				verdict = "FAIL"
			}
			fmt.Fprintf(o.IO.Out, "%s  %s (%s)\n", verdict, cleanID(j.Name), clean(j.Location))
			if j.Error != "" {
				fmt.Fprintln(o.IO.Out, "  error:", clean(j.Error))
			}
			for _, p := range j.Problems {
				level := "note"
				if p.Strict {
					level = "warning"
				}
				fmt.Fprintf(o.IO.Out, "  %s: %s\n", level, clean(p.String()))
			}
		}
	}
	if failed {
		return silentExit(ExitModuleError)
	}
	return nil
}

// scriptRunner is how the cockpit runs a skill's script: contained with
// the config's sandbox mode, without the network; nil when the config
// does not enable scripts.
func scriptRunner(cfg *config.Config) func(context.Context, string, string) (skills.ScriptResult, error) {
	if !cfg.Skills.Scripts {
		return nil
	}
	mode, err := contain.ParseMode(cfg.Sandbox)
	if err != nil {
		return nil
	}
	return func(ctx context.Context, dir, loc string) (skills.ScriptResult, error) {
		return skills.RunScript(ctx, dir, loc, nil, skills.ScriptOptions{Enabled: true, Mode: mode})
	}
}

// skillsRunRun runs a skill's script when config allows it, without the
// network (the command line has no approval to give it).
func skillsRunRun(ctx context.Context, o *SkillsOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	r, doc, err := findSkill(ctx, e.host, o.G, o.Name)
	if err != nil {
		return err
	}
	if doc != nil {
		return withCode(ExitUsage, "%s is a module document: it has no scripts", o.Name)
	}
	cfg := e.host.Config()
	mode, err := contain.ParseMode(cfg.Sandbox)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	res, err := skills.RunScript(ctx, r.Key.Location, o.Script, o.ScriptArgs, skills.ScriptOptions{Enabled: cfg.Skills.Scripts, Mode: mode})
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, res); err != nil {
			return err
		}
	} else {
		fmt.Fprint(o.IO.Out, sanitizeBody(res.Stdout))
		fmt.Fprint(o.IO.ErrOut, sanitizeBody(res.Stderr))
		for _, n := range res.Notes {
			fmt.Fprintln(o.IO.ErrOut, "note:", clean(n))
		}
		if len(res.Enforcement.Gaps) > 0 {
			fmt.Fprintln(o.IO.ErrOut, "not enforced:", clean(strings.Join(res.Enforcement.Gaps, "; ")))
		}
	}
	if res.ExitCode != 0 {
		return silentExit(res.ExitCode)
	}
	return nil
}

// sanitizeBody makes a multi-line skill text safe for a terminal.
func sanitizeBody(s string) string { return render.Sanitize(s) }

// endLine ends s with a newline.
func endLine(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// shorten cuts s (one line) to n runes with "…".
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

func absAll(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil {
			out = append(out, a)
		}
	}
	return out
}

func folderPaths(fs []skills.Folder) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}
