package modproto

import "encoding/json"

// Normalize replaces every nil list with [] and every nil map with {}, so the
// descriptor validates and marshals as docs/protocol.md §9 requires, and
// hides the capabilities that poll or cancel another's jobs (§17). Costs
// and other values are untouched.
func (d *Descriptor) Normalize() {
	d.ProtocolVersions = nonNilStrings(d.ProtocolVersions)
	if d.Capabilities == nil {
		d.Capabilities = []Capability{}
	}
	for i := range d.Capabilities {
		d.Capabilities[i].Normalize()
	}
	d.hideJobCapabilities()
	d.RequestSchemas = nonNilRawMap(d.RequestSchemas)
	d.ResultSchemas = nonNilRawMap(d.ResultSchemas)
	d.ArtifactSchemas = nonNilRawMap(d.ArtifactSchemas)
	if d.AgentOverlays == nil {
		d.AgentOverlays = []Overlay{}
	}
	if d.Skills == nil {
		d.Skills = []Skill{}
	}
	d.Permissions.Normalize()
	if d.Requirements == nil {
		d.Requirements = []Requirement{}
	}
}

// hideJobCapabilities marks hidden every capability another names as its
// poll_capability or cancel_capability: its input is a job id the host
// supplies, so it is no form and no agent tool (docs/protocol.md §17).
func (d *Descriptor) hideJobCapabilities() {
	job := map[string]bool{}
	for _, c := range d.Capabilities {
		if c.PollCapability != "" {
			job[c.PollCapability] = true
		}
		if c.CancelCapability != "" {
			job[c.CancelCapability] = true
		}
	}
	for i := range d.Capabilities {
		if job[d.Capabilities[i].ID] {
			d.Capabilities[i].Hidden = true
		}
	}
}

// Listed returns the capabilities a person or an agent is offered: those
// not Hidden (docs/protocol.md §17). Hidden ones stay invocable.
func (d *Descriptor) Listed() []Capability {
	out := make([]Capability, 0, len(d.Capabilities))
	for _, c := range d.Capabilities {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// Normalize replaces nil lists with [].
func (c *Capability) Normalize() {
	c.ArtifactSchemas = nonNilStrings(c.ArtifactSchemas)
	c.Skills = nonNilStrings(c.Skills)
}

// Normalize replaces nil lists with [].
func (p *Permissions) Normalize() {
	p.FilesystemRead = nonNilStrings(p.FilesystemRead)
	p.FilesystemWrite = nonNilStrings(p.FilesystemWrite)
	p.Network = nonNilStrings(p.Network)
	p.Credentials = nonNilStrings(p.Credentials)
	p.PaidProviders = nonNilStrings(p.PaidProviders)
	p.Subprocess = nonNilStrings(p.Subprocess)
}

// Normalize replaces nil lists with [].
func (g *Grants) Normalize() {
	g.Network = nonNilStrings(g.Network)
	g.Credentials = nonNilStrings(g.Credentials)
	g.PaidProviders = nonNilStrings(g.PaidProviders)
	g.Subprocess = nonNilStrings(g.Subprocess)
}

// Normalize replaces nil lists with []; costs are untouched (nil stays
// unknown).
func (x *Execution) Normalize() {
	if x.Artifacts == nil {
		x.Artifacts = []Artifact{}
	}
}

// Normalize replaces nil lists with [] and a nil error details map with {}.
// It does not invent a result or an error.
func (e *Envelope) Normalize() {
	e.Warnings = nonNilStrings(e.Warnings)
	e.Execution.Normalize()
	if e.Error != nil && e.Error.Details == nil {
		e.Error.Details = map[string]any{}
	}
}

// Normalize fills the request's empty collections ({} and [], never null),
// an absent input with {}, and zero bounds with the protocol defaults
// (docs/protocol.md §4).
func (r *Request) Normalize() {
	if r.Protocol == "" {
		r.Protocol = ProtocolID
	}
	if len(r.Input) == 0 {
		r.Input = json.RawMessage(`{}`)
	}
	if r.Roots == nil {
		r.Roots = map[string]Root{}
	}
	r.Grants.Normalize()
	if r.Binaries == nil {
		r.Binaries = map[string]string{}
	}
	if r.DeadlineMS <= 0 {
		r.DeadlineMS = DefaultDeadlineMS
	}
	if r.MaxOutputBytes <= 0 {
		r.MaxOutputBytes = DefaultMaxOutputBytes
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}
