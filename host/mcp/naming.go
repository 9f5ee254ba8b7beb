package mcp

import (
	"crypto/sha256"
	"encoding/hex"
)

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// ToolName is the agent's name of a server's tool: mcp__<server>__<tool>
// with everything but [A-Za-z0-9_] replaced by "_". A name that is too
// long, or taken by another tool (two tools that sanitise alike), gets a
// short hash suffix.
func ToolName(server, tool string, taken func(string) bool) string {
	b := []byte("mcp__" + server + "__" + tool)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	name := string(b)
	if len(name) <= maxToolName && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:8]
	if len(name) > maxToolName-len(h)-1 {
		name = name[:maxToolName-len(h)-1]
	}
	return name + "_" + h
}
