// Package skills embeds the built-in skills: one directory per skill, each
// with a SKILL.md file (Agent Skills format) and any files it refers to.
package skills

import "embed"

// FS holds every built-in skill as <name>/SKILL.md (plus extra files).
//
//go:embed */*.md
var FS embed.FS
