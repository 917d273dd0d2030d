package examples

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"modbay/internal/words"
	"modbay/modkit"
	"modbay/modproto"
)

// Schema and artifact kind ids of the render-farm example.
const (
	farmRenderRequest = "farm.render.request/v1"
	farmRenderResult  = "farm.render.result/v1"
	farmStatusRequest = "farm.jobs.status.request/v1"
	farmStatusResult  = "farm.jobs.status.result/v1"
	farmCancelRequest = "farm.jobs.cancel.request/v1"
	// kindFarmLog is render-log.md, the markdown log of a finished job.
	kindFarmLog = "farm.log/v1"
	// kindFarmTimeline is timeline.json, one event per frame.
	kindFarmTimeline = "farm.timeline/v1"
)

// Job states reported by farm.jobs.status (terminal: succeeded, cancelled,
// docs/protocol.md §12).
const (
	jobRunning   = modkit.JobRunning
	jobSucceeded = modkit.JobSucceeded
	jobCancelled = modkit.JobCancelled
)

// Defaults and limits of farm.render.
const (
	farmDefaultFrames = 12
	farmDefaultScene  = "cube"
	// farmMaxFrames bounds a job to 100 frames, 25 s of simulated work.
	farmMaxFrames = 100
	// farmFrameDuration is the simulated render time of one frame, so the
	// default 12 frames finish about 3 s after the start, and tests use 1.
	farmFrameDuration = 250 * time.Millisecond
	// farmJobsRoot is the write root holding job state: the host supplies
	// it as <home>/state/render-farm/jobs (docs/protocol.md §4).
	farmJobsRoot = "jobs"
	// renderFarmRendersDir is where finished jobs' artifacts go, under the
	// workspace.
	renderFarmRendersDir = "renders"
)

// farmScenes are the scenes farm.render knows.
var farmScenes = []string{"cube", "teapot", "fractal"}

// jobIDPattern is a job id as farm.render makes it: "job_" and 32
// lowercase hex. Checking it keeps a job id from naming any other file.
var jobIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^job_[0-9a-f]{32}$`) })

// now is the clock of the render farm; tests replace it to move a job along
// without waiting.
var now = time.Now

// renderFarmModule declares the "Render farm (long-running)" example.
func renderFarmModule() *module {
	artifactKinds := []string{kindFarmLog, kindFarmTimeline}
	return &module{
		id:   "render-farm",
		name: "Render farm (long-running)",
		caps: []*capability{
			{
				decl: modproto.Capability{
					ID:               "farm.render",
					Title:            "Render a scene",
					Summary:          "Start a render job (250 ms per frame) and return its handle at once; poll farm.jobs.status for progress.",
					RequestSchema:    farmRenderRequest,
					ResultSchema:     farmRenderResult,
					ArtifactSchemas:  artifactKinds,
					Effects:          localFree,
					Skills:           []string{"render-jobs"},
					LongRunning:      true,
					PollCapability:   "farm.jobs.status",
					CancelCapability: "farm.jobs.cancel",
				},
				run: runFarmRender,
			},
			{
				decl: modproto.Capability{
					ID:              "farm.jobs.status",
					Title:           "Job status",
					Summary:         "Report a render job's state, percent and current frame; when it succeeds, its log and timeline.",
					RequestSchema:   farmStatusRequest,
					ResultSchema:    farmStatusResult,
					ArtifactSchemas: artifactKinds,
					Effects:         localFree,
					Skills:          []string{"render-jobs"},
				},
				run: runFarmStatus,
			},
			{
				decl: modproto.Capability{
					ID:              "farm.jobs.cancel",
					Title:           "Cancel a job",
					Summary:         "Stop a render job where it is (no artifacts are written) and report its state as farm.jobs.status does; a job already done is reported as it ended.",
					RequestSchema:   farmCancelRequest,
					ResultSchema:    farmStatusResult,
					ArtifactSchemas: artifactKinds,
					Effects:         localFree,
					Skills:          []string{"render-jobs"},
				},
				run: runFarmCancel,
			},
		},
		requestSchemas: map[string]string{
			farmRenderRequest: `{
				"type": "object",
				"title": "Render a scene",
				"properties": {
					"frames": {"type": "integer", "title": "Frames", "minimum": 1, "maximum": 100, "default": 12,
						"description": "Each frame takes 250 ms."},
					"scene": {"type": "string", "title": "Scene", "enum": ["cube", "teapot", "fractal"], "default": "cube"}
				},
				"additionalProperties": false
			}`,
			farmStatusRequest: `{
				"type": "object",
				"title": "Job status",
				"properties": {
					"job_id": {"type": "string", "title": "Job id", "pattern": "^job_[0-9a-f]{32}$"}
				},
				"required": ["job_id"],
				"additionalProperties": false
			}`,
			farmCancelRequest: `{
				"type": "object",
				"title": "Cancel a job",
				"properties": {
					"job_id": {"type": "string", "title": "Job id", "pattern": "^job_[0-9a-f]{32}$"}
				},
				"required": ["job_id"],
				"additionalProperties": false
			}`,
		},
		resultSchemas: map[string]string{
			farmRenderResult: `{
				"type": "object",
				"description": "A job handle (docs/modules.md#long-running-jobs).",
				"properties": {
					"job_id": {"type": "string"},
					"state": {"const": "running"},
					"frames": {"type": "integer"},
					"scene": {"type": "string"},
					"estimated_ms": {"type": "integer", "description": "Expected run time in milliseconds."}
				},
				"required": ["job_id", "state"]
			}`,
			farmStatusResult: `{
				"type": "object",
				"properties": {
					"job_id": {"type": "string"},
					"state": {"enum": ["running", "succeeded", "cancelled"]},
					"percent": {"type": "integer", "minimum": 0, "maximum": 100},
					"detail": {"type": "string", "description": "e.g. \"frame 3 of 12\"."},
					"frames": {"type": "integer"},
					"scene": {"type": "string"}
				},
				"required": ["job_id", "state", "percent", "detail"]
			}`,
		},
		artifactSchemas: map[string]string{
			kindFarmLog: `{
				"type": "string",
				"contentMediaType": "text/markdown",
				"description": "render-log.md: the job's settings, a preview of the scene and a table of frame timings."
			}`,
			kindFarmTimeline: `{
				"type": "object",
				"properties": {
					"title": {"type": "string"},
					"job_id": {"type": "string"},
					"started_at": {"type": "string", "format": "date-time"},
					"unit": {"const": "ms"},
					"duration_ms": {"type": "integer"},
					"events": {
						"type": "array",
						"items": {
							"type": "object",
							"properties": {
								"label": {"type": "string"},
								"start_ms": {"type": "integer", "description": "Offset from started_at."},
								"end_ms": {"type": "integer"},
								"state": {"type": "string"}
							},
							"required": ["label", "start_ms", "end_ms"]
						}
					}
				},
				"required": ["title", "unit", "duration_ms", "events"]
			}`,
		},
		skills: []bundleDoc{{
			id: "render-jobs", title: "Running render jobs",
			summary: "How farm.render jobs start, how to poll them, and where the results land.",
			path:    "skills/render-jobs/SKILL.md",
		}},
		overlays: []bundleDoc{{
			id: "render-farm-agent", title: "Render farm: agent guidance", path: "agents/render-farm.md",
		}},
		permissions: modproto.Permissions{
			FilesystemWrite: []string{"workspace", farmJobsRoot},
		},
	}
}

// farmJob is a job's state file, <jobs>/<job_id>.json. Progress is not
// stored: it follows from the wall clock since StartedAt, so any later
// process can answer a poll.
type farmJob struct {
	JobID     string    `json:"job_id"`
	RequestID string    `json:"request_id"`
	Scene     string    `json:"scene"`
	Frames    int       `json:"frames"`
	FrameMS   int       `json:"frame_ms"`
	StartedAt time.Time `json:"started_at"`
	// CancelledAt is when farm.jobs.cancel stopped the job; nil while it
	// was not.
	CancelledAt *time.Time `json:"cancelled_at,omitempty"`
}

// duration is the job's total simulated render time.
func (j *farmJob) duration() time.Duration {
	return time.Duration(j.Frames*j.FrameMS) * time.Millisecond
}

// runFarmRender is farm.render: it records a new job in the jobs root and
// returns the handle {job_id, state: "running", frames, scene,
// estimated_ms} at once. The actual cost is null until the job ends.
func runFarmRender(c *call) (any, error) {
	in, err := parseInput(c.req.Input, farmRenderRequest, []string{"frames", "scene"})
	if err != nil {
		return nil, err
	}
	frames := in.integer("frames", farmDefaultFrames, 1, farmMaxFrames)
	scene := in.enum("scene", farmDefaultScene, farmScenes)
	if err := in.check(); err != nil {
		return nil, err
	}
	jobs, err := c.root(farmJobsRoot, true)
	if err != nil {
		return nil, err
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	job := farmJob{
		JobID: "job_" + hex.EncodeToString(id[:]), RequestID: c.req.RequestID, Scene: scene,
		Frames: frames, FrameMS: int(farmFrameDuration / time.Millisecond), StartedAt: now().UTC(),
	}
	b, err := marshalIndent(job)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(jobs, job.JobID+".json"), b, fileMode); err != nil {
		return nil, fmt.Errorf("recording job %s: %w", job.JobID, err)
	}
	c.progress("queued %s: %d frames of %s", job.JobID, frames, scene)
	c.exec.ActualCost = nil // known only when the job ends
	return map[string]any{
		"job_id": job.JobID, "state": jobRunning, "frames": frames, "scene": scene,
		"estimated_ms": job.duration().Milliseconds(),
	}, nil
}

// runFarmStatus is farm.jobs.status: it reads the job and reports
// {job_id, state, percent, detail, frames, scene}. While running, detail is
// "frame k of n"; once the job's time is up, state is "succeeded" and the
// render log and timeline are written under renders/<job_id>/ in the
// workspace and reported as artifacts (the same bytes on every poll). A
// job id never issued is unknown_job (details {job_id}).
func runFarmStatus(c *call) (any, error) {
	job, _, err := readFarmJob(c, farmStatusRequest)
	if err != nil {
		return nil, err
	}
	return farmReply(c, job)
}

// runFarmCancel is farm.jobs.cancel, the cancel_capability of farm.render
// (docs/protocol.md §12, §16): a job still rendering is marked cancelled
// in its state file (no artifacts are written) and reported "cancelled"
// at the frame it reached; a job already done or cancelled is reported
// as it ended, as farm.jobs.status would.
func runFarmCancel(c *call) (any, error) {
	job, file, err := readFarmJob(c, farmCancelRequest)
	if err != nil {
		return nil, err
	}
	if t := now().UTC(); job.CancelledAt == nil && t.Sub(job.StartedAt) < job.duration() {
		job.CancelledAt = &t
		b, err := marshalIndent(job)
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(file, b, fileMode); err != nil {
			return nil, fmt.Errorf("cancelling job %s: %w", job.JobID, err)
		}
		c.progress("%s: cancelled", job.JobID)
	}
	return farmReply(c, job)
}

// readFarmJob reads the job the input (of request schema schemaID) names
// from the jobs root, and its state file's path.
func readFarmJob(c *call, schemaID string) (*farmJob, string, error) {
	in, err := parseInput(c.req.Input, schemaID, []string{"job_id"})
	if err != nil {
		return nil, "", err
	}
	id := in.str("job_id", "", true)
	if err := in.check(); err != nil {
		return nil, "", err
	}
	if !jobIDPattern().MatchString(id) {
		return nil, "", invalidField(schemaID, "job_id", map[string]any{"pattern": jobIDPattern().String()},
			"job_id %q is not a render-farm job id (job_ and 32 hex)", id)
	}
	jobs, err := c.root(farmJobsRoot, true)
	if err != nil {
		return nil, "", err
	}
	file := filepath.Join(jobs, id+".json")
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", newError(codeUnknownJob, map[string]any{"job_id": id}, "no render job %q", id)
	}
	if err != nil {
		return nil, "", err
	}
	var job farmJob
	if err := json.Unmarshal(b, &job); err != nil || job.JobID != id || job.Frames < 1 || job.FrameMS < 1 {
		return nil, "", newError(modproto.CodeInternal, map[string]any{"job_id": id}, "the state file of job %q is damaged", id)
	}
	return &job, file, nil
}

// farmReply is a job's status reply (farm.jobs.status.result/v1) now:
// running, cancelled, or succeeded with its artifacts written.
func farmReply(c *call, job *farmJob) (any, error) {
	id := job.JobID
	elapsed := max(0, now().Sub(job.StartedAt))
	result := map[string]any{"job_id": id, "frames": job.Frames, "scene": job.Scene}
	if job.CancelledAt != nil {
		at := min(max(0, job.CancelledAt.Sub(job.StartedAt)), job.duration())
		frame := min(job.Frames, int(at/(time.Duration(job.FrameMS)*time.Millisecond))+1)
		result["state"], result["percent"] = jobCancelled, min(99, int(at*100/job.duration()))
		result["detail"] = fmt.Sprintf("cancelled at frame %d of %d", frame, job.Frames)
		return result, nil
	}
	if total := job.duration(); elapsed < total {
		frame := min(job.Frames, int(elapsed/(time.Duration(job.FrameMS)*time.Millisecond))+1)
		percent := min(99, int(elapsed*100/total))
		detail := fmt.Sprintf("frame %d of %d", frame, job.Frames)
		c.progress("%s: %s (%d%%)", id, detail, percent)
		result["state"], result["percent"], result["detail"] = jobRunning, percent, detail
		return result, nil
	}
	dir := path.Join(renderFarmRendersDir, id)
	c.progress("%s: all %d frames rendered; writing %s", id, job.Frames, dir)
	timeline, err := farmTimeline(job)
	if err != nil {
		return nil, err
	}
	if err := c.writeArtifact(artifactFile{
		id: "log", kind: kindFarmLog, root: "workspace", rel: dir + "/render-log.md",
		mediaType: "text/markdown", presentation: "markdown", title: "Render log: " + job.Scene, data: farmLog(job),
	}); err != nil {
		return nil, err
	}
	if err := c.writeArtifact(artifactFile{
		id: "timeline", kind: kindFarmTimeline, root: "workspace", rel: dir + "/timeline.json",
		mediaType: "application/json", presentation: "timeline", title: "Frame timeline", data: timeline,
	}); err != nil {
		return nil, err
	}
	result["state"], result["percent"] = jobSucceeded, 100
	result["detail"] = fmt.Sprintf("rendered %d %s of %s", job.Frames, words.Plural(job.Frames, "frame", "frames"), job.Scene)
	return result, nil
}

// farmEvent is one timeline event: a frame's start and end in ms since the
// job started.
type farmEvent struct {
	Label   string `json:"label"`
	StartMS int    `json:"start_ms"`
	EndMS   int    `json:"end_ms"`
	State   string `json:"state"`
}

// farmTimeline renders timeline.json (artifact kind farm.timeline/v1).
func farmTimeline(j *farmJob) ([]byte, error) {
	events := make([]farmEvent, j.Frames)
	for i := range events {
		events[i] = farmEvent{Label: fmt.Sprintf("frame %d", i+1), StartMS: i * j.FrameMS, EndMS: (i + 1) * j.FrameMS, State: "done"}
	}
	return marshalIndent(map[string]any{
		"title": "Render of " + j.Scene, "job_id": j.JobID, "started_at": j.StartedAt.Format(time.RFC3339Nano),
		"unit": "ms", "duration_ms": j.duration().Milliseconds(), "events": events,
	})
}

// farmLog renders render-log.md (artifact kind farm.log/v1): settings, a
// text preview of the scene, and the frame timings.
func farmLog(j *farmJob) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Render log: %s\n\n", j.Scene)
	fmt.Fprintf(&b, "Job `%s` rendered **%d %s** of the *%s* scene in %s.\n\n", j.JobID, j.Frames, words.Plural(j.Frames, "frame", "frames"), j.Scene, j.duration())
	b.WriteString("## Settings\n\n| Setting | Value |\n| --- | --- |\n")
	fmt.Fprintf(&b, "| Scene | %s |\n| Frames | %d |\n| Time per frame | %d ms |\n| Started | %s |\n\n",
		j.Scene, j.Frames, j.FrameMS, j.StartedAt.Format(time.RFC3339))
	b.WriteString("## Preview\n\n```text\n")
	b.WriteString(farmPreview(j.Scene))
	b.WriteString("```\n\n## Frames\n\n| Frame | Start (ms) | End (ms) |\n| ---: | ---: | ---: |\n")
	for i := 0; i < j.Frames; i++ {
		fmt.Fprintf(&b, "| %d | %d | %d |\n", i+1, i*j.FrameMS, (i+1)*j.FrameMS)
	}
	return b.Bytes()
}

// Size of the fractal preview, in characters.
const (
	previewCols = 48
	previewRows = 14
	// previewIterations bounds the escape-time iterations per cell.
	previewIterations = 40
)

// farmPreview is a text picture of scene, ending in a newline.
func farmPreview(scene string) string {
	switch scene {
	case "teapot":
		return strings.Join([]string{
			`             ;,'`,
			`     _o_    ;:;'`,
			` ,-.'---'.__ ;`,
			`((j'=====',-'`,
			` '-\     /`,
			`    '-=-'`,
		}, "\n") + "\n"
	case "fractal":
		ramp := " .:-=+*#%@"
		var b strings.Builder
		for y := 0; y < previewRows; y++ {
			for x := 0; x < previewCols; x++ {
				cr := -2.2 + 3.0*float64(x)/previewCols
				ci := -1.2 + 2.4*float64(y)/(previewRows-1)
				zr, zi, n := 0.0, 0.0, 0
				for ; n < previewIterations && zr*zr+zi*zi < 4; n++ {
					zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
				}
				b.WriteByte(ramp[n*(len(ramp)-1)/previewIterations])
			}
			b.WriteString("\n")
		}
		return b.String()
	default:
		return strings.Join([]string{
			`    +--------+`,
			`   /        /|`,
			`  /        / |`,
			` +--------+  |`,
			` |        |  +`,
			` |        | /`,
			` |        |/`,
			` +--------+`,
		}, "\n") + "\n"
	}
}
