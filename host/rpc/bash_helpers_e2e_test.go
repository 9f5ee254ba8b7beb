package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// waitFn is a shell function that blocks until a file (relative to the
// agent's directory) exists; tests create it to step a command along.
const waitFn = `w() { while [ ! -e "$1" ]; do sleep 0.01; done; }; `

// gate creates the file a command waits for.
func gate(t *testing.T, a *e2e.Agent, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(a.Dir, name), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// isUpdate matches a bash_execution_update of request id ("" for none).
func isUpdate(r e2e.Record, id string) bool {
	if r.Type() != "bash_execution_update" {
		return false
	}
	got, has := r["id"]
	if id == "" {
		return !has
	}
	return has && fmt.Sprint(got) == id
}

// updates returns the deltas of request id from records, in order.
func updates(recs []e2e.Record, id string) []e2e.Record {
	var out []e2e.Record
	for _, r := range recs {
		if isUpdate(r, id) {
			out = append(out, r)
		}
	}
	return out
}

// streamText joins the deltas of one channel ("" for both).
func streamText(ups []e2e.Record, channel string) string {
	var sb strings.Builder
	for _, u := range ups {
		if channel == "" || u["channel"] == channel {
			sb.WriteString(u["delta"].(string))
		}
	}
	return sb.String()
}

// waitDelta waits until the deltas of request id contain text.
func waitBashDelta(t *testing.T, a *e2e.Agent, from int, id, text string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if strings.Contains(streamText(updates(a.Records(from), id), ""), text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no output %q for %s; records:\n%v\nstderr:\n%s", text, id, a.Records(from), a.Stderr())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitResponse waits for the response to request id.
func waitResponse(t *testing.T, a *e2e.Agent, from int, id string) e2e.Record {
	t.Helper()
	return a.WaitFrom(from, 15*time.Second, func(r e2e.Record) bool {
		return r.Type() == "response" && fmt.Sprint(r["id"]) == id
	})
}

func bashData(t *testing.T, r e2e.Record) map[string]any {
	t.Helper()
	if r["success"] != true {
		t.Fatalf("bash failed: %v", r["error"])
	}
	d, ok := r["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data in %v", r)
	}
	return d
}

// procStat is what /proc/<pid>/stat says about a process.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
}

func readProcs(t *testing.T) []procStat {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return out
}

// descendants lists the live (not zombie) processes whose parent chain
// leads to pid.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	procs := readProcs(t)
	parent := map[int]int{}
	for _, p := range procs {
		parent[p.pid] = p.ppid
	}
	var out []int
	for _, p := range procs {
		if p.state == 'Z' || p.state == 'X' {
			continue
		}
		for q, n := parent[p.pid], 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == pid {
				out = append(out, p.pid)
				break
			}
		}
	}
	return out
}

// groupMembers lists the live processes of a process group.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	var out []int
	for _, p := range readProcs(t) {
		if p.pgrp == pgid && p.state != 'Z' && p.state != 'X' {
			out = append(out, p.pid)
		}
	}
	return out
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
