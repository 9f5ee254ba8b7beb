package compat

// Package is one published pi extension package of the suite (pinned).
// Pi is the pi release its fixture is recorded with ("": PiVersion):
// packages written for the renamed pi (they import
// @earendil-works/pi-coding-agent, which pi 0.73.1 cannot provide, so it
// refuses to start with them) are recorded with PiNextVersion.
type Package struct {
	Name, Version string
	Pi            string
}

// Packages are the published pi extension packages the suite installs:
// the most downloaded ones on npm that declare pi extensions (monthly
// downloads as listed when they were chosen).
var Packages = []Package{
	{"pi-subagents", "0.67.0", PiNextVersion},             // subagents: spawn, dynamic import
	{"pi-markdown-preview", "0.16.0", ""},                 // node:http preview server, spawn
	{"pi-web-access", "0.28.0", PiNextVersion},            // web search and fetch
	{"pi-mcp-adapter", "2.36.0", PiNextVersion},           // MCP over stdio: streaming spawn
	{"pi-prompt-template-model", "0.12.2", PiNextVersion}, // prompt templates (ctx.isProjectTrusted: pi 1.x)
	{"pi-aliases", "1.0.7", ""},                           // command aliases
	{"pi-mermaid", "0.3.0", ""},                           // mermaid diagrams
	{"@baochunli/pi-collaborating-agents", "0.4.6", ""},   // collaboration
	{"@agentuity/pi", "2.0.21", ""},                       // provider plugin
	{"@aliou/pi-utils-settings", "0.19.2", ""},            // settings helper
}

// PiVersion is the pi release the fixtures are recorded with
// (@mariozechner/pi-coding-agent), and whose examples are in the suite.
const PiVersion = "0.73.1"

// PiNextVersion is the renamed pi (@earendil-works/pi-coding-agent) that
// the packages written for it are recorded with. It needs Node 22.19 or
// newer: give one with -record-node.
const PiNextVersion = "1.6.0"
