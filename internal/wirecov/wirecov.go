// Package wirecov checks that the protocol's declared records (package
// sdk/rpcwire) match what the agent writes: every field of every record
// type must be produced by the agent in some black-box test, or the field
// goes.
//
// The black-box harness (internal/e2e) hands every stdout line of every
// agent it starts to a Recorder when ATOMIC_WIRE_RECORD names a
// directory; the recorder walks the line along its rpcwire type (a
// response by its command, an event by its type) and appends each field
// seen for the first time in this process to a file of that directory.
// `go run ./internal/wirecov/check <dir>` (in .ci/run, after the test
// suite) reads them all and fails on the fields no test saw.
package wirecov

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// EnvDir is the environment variable naming the record directory.
const EnvDir = "ATOMIC_WIRE_RECORD"

func typ[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Responses maps a command to the type of its response's data.
var Responses = map[string]reflect.Type{
	"get_state":            typ[rpcwire.State](),
	"get_available_models": typ[rpcwire.ModelCatalog](),
	"set_model":            typ[rpcwire.Model](),
	"cycle_model":          typ[rpcwire.CycleModelResult](),
	"set_thinking_level":   typ[rpcwire.ThinkingLevelResult](),
	"logout_provider":      typ[rpcwire.LogoutResult](),
	"clear_queue":          typ[rpcwire.Queue](),
	"bash":                 typ[rpcwire.BashResult](),
	"get_session_stats":    typ[rpcwire.SessionStats](),
	"fork":                 typ[rpcwire.ForkResult](),
	"get_fork_messages": typ[struct {
		Messages []rpcwire.ForkMessage `json:"messages"`
	}](),
	"get_entries":   typ[rpcwire.Entries](),
	"get_tree":      typ[rpcwire.Tree](),
	"navigate_tree": typ[rpcwire.NavigateResult](),
	"get_commands": typ[struct {
		Commands []rpcwire.SlashCommand `json:"commands"`
	}](),
	"get_command_completions": typ[struct {
		Completions []rpcwire.Completion `json:"completions"`
	}](),
	"compact": typ[rpcwire.CompactionResult](),
	"get_resource_diagnostics": typ[struct {
		Diagnostics []rpcwire.ResourceDiagnostic `json:"diagnostics"`
	}](),
	"list_sessions": typ[struct {
		Sessions []rpcwire.SessionInfo `json:"sessions"`
	}](),
	"get_extensions":  typ[rpcwire.Extensions](),
	"get_mcp_servers": typ[rpcwire.MCPServers](),
	"mcp_reconnect": typ[struct {
		Server rpcwire.MCPServer `json:"server"`
	}](),
	"get_messages": typ[struct {
		Messages []rpcwire.Message `json:"messages"`
	}](),
}

// Events maps an event (or other record) type to its type.
var Events = map[string]reflect.Type{
	"agent_end":             typ[rpcwire.AgentEnd](),
	"agent_settled":         typ[rpcwire.AgentSettled](),
	"turn_end":              typ[rpcwire.TurnEnd](),
	"message_start":         typ[rpcwire.MessageEvent](),
	"message_end":           typ[rpcwire.MessageEvent](),
	"message_update":        typ[rpcwire.MessageUpdate](),
	"tool_execution_start":  typ[rpcwire.ToolExecution](),
	"tool_execution_update": typ[rpcwire.ToolExecution](),
	"tool_execution_end":    typ[rpcwire.ToolExecution](),
	"bash_execution_update": typ[rpcwire.BashUpdate](),
	"queue_update":          typ[rpcwire.QueueUpdate](),
	"compaction_start":      typ[rpcwire.CompactionStart](),
	"compaction_end":        typ[rpcwire.CompactionEnd](),
	"auto_retry_start":      typ[rpcwire.AutoRetryStart](),
	"auto_retry_end":        typ[rpcwire.AutoRetryEnd](),
	"extension_error":       typ[rpcwire.ExtensionError](),
	"mcp_server_changed":    typ[rpcwire.MCPServerChangedEvent](),
	"extension_ui_request":  typ[rpcwire.UIRequest](),
}

// RequestOnly are the rpcwire types a client sends and the agent never
// writes (so nothing is expected of the agent's output).
var RequestOnly = []reflect.Type{typ[rpcwire.Image]()}

var rawMessage = typ[json.RawMessage]()

// Field is one field of a record type: "Type.jsonName".
func field(t reflect.Type, name string) string { return t.Name() + "." + name }

// jsonName returns the field's JSON name ("" when it is not encoded).
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

func isWire(t reflect.Type) bool {
	return t.Name() != "" && t.PkgPath() == typ[rpcwire.Model]().PkgPath()
}

// Fields lists every field of the named rpcwire struct types reachable
// from the roots (Responses and Events), sorted.
func Fields() []string {
	set := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			if t == rawMessage {
				return
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			if isWire(t) {
				set[field(t, name)] = true
			}
			walk(f.Type)
		}
	}
	for _, t := range Responses {
		walk(t)
	}
	for _, t := range Events {
		walk(t)
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Mark adds to seen every field of t present in raw, recursively.
func Mark(t reflect.Type, raw []byte, seen func(string)) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessage:
		return
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if raw[0] != '[' {
			return // Content may be a plain string
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for _, it := range items {
			Mark(t.Elem(), it, seen)
		}
	case t.Kind() == reflect.Struct:
		if raw[0] != '{' {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name := jsonName(f)
			v, ok := obj[name]
			if name == "" || !ok {
				continue
			}
			if isWire(t) {
				seen(field(t, name))
			}
			Mark(f.Type, v, seen)
		}
	}
}

// MarkLine marks the fields of one stdout record.
func MarkLine(line []byte, seen func(string)) {
	var head struct {
		Type    string          `json:"type"`
		Command string          `json:"command"`
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(line, &head) != nil {
		return
	}
	if head.Type == "response" {
		if t, ok := Responses[head.Command]; ok && head.Success {
			Mark(t, head.Data, seen)
		}
		return
	}
	if t, ok := Events[head.Type]; ok {
		Mark(t, line, seen)
	}
}

// Recorder appends the fields a process sees for the first time to one
// file of the record directory.
type Recorder struct {
	mu   sync.Mutex
	seen map[string]bool
	f    *os.File
}

var (
	recOnce sync.Once
	rec     *Recorder
)

// FromEnv returns the process's recorder, or nil when EnvDir is not set
// (or its file cannot be created).
func FromEnv() *Recorder {
	recOnce.Do(func() {
		dir := os.Getenv(EnvDir)
		if dir == "" {
			return
		}
		f, err := os.CreateTemp(dir, "fields-*.txt")
		if err != nil {
			fmt.Fprintf(os.Stderr, "wirecov: %v\n", err)
			return
		}
		rec = &Recorder{seen: map[string]bool{}, f: f}
	})
	return rec
}

// Line records one stdout line of an agent.
func (r *Recorder) Line(line []byte) {
	if r == nil {
		return
	}
	var fresh []string
	MarkLine(line, func(f string) {
		r.mu.Lock()
		if !r.seen[f] {
			r.seen[f] = true
			fresh = append(fresh, f)
		}
		r.mu.Unlock()
	})
	if len(fresh) > 0 {
		r.mu.Lock()
		_, _ = r.f.WriteString(strings.Join(fresh, "\n") + "\n")
		r.mu.Unlock()
	}
}

// Missing reads a record directory and returns the fields no file names.
func Missing(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "fields-*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no records in %s: did the tests run with %s=%s?", dir, EnvDir, dir)
	}
	got := map[string]bool{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			got[l] = true
		}
	}
	var missing []string
	for _, f := range Fields() {
		if !got[f] {
			missing = append(missing, f)
		}
	}
	return missing, nil
}
