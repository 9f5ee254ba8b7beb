//go:build unix

package rpc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestBashOrderedDeltasOnBothChannels(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	// Each line waits for the test to see the previous one, so the order
	// of the deltas is known.
	a.Send(map[string]any{"id": "b1", "type": "bash", "command": waitFn +
		`for i in 1 2 3; do echo "out $i"; w o$i; printf 'err %s\n' $i >&2; w e$i; done; exit 7`})
	for i := 1; i <= 3; i++ {
		waitBashDelta(t, a, from, "b1", fmt.Sprintf("out %d\n", i))
		gate(t, a, fmt.Sprintf("o%d", i))
		waitBashDelta(t, a, from, "b1", fmt.Sprintf("err %d\n", i))
		gate(t, a, fmt.Sprintf("e%d", i))
	}
	resp := waitResponse(t, a, from, "b1")
	d := bashData(t, resp)
	ups := updates(a.Records(from), "b1")
	var seq []string
	for _, u := range ups {
		seq = append(seq, u["channel"].(string)+":"+u["delta"].(string))
	}
	want := []string{"stdout:out 1\n", "stderr:err 1\n", "stdout:out 2\n", "stderr:err 2\n", "stdout:out 3\n", "stderr:err 3\n"}
	if strings.Join(seq, "|") != strings.Join(want, "|") {
		t.Fatalf("deltas %q\nwant %q", seq, want)
	}
	if d["output"] != "out 1\nerr 1\nout 2\nerr 2\nout 3\nerr 3\n" || d["exitCode"] != 7.0 || d["cancelled"] != false || d["truncated"] != false {
		t.Fatalf("data %v", d)
	}
	if _, has := d["fullOutputPath"]; has {
		t.Fatalf("fullOutputPath without truncation: %v", d)
	}
	// The response is the terminal record: no delta after it.
	recs := a.Records(from)
	for i, r := range recs {
		if r.Type() == "response" && r["id"] == "b1" {
			if len(updates(recs[i+1:], "b1")) != 0 {
				t.Fatal("delta after the response")
			}
		}
	}
}

func TestBashCleansDeltas(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	// ANSI colours, CR, an invalid byte, and "é" split across two writes.
	a.Send(map[string]any{"id": "c", "type": "bash", "command": `printf '\033[1;31mred\033[0m\r\n\377|\303'; sleep 0.05; printf '\251\n'`})
	d := bashData(t, waitResponse(t, a, from, "c"))
	got := streamText(updates(a.Records(from), "c"), "stdout")
	if got != "red\n\ufffd|é\n" || d["output"] != got {
		t.Fatalf("deltas %q output %q", got, d["output"])
	}
	for _, line := range a.RawLines() {
		if !utf8.Valid(line) {
			t.Fatalf("invalid UTF-8 on stdout: %q", line)
		}
	}
}

func TestBashConcurrentRequestsKeepTheirIDs(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	// Step them alternately: A1 B1 A2 B2 A3 B3.
	a.Send(map[string]any{"id": "A", "type": "bash", "command": waitFn + `echo A1; w a1; echo A2 >&2; w a2; echo A3`})
	waitBashDelta(t, a, from, "A", "A1")
	a.Send(map[string]any{"id": "B", "type": "bash", "command": waitFn + `echo B1; w b1; echo B2; w b2; echo B3 >&2`})
	waitBashDelta(t, a, from, "B", "B1")
	gate(t, a, "a1")
	waitBashDelta(t, a, from, "A", "A2")
	gate(t, a, "b1")
	waitBashDelta(t, a, from, "B", "B2")
	gate(t, a, "a2")
	ra := waitResponse(t, a, from, "A")
	gate(t, a, "b2")
	rb := waitResponse(t, a, from, "B")

	recs := a.Records(from)
	var global []string
	for _, r := range recs {
		if r.Type() == "bash_execution_update" {
			global = append(global, strings.TrimSpace(r["delta"].(string)))
			if id := r["id"].(string); !strings.HasPrefix(r["delta"].(string), id) {
				t.Errorf("delta %q under id %s", r["delta"], id)
			}
		}
	}
	if strings.Join(global, " ") != "A1 B1 A2 B2 A3 B3" {
		t.Errorf("global order %v", global)
	}
	if out := bashData(t, ra)["output"]; out != "A1\nA2\nA3\n" {
		t.Errorf("A output %q", out)
	}
	if out := bashData(t, rb)["output"]; out != "B1\nB2\nB3\n" {
		t.Errorf("B output %q", out)
	}
	if streamText(updates(recs, "A"), "stderr") != "A2\n" || streamText(updates(recs, "B"), "stderr") != "B3\n" {
		t.Errorf("channels mixed up")
	}
}

func TestBashTargetedAbort(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	a.Send(map[string]any{"id": "long", "type": "bash", "command": `sleep 100 & echo "started $$"; wait`})
	a.Send(map[string]any{"id": "other", "type": "bash", "command": waitFn + `echo started; w go; echo finished`})
	waitBashDelta(t, a, from, "long", "started")
	waitBashDelta(t, a, from, "other", "started")

	ab := a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": "long"})
	if _, has := ab["data"]; has {
		t.Errorf("abort_bash data: %v", ab)
	}
	d := bashData(t, waitResponse(t, a, from, "long"))
	if d["cancelled"] != true {
		t.Fatalf("aborted request: %v", d)
	}
	if _, has := d["exitCode"]; has {
		t.Fatalf("exitCode present after cancel: %v", d)
	}
	var pg int
	if _, err := fmt.Sscanf(d["output"].(string), "started %d", &pg); err != nil {
		t.Fatalf("output %q: %v", d["output"], err)
	}
	eventually(t, "the aborted command's processes to die", func() bool { return len(groupMembers(t, pg)) == 0 })
	// The other request is untouched: it still runs and finishes normally.
	for _, r := range a.Records(from) {
		if r.Type() == "response" && r["id"] == "other" {
			t.Fatal("the other request was answered by a targeted abort")
		}
	}
	gate(t, a, "go")
	od := bashData(t, waitResponse(t, a, from, "other"))
	if od["cancelled"] != false || od["exitCode"] != 0.0 || od["output"] != "started\nfinished\n" {
		t.Fatalf("other request: %v", od)
	}
	eventually(t, "no child processes left", func() bool { return len(descendants(t, a.Process().Pid)) == 0 })
}

func TestAbortBashUnknownAndFinishedIDs(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": "nope"})
	a.MustSucceed(map[string]any{"type": "abort_bash"})
	r := a.MustSucceed(map[string]any{"id": "done", "type": "bash", "command": "echo hi"})
	a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": "done"})
	if d := bashData(t, r); d["cancelled"] != false {
		t.Fatal(d)
	}
	// Numeric ids are matched as JSON values.
	from := a.Len()
	a.Send(map[string]any{"id": 42, "type": "bash", "command": `sleep 100 & echo started; wait`})
	waitBashDelta(t, a, from, "42", "started")
	a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": "42"}) // a string is another id
	a.MustSucceed(map[string]any{"type": "abort_bash", "requestId": 42})
	d := bashData(t, waitResponse(t, a, from, "42"))
	if d["cancelled"] != true {
		t.Fatal(d)
	}
}

func TestBashGlobalAbortIncludesRequestsFromReplacedSession(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	a.Send(map[string]any{"id": "old", "type": "bash", "command": `sleep 100 & echo "started $$"; wait`})
	waitBashDelta(t, a, from, "old", "started")
	a.MustSucceed(map[string]any{"type": "new_session"})
	a.Send(map[string]any{"id": "new", "type": "bash", "command": `sleep 100 & echo "started $$"; wait`})
	a.Send(map[string]any{"type": "bash", "command": `sleep 100 & echo "noid-started $$"; wait`})
	waitBashDelta(t, a, from, "new", "started")
	waitBashDelta(t, a, from, "", "noid-started")
	if n := len(descendants(t, a.Process().Pid)); n < 6 {
		t.Fatalf("expected 3 shells and 3 sleeps, found %d processes", n)
	}
	a.MustSucceed(map[string]any{"type": "abort_bash"})
	var groups []int
	for _, id := range []string{"old", "new"} {
		d := bashData(t, waitResponse(t, a, from, id))
		var pg int
		if _, err := fmt.Sscanf(fmt.Sprint(d["output"]), "started %d", &pg); d["cancelled"] != true || err != nil {
			t.Fatalf("%s: %v", id, d)
		}
		groups = append(groups, pg)
	}
	noid := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool {
		_, has := r["id"]
		return r.Type() == "response" && !has
	})
	d := bashData(t, noid)
	var pg int
	if _, err := fmt.Sscanf(fmt.Sprint(d["output"]), "noid-started %d", &pg); d["cancelled"] != true || err != nil {
		t.Fatal(d)
	}
	groups = append(groups, pg)
	eventually(t, "no child processes left", func() bool { return len(descendants(t, a.Process().Pid)) == 0 })
	for _, pg := range groups {
		eventually(t, fmt.Sprintf("group %d to be empty", pg), func() bool { return len(groupMembers(t, pg)) == 0 })
	}
}

func TestBashWithoutIDHasNoIDInUpdates(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	a.SendRaw(`{"type":"bash","command":"echo one; echo two >&2"}` + "\n")
	resp := a.WaitType(from, "response")
	if _, has := resp["id"]; has || resp["command"] != "bash" {
		t.Fatalf("response %v", resp)
	}
	ups := updates(a.Records(from), "")
	if streamText(ups, "stdout") != "one\n" || streamText(ups, "stderr") != "two\n" {
		t.Fatalf("updates %v", ups)
	}
	for _, line := range a.RawLines() {
		if strings.Contains(string(line), "bash_execution_update") && strings.Contains(string(line), `"id"`) {
			t.Fatalf("id key in %s", line)
		}
	}
}

func TestUserBash(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	r := a.Request(map[string]any{"id": "u", "type": "user_bash", "command": "echo via-user-bash"})
	if r["command"] != "user_bash" || bashData(t, r)["output"] != "via-user-bash\n" {
		t.Fatalf("response %v", r)
	}
	if got := streamText(updates(a.Records(from), "u"), ""); got != "via-user-bash\n" {
		t.Fatalf("deltas %q", got)
	}
}

func TestBashBadInput(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	for _, tc := range []struct {
		cmd  map[string]any
		want string
	}{
		{map[string]any{"type": "bash"}, `missing required field "command"`},
		{map[string]any{"type": "bash", "command": ""}, `"command" must not be empty`},
		{map[string]any{"type": "bash", "command": " \n\t"}, `"command" must not be empty`},
		{map[string]any{"type": "bash", "command": 5}, `field "command" must be a string`},
		{map[string]any{"type": "user_bash", "command": ""}, `"command" must not be empty`},
	} {
		r := a.Request(tc.cmd)
		if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), tc.want) {
			t.Errorf("%v: %v", tc.cmd, r)
		}
	}
	// Nothing was recorded.
	msgs := a.MustSucceed(map[string]any{"type": "get_messages"})["data"].(map[string]any)["messages"].([]any)
	if len(msgs) != 0 {
		t.Fatalf("messages %v", msgs)
	}
}

func TestBashBinaryFlood(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Env: map[string]string{"TMPDIR": t.TempDir()}})
	d := bashData(t, a.Request(map[string]any{"id": "bin", "type": "bash", "command": `head -c 8000000 /dev/urandom`}))
	if d["truncated"] != true || d["exitCode"] != 0.0 {
		t.Fatalf("data %v", d)
	}
	if out := d["output"].(string); len(out) > 50*1024 || !utf8.ValidString(out) {
		t.Fatalf("output of %d bytes", len(out))
	}
	total := 0
	for _, line := range a.RawLines() {
		if !utf8.Valid(line) || !json.Valid(line) {
			t.Fatal("invalid line on stdout")
		}
		total += len(line)
	}
	if total < 8000000 {
		t.Fatalf("only %d bytes of deltas for 8 MB of output", total)
	}
	// Memory stays bounded: the agent never holds the whole output.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", a.Process().Pid))
	if err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				f := strings.Fields(l)
				kb, _ := strconv.Atoi(f[1])
				if kb > 400*1024 {
					t.Fatalf("peak RSS %d kB", kb)
				}
			}
		}
	}
	// The agent still works.
	if out := bashData(t, a.Request(map[string]any{"type": "bash", "command": "echo still-alive"}))["output"]; out != "still-alive\n" {
		t.Fatalf("after flood: %q", out)
	}
}

func TestBashEnvironment(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	st := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)
	model := st["model"].(map[string]any)
	r := a.MustSucceed(map[string]any{"type": "bash", "command": `echo "$ATOMIC_SESSION_ID|$PI_SESSION_ID|$ATOMIC_PROVIDER|$ATOMIC_MODEL|$PI_PROVIDER|$PI_MODEL|$ATOMIC_REASONING_LEVEL|$ATOMIC_SESSION_FILE|$PI_SESSION_FILE|$AI_AGENT|$(pwd -P)"`})
	got := strings.TrimSpace(bashData(t, r)["output"].(string))
	dir := strings.TrimSpace(bashData(t, a.MustSucceed(map[string]any{"type": "bash", "command": "cd " + shellQuote(a.Dir) + " && pwd -P"}))["output"].(string))
	file, _ := st["sessionFile"].(string)
	if file == "" {
		t.Fatalf("no session file in %v", st)
	}
	want := strings.Join([]string{st["sessionId"].(string), st["sessionId"].(string), model["provider"].(string), model["id"].(string),
		model["provider"].(string), model["id"].(string), st["thinkingLevel"].(string), file, file, "atomic", dir}, "|")
	if got != want {
		t.Fatalf("env %q\nwant %q", got, want)
	}

	// In memory (--no-session) the file variable is set but empty.
	m := e2e.Start(t, e2e.Options{Args: []string{"--no-session"}})
	r = m.MustSucceed(map[string]any{"type": "bash", "command": `echo "${ATOMIC_SESSION_FILE-unset}|${PI_SESSION_FILE-unset}|$ATOMIC_SESSION_ID"`})
	if got, id := bashData(t, r)["output"], state(m)["sessionId"]; got != fmt.Sprintf("||%s\n", id) {
		t.Fatalf("in memory: %q", got)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestBashStdinEOFCancelsAndDrains(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	from := a.Len()
	ids := []string{"x", "y"}
	for _, id := range ids {
		a.Send(map[string]any{"id": id, "type": "bash", "command": `sleep 100 & sleep 100 & echo "pg $$"; wait`})
	}
	a.SendRaw(`{"type":"bash","command":"sleep 100 & echo \"pg $$\"; wait"}` + "\n")
	var groups []int
	for _, id := range []string{"x", "y", ""} {
		waitBashDelta(t, a, from, id, "pg ")
		var pg int
		if _, err := fmt.Sscanf(streamText(updates(a.Records(from), id), ""), "pg %d", &pg); err != nil {
			t.Fatal(err)
		}
		if len(groupMembers(t, pg)) == 0 {
			t.Fatalf("process group %d not found", pg)
		}
		groups = append(groups, pg)
	}
	if n := len(descendants(t, a.Process().Pid)); n < 8 {
		t.Fatalf("expected 3 shells and 5 sleeps, found %d processes", n)
	}
	a.CloseStdin()
	if code := a.Wait(15 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	// Each request still got exactly one response, saying it was cancelled.
	recs := a.Records(from)
	count := map[string]int{}
	for _, r := range recs {
		if r.Type() != "response" {
			continue
		}
		id := ""
		if v, has := r["id"]; has {
			id = fmt.Sprint(v)
		}
		count[id]++
		if d := bashData(t, r); d["cancelled"] != true || d["output"] == "" {
			t.Errorf("response %v", r)
		}
	}
	if count["x"] != 1 || count["y"] != 1 || count[""] != 1 {
		t.Fatalf("responses per id: %v", count)
	}
	for _, pg := range groups {
		eventually(t, fmt.Sprintf("process group %d to be gone", pg), func() bool { return len(groupMembers(t, pg)) == 0 })
	}
}

func TestAbortBashRightAfterBash(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	for i := 0; i < 5; i++ {
		from := a.Len()
		id := fmt.Sprintf("quick-%d", i)
		// Both lines in one write: the abort must find the request even
		// if its shell has not started yet.
		a.SendRaw(fmt.Sprintf(`{"id":%q,"type":"bash","command":"sleep 100 & wait"}`+"\n"+`{"id":"ab-%d","type":"abort_bash","requestId":%q}`+"\n", id, i, id))
		d := bashData(t, waitResponse(t, a, from, id))
		if d["cancelled"] != true {
			t.Fatalf("%s: %v", id, d)
		}
		waitResponse(t, a, from, fmt.Sprintf("ab-%d", i))
	}
	eventually(t, "no child processes left", func() bool { return len(descendants(t, a.Process().Pid)) == 0 })
}
