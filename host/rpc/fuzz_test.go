package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/rpc"
)

var (
	fuzzOnce     sync.Once
	fuzzSettings *config.Loaded
	fuzzDir      string
)

// fuzzRuntime returns a fresh runtime on the unscripted faux model; the
// settings are loaded once per process.
func fuzzRuntime(t *testing.T) *app.Runtime {
	fuzzOnce.Do(func() {
		os.Unsetenv("ATOMIC_FAUX_SCRIPT")
		os.Unsetenv("ATOMIC_FAUX_RECORD")
		dir, err := os.MkdirTemp("", "atomic-fuzz-")
		if err != nil {
			panic(err)
		}
		fuzzDir = dir
		paths := config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}
		fuzzSettings, err = config.Load(paths, true, nil)
		if err != nil {
			panic(err)
		}
	})
	rt, err := app.New(app.Options{Cwd: fuzzDir, Settings: fuzzSettings, NoTools: true})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// FuzzServeLines feeds arbitrary input through the whole front end
// (framing, decoding, dispatch, handlers, the writer) and checks the
// protocol's promises: only JSON objects on the output, one response per
// command line, every id echoed as given.
func FuzzServeLines(f *testing.F) {
	for _, seed := range []string{
		`{"id":"1","type":"get_state"}` + "\n",
		`{"id":1,"type":"prompt","message":"hi"}` + "\n" + `{"id":2,"type":"abort"}`,
		`{"type":"prompt","message":"a","streamingBehavior":"steer"}` + "\r\n" + `{"type":"steer","message":"b","images":[{"type":"image","data":"AA==","mimeType":"image/png"}]}` + "\n",
		`{"type":"follow_up","message":5}` + "\n" + `{"type":"clear_queue"}` + "\n",
		"\n\n \x00\xff{\n[1,2]\nnull\n\"s\"\n",
		`{"id":{"deep":[1,{"x":null}]},"type":"nope"}` + "\n" + `{"id":null}` + "\n",
		`{"type":"set_steering_mode","mode":"all"}` + "\n" + `{"type":"set_follow_up_mode"}` + "\n",
		`{"type":"new_session","parentSession":"/x"}` + "\n" + `{"type":"get_messages"}` + "\n" + `{"type":"get_last_assistant_text"}`,
		`{"type":"extension_ui_response","id":"u1","value":"x"}` + "\n",
		`{"id":"big","type":"prompt","message":"` + strings.Repeat("\u2028x", 1000) + `"}` + "\n",
		`{"type":"prompt","message":"x"}{"type":"get_state"}` + "\n",
		`{"type":"set_auto_retry","enabled":"yes"}` + "\n" + `{"type":"set_auto_compaction","enabled":false}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// What the input asks for: one response per line that is not an
		// extension UI response, carrying the line's id when it has one.
		wantResponses := 0
		var wantIDs []string
		_ = rpc.ReadLines(bytes.NewReader(data), func(line []byte) {
			req, lerr := rpc.ParseCommand(line)
			if lerr == nil && rpc.IsUIResponse(req) {
				return
			}
			wantResponses++
			switch {
			case lerr != nil && lerr.ID != nil:
				wantIDs = append(wantIDs, string(lerr.ID))
			case lerr == nil && req.ID != nil:
				wantIDs = append(wantIDs, string(req.ID))
			}
		})

		rt := fuzzRuntime(t)
		var out syncBuffer
		srv := rpc.NewServer(rt, &out, nil)
		done := make(chan error, 1)
		go func() { done <- srv.Serve(context.Background(), bytes.NewReader(data)) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Serve did not finish")
		}

		raw := out.String()
		if raw != "" && !strings.HasSuffix(raw, "\n") {
			t.Fatalf("output does not end with a newline")
		}
		responses := 0
		var gotIDs []string
		for _, line := range strings.Split(strings.TrimSuffix(raw, "\n"), "\n") {
			if line == "" && raw == "" {
				continue
			}
			var rec map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("output line is not a JSON object: %q", line)
			}
			if string(rec["type"]) != `"response"` {
				continue
			}
			responses++
			if id, ok := rec["id"]; ok {
				var buf bytes.Buffer
				if err := json.Compact(&buf, id); err != nil {
					t.Fatal(err)
				}
				gotIDs = append(gotIDs, buf.String())
			}
			if s := string(rec["success"]); s != "true" && s != "false" {
				t.Fatalf("response without success: %q", line)
			}
			if string(rec["success"]) == "false" {
				var msg string
				if json.Unmarshal(rec["error"], &msg) != nil || msg == "" {
					t.Fatalf("failure without an error text: %q", line)
				}
			}
		}
		if responses != wantResponses {
			t.Fatalf("%d responses for %d command lines\ninput %q\noutput %s", responses, wantResponses, data, raw)
		}
		// Ids are echoed as the client wrote them (compacted; the same
		// JSON value).
		norm := func(ids []string) []string {
			out := make([]string, len(ids))
			for i, id := range ids {
				var v any
				_ = json.Unmarshal([]byte(id), &v)
				b, _ := json.Marshal(v)
				out[i] = string(b)
			}
			sort.Strings(out)
			return out
		}
		w, g := norm(wantIDs), norm(gotIDs)
		if strings.Join(w, "\x00") != strings.Join(g, "\x00") {
			t.Fatalf("ids\n want %q\n got  %q", w, g)
		}
	})
}
