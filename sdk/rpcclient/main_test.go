package rpcclient_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/leaktest"
)

// TestMain builds the atomic binary into a temporary directory put first
// on PATH (so that the examples can use the default executable name), and
// gives every agent an isolated home with no provider credentials (so it
// runs on the offline faux model). Run with RPCCLIENT_FAKE_AGENT set, the
// test binary plays a scripted agent instead (see fakeAgent).
func TestMain(m *testing.M) {
	if mode := os.Getenv("RPCCLIENT_FAKE_AGENT"); mode != "" {
		os.Exit(fakeAgent(mode))
	}
	if !runsTests() {
		os.Exit(m.Run()) // fuzzing or benchmarks only: no binary needed
	}
	dir, err := os.MkdirTemp("", "rpcclient-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "atomic"), "github.com/atomic-go/atomic/cmd/atomic")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	home := filepath.Join(dir, "home")
	for _, kv := range os.Environ() {
		k := kv[:strings.IndexByte(kv, '=')]
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "ATOMIC_") || strings.HasPrefix(k, "PI_") {
			os.Unsetenv(k)
		}
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("HOME", home)
	os.Setenv("ATOMIC_CODING_AGENT_DIR", filepath.Join(home, ".atomic", "agent"))
	code := leaktest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeAgent is a scripted stand-in for an agent, for the client's own
// behaviour: exits, timeouts, signals, UI round trips, huge records.
func fakeAgent(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	respond := func(cmd map[string]any, data any) {
		r := map[string]any{"type": "response", "command": cmd["type"], "success": true}
		if id, ok := cmd["id"]; ok {
			r["id"] = id
		}
		if data != nil {
			r["data"] = data
		}
		emit(r)
	}
	switch mode {
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "exit-now":
		fmt.Fprintln(os.Stderr, "fatal: no model available")
		return 3
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var cmd map[string]any
		if json.Unmarshal(line, &cmd) != nil {
			emit(map[string]any{"type": "response", "command": "parse", "success": false, "error": "Failed to parse command: bad"})
			continue
		}
		switch mode {
		case "exit43":
			fmt.Fprintln(os.Stderr, "boom: the agent gave up")
			return 43
		case "slow":
			if cmd["type"] == "prompt" {
				go func() {
					time.Sleep(400 * time.Millisecond)
					respond(cmd, nil)
				}()
			}
			// Everything else is never answered.
		case "ignore-term":
			respond(cmd, nil)
		case "ui":
			switch cmd["type"] {
			case "extension_ui_response":
				emit(map[string]any{"type": "echo", "got": cmd})
			case "go":
				emit(map[string]any{"type": "extension_ui_request", "id": "ui-1", "method": "confirm", "title": "Delete?", "message": "rm -rf build"})
				emit(map[string]any{"type": "extension_ui_request", "id": "ui-2", "method": "notify", "message": "hello"})
				emit(map[string]any{"type": "extension_ui_request", "id": "ui-3", "method": "select", "title": "Pick", "options": []string{"a", "b"}})
				respond(cmd, nil)
			}
		case "echo":
			switch cmd["type"] {
			case "big":
				respond(cmd, map[string]any{"blob": strings.Repeat("x", 2<<20)})
			case "null":
				respond(cmd, json.RawMessage("null"))
			case "fail":
				emit(map[string]any{"id": cmd["id"], "type": "response", "command": "fail", "success": false, "error": "it failed", "errorCode": "credential_synchronization"})
			case "bash":
				emit(map[string]any{"type": "bash_execution_update", "id": cmd["id"], "channel": "stdout", "delta": "one\n"})
				emit(map[string]any{"type": "bash_execution_update", "id": "other", "channel": "stdout", "delta": "not mine\n"})
				emit(map[string]any{"type": "bash_execution_update", "id": cmd["id"], "channel": "stderr", "delta": "two\n"})
				respond(cmd, map[string]any{"output": "one\ntwo\n", "exitCode": 0, "cancelled": false, "truncated": false})
			default:
				fmt.Println("not json: ignored by the client")
				respond(cmd, cmd)
			}
		}
	}
}

// runsTests reports whether this process will run tests or examples (not
// when it is a fuzzing worker, or run with -test.run=^$).
func runsTests() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzzworker") || a == "-test.run=^$" {
			return false
		}
	}
	return true
}
