package fault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Class 5 of issue 17: every line the agent writes is UTF-8 (RFC 8259
// §8.1), whatever bytes the client or a file supplied; invalid bytes
// become U+FFFD. (The harness also checks every stdout line of every e2e
// test for UTF-8 when the test ends.)

// rawLinesWith returns the raw stdout lines that contain
// marker, after checking that every line is UTF-8.
func rawLinesWith(t *testing.T, a *e2e.Agent, marker string) [][]byte {
	t.Helper()
	var out [][]byte
	for i, line := range a.RawLines() {
		if !utf8.Valid(line) {
			t.Fatalf("stdout line %d is not UTF-8: %q", i+1, clip(string(line), 200))
		}
		if bytes.Contains(line, []byte(marker)) {
			out = append(out, line)
		}
	}
	return out
}

func waitRecord(t *testing.T, a *e2e.Agent, match func(e2e.Record) bool) e2e.Record {
	t.Helper()
	return a.WaitFrom(0, 10*time.Second, match)
}

func TestInvalidUTF8InAnIDIsReplacedInTheEcho(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	// The example, a number id with odd spacing, a nested id.
	a.SendRaw("{\"id\":\"\xff\xfeX\",\"type\":\"get_state\"}\n")
	a.SendRaw("{\"id\":{\"k\":\"\xc3(\"},\"type\":\"get_state\"}\n")
	a.SendRaw("{\"id\":\"ok\xe2\x82\",\"type\":\"no_such_\xffcommand\"}\n")
	r := waitRecord(t, a, func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == "\ufffd\ufffdX" })
	if r["success"] != true {
		t.Fatalf("get_state failed: %v", r)
	}
	waitRecord(t, a, func(r e2e.Record) bool {
		m, ok := r["id"].(map[string]any)
		return r.Type() == "response" && ok && m["k"] == "\ufffd("
	})
	u := waitRecord(t, a, func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == "ok\ufffd\ufffd" })
	if msg, _ := u["error"].(string); !strings.Contains(msg, "no_such_\ufffdcommand") {
		t.Fatalf("the error does not quote the command (with U+FFFD): %v", u)
	}
	rawLinesWith(t, a, "response")
}

// Valid ids of every shape come back byte for byte, escapes included.
func TestValidIDsRoundTripExactly(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	ids := []string{`"plain"`, `"\u00e9t\u00e9"`, `"été"`, `"\ud83d\ude00 😀"`, `"\uFFFD"`, "\"\xef\xbf\xbd\"", `7`, `-0.5e3`, `{"a":[1,"x"]}`, `""`, `"\u2028\u2029"`, `"\\\"\/"`}
	for _, id := range ids {
		a.SendRaw(`{"id":` + id + `,"type":"get_state"}` + "\n")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := rawLinesWith(t, a, `"command":"get_state"`)
		if len(got) == len(ids) {
			for i, line := range got {
				want := `{"id":` + id(ids[i]) + `,"type":"response"`
				if !bytes.HasPrefix(line, []byte(want)) {
					t.Errorf("id %s came back as %q", ids[i], clip(string(line), 80))
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d responses", len(got), len(ids))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// id is the id as echoed: compacted (these are already compact).
func id(s string) string { return s }

func TestInvalidUTF8InBashExecutionUpdates(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	a.SendRaw("{\"id\":\"b\xff\",\"type\":\"bash\",\"command\":\"printf 'out\\\\377put'; printf 'err\\\\376' >&2\"}\n")
	r := waitRecord(t, a, func(r e2e.Record) bool { return r.Type() == "response" && r["command"] == "bash" })
	if r["id"] != "b\ufffd" || r["success"] != true {
		t.Fatalf("bash response: %v", r)
	}
	ups := rawLinesWith(t, a, `"bash_execution_update"`)
	if len(ups) == 0 {
		t.Fatal("no bash_execution_update")
	}
	for _, up := range ups {
		if !bytes.Contains(up, []byte(`"id":"b\ufffd"`)) && !bytes.Contains(up, []byte("\"id\":\"b\xef\xbf\xbd\"")) {
			t.Fatalf("update without the replaced id: %s", up)
		}
	}
}

// Raw lines of a session file are passed through by get_entries without
// re-encoding: bytes that are not UTF-8 in them are replaced too, and in
// every other answer that carries them.
func TestInvalidUTF8FromASessionFile(t *testing.T) {
	dir := t.TempDir()
	body := testHeader(dir) + "\n" +
		"{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff\",\"timestamp\":1767225601000},\"extra\":\"\xfe\"}\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	a := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--session", p}})
	for _, typ := range []string{"get_entries", "get_messages", "get_tree", "export_html"} {
		r := a.Request(map[string]any{"type": typ})
		if r["success"] != true {
			t.Fatalf("%s: %v", typ, r)
		}
	}
	if got := rawLinesWith(t, a, "caf"); len(got) < 2 {
		t.Fatalf("the message text was not in get_entries and get_messages: %d lines", len(got))
	}
}

func testHeader(cwd string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`, cwd)
}
