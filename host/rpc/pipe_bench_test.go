package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/atomic-go/atomic/host/rpc"
)

// BenchmarkGetStatePipe is the request path as a client sees it: a
// get_state written to a real pipe, read by Serve (framing, decoding, the
// Quick lane), answered through the single writer onto a second real pipe
// and read back by the client, one round trip per iteration. Both pipes
// come from os.Pipe, so they are non-blocking descriptors polled by the Go
// runtime, as the agent's stdio is after takeOverStdio. The figures
// include the client's side of the round trip (one write, one read).
func BenchmarkGetStatePipe(b *testing.B) {
	rt := newRuntime(b)
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	srv := rpc.NewServer(rt, outW, nil)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), inR) }()

	req := []byte(`{"id":"b","type":"get_state"}` + "\n")
	prefix := []byte(`{"id":"b","type":"response","command":"get_state","success":true`)
	client := bufio.NewReaderSize(outR, 64<<10)
	roundTrip := func() {
		if _, err := inW.Write(req); err != nil {
			b.Fatal(err)
		}
		line, err := client.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.HasPrefix(line, prefix) {
			b.Fatalf("unexpected record %.200s", line)
		}
	}
	roundTrip() // warm-up: the first get_state builds what later ones reuse
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		roundTrip()
	}
	b.StopTimer()

	inW.Close()
	if err := <-served; err != nil {
		b.Fatal(err)
	}
	outW.Close()
	outR.Close()
	inR.Close()
}
