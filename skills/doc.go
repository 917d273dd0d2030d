// Package skills reads Agent Skills folders and module skill documents
// (docs/skills.md): it parses SKILL.md (frontmatter, limits and warnings),
// indexes a skill folder into a Record, renders a body with arguments,
// reads a resource confined to the folder and runs a script contained.
// It never draws: callers sanitize every string before a terminal.
package skills
