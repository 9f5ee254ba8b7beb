//go:build unix

package rpc_test

import (
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// BenchmarkBashRPC8MB measures a direct bash command streaming 8 MB of text
// through the protocol: deltas, the truncated response and the spill file.
func BenchmarkBashRPC8MB(b *testing.B) {
	a := e2e.Start(b, e2e.Options{Env: map[string]string{"TMPDIR": b.TempDir()}})
	b.SetBytes(8 << 20)
	for b.Loop() {
		from := a.Len()
		id := a.NewID()
		a.Send(map[string]any{"id": id, "type": "bash", "command": `head -c 8388608 /dev/zero | tr '\0' 'a' | fold -w 99`})
		r := a.WaitFrom(from, 60*time.Second, func(r e2e.Record) bool { return r.Type() == "response" && r["id"] == id })
		if r["success"] != true {
			b.Fatal(r)
		}
	}
}

// BenchmarkBashRPCLatency measures a small command's round trip (start a
// shell, stream one delta, respond).
func BenchmarkBashRPCLatency(b *testing.B) {
	a := e2e.Start(b, e2e.Options{})
	for b.Loop() {
		if r := a.Request(map[string]any{"type": "bash", "command": "echo hi"}); r["success"] != true {
			b.Fatal(r)
		}
	}
}
