package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"modbay/modproto"
	"modbay/schema"
)

// contentSchemaName names an elicitation's schema in an *InputError.
const contentSchemaName = "elicitation"

// replySize is what a reply weighs against max_output_bytes: the envelope
// and every content block's data, bytes.
func replySize(r *Reply) int64 {
	n := int64(len(r.Envelope))
	for _, b := range r.Blocks {
		n += int64(len(b.Data))
	}
	return n
}

// blockArtifacts describes each content block as an artifact under
// ContentRoot: the block's own fields, its path ("block-<i>" when unset),
// and the digest and size of its data where the module stated none.
func blockArtifacts(blocks []ContentBlock) []modproto.Artifact {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]modproto.Artifact, len(blocks))
	for i, b := range blocks {
		a := b.Artifact
		a.Root = ContentRoot
		if a.Path == "" {
			a.Path = fmt.Sprintf("block-%d", i)
		}
		if a.Digest == "" {
			sum := sha256.Sum256(b.Data)
			a.Digest = "sha256:" + hex.EncodeToString(sum[:])
		}
		if a.Bytes == 0 {
			a.Bytes = int64(len(b.Data))
		}
		out[i] = a
	}
	return out
}

// stageBlocks writes each block's data into a fresh per-run directory (a
// "modbay-run-*" directory recording its host, so a crash leaves nothing
// the next host does not sweep) as arts[i].Path, then verifies and stages
// them exactly as module files (docs/protocol.md §8) under ContentRoot. Failure
// paths are numbered from offset, after the module's own artifacts. The
// directory is removed before it returns, so Source is cleared.
func (h *Host) stageBlocks(b *stageBudget, echoes []schema.Echo, blocks []ContentBlock, arts []modproto.Artifact, offset int) ([]VerifiedArtifact, []artifactFailure) {
	fail := func(i int, confinement bool, f string, args ...any) []artifactFailure {
		return []artifactFailure{{confinement: confinement, index: offset + i, v: modproto.ValidationError{
			Path: fmt.Sprintf("execution.artifacts[%d]", offset+i), Detail: fmt.Sprintf(f, args...)}}}
	}
	dir, err := newRunDir()
	if err != nil {
		return nil, fail(0, false, "content blocks: create the run directory: %v", err)
	}
	defer RemoveTree(dir)
	root := filepath.Join(canonical(dir), ContentRoot)
	if err := os.Mkdir(root, 0o700); err != nil {
		return nil, fail(0, false, "content blocks: create the content root: %v", err)
	}
	for i, a := range arts {
		full := filepath.Join(root, filepath.FromSlash(a.Path))
		if !modproto.IsRelativePath(a.Path) || !within(root, full) || full == root {
			return nil, fail(i, true, "artifact %q: path %q escapes root %q", a.ID, a.Path, ContentRoot)
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			return nil, fail(i, false, "artifact %q: %v", a.ID, err)
		}
		if err := writeFileMode(full, blocks[i].Data, 0o600); err != nil {
			if errors.Is(err, os.ErrExist) {
				return nil, fail(i, false, "artifact %q: another content block already has path %q", a.ID, a.Path)
			}
			return nil, fail(i, false, "artifact %q: write the content block: %v", a.ID, err)
		}
	}
	rootDir, _, err := openDirBeneath(root, ".", false)
	if err != nil {
		return nil, fail(0, false, "content blocks: open the content root: %v", err)
	}
	defer rootDir.Close()
	// The host wrote each file here with one link: no start time is needed
	// to judge links (a zero one refuses any second link).
	out, fails := h.verifyArtifacts(b, echoes, map[string]modproto.Root{ContentRoot: {Path: root, Mode: modproto.RootReadWrite}},
		rootDirs{ContentRoot: rootDir}, time.Time{}, arts, offset)
	for i := range out {
		out[i].Source = ""
	}
	return out, fails
}

// ErrNoOneToAsk comes with the decline of a request made where no one
// can answer (no terminal, no elicitor).
var ErrNoOneToAsk = errors.New("no one to ask: no terminal to answer on")

// hostElicitor wraps the caller's Elicitor with the host's rules for
// requests to the person: a request over MaxElicitationBytes or with a
// schema that is not JSON is declined unasked; with no one to ask every
// request is declined; an accepted answer must be valid against the
// request's schema (else ElicitCancel and an *InputError) and within
// MaxElicitationBytes; an unknown action is refused.
func hostElicitor(ask Elicitor, echoes []schema.Echo) Elicitor {
	return func(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
		decline := ElicitAnswer{Action: ElicitDecline}
		cancel := ElicitAnswer{Action: ElicitCancel}
		if len(e.Message) > MaxElicitationBytes || len(e.Schema) > MaxElicitationBytes {
			return decline, fmt.Errorf("elicitation declined: its message or schema exceeds %d bytes", MaxElicitationBytes)
		}
		if len(e.URL) > MaxElicitURLBytes || e.Sampling.size() > MaxSamplingBytes {
			return decline, fmt.Errorf("elicitation declined: its URL exceeds %d bytes or its sampling request %d", MaxElicitURLBytes, MaxSamplingBytes)
		}
		if len(e.Schema) > 0 && !json.Valid(e.Schema) {
			return decline, errors.New("elicitation declined: its schema is not JSON")
		}
		if ask == nil {
			return decline, ErrNoOneToAsk
		}
		if err := ctx.Err(); err != nil {
			return cancel, err
		}
		// The question is shown: the run's secrets it echoes are masked
		// (docs/protocol.md §4); the answer is judged by the schema as sent.
		sent := e.Schema
		ans, err := ask(ctx, maskElicitation(e, echoes))
		e.Schema = sent
		if err != nil {
			return cancel, err
		}
		switch ans.Action {
		case ElicitDecline, ElicitCancel:
			return ElicitAnswer{Action: ans.Action}, nil
		case ElicitAccept:
		default:
			return cancel, fmt.Errorf("elicitation answer: unknown action %q", ans.Action)
		}
		if len(ans.Content) > MaxElicitationBytes {
			return cancel, fmt.Errorf("elicitation answer exceeds %d bytes", MaxElicitationBytes)
		}
		if len(ans.Content) == 0 {
			ans.Content = json.RawMessage(`{}`)
		}
		if len(e.Schema) > 0 {
			v, err := schema.ValidateInput(e.Schema, ans.Content)
			if err != nil {
				return cancel, fmt.Errorf("elicitation answer: %w", err)
			}
			if len(v) > 0 {
				return cancel, &InputError{Schema: contentSchemaName, Violations: v}
			}
		}
		return ans, nil
	}
}

// maskElicitation is e with the echoes it holds masked: its message, URL
// (a masked URL cannot be opened, and says so by its mask), schema
// (titles, descriptions, defaults) and sampling request.
func maskElicitation(e Elicitation, echoes []schema.Echo) Elicitation {
	if len(echoes) == 0 {
		return e
	}
	e.Message, e.URL = maskString(e.Message, echoes), maskString(e.URL, echoes)
	if len(e.Schema) > 0 {
		e.Schema, _ = schema.MaskEchoesJSON(e.Schema, echoes)
	}
	if sr := e.Sampling; sr != nil {
		c := *sr
		c.SystemPrompt = maskString(c.SystemPrompt, echoes)
		c.Messages = slices.Clone(c.Messages)
		for i := range c.Messages {
			c.Messages[i].Text = maskString(c.Messages[i].Text, echoes)
		}
		c.ModelHints = slices.Clone(c.ModelHints)
		for i := range c.ModelHints {
			c.ModelHints[i] = maskString(c.ModelHints[i], echoes)
		}
		e.Sampling = &c
	}
	return e
}
