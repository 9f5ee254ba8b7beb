// Package rpc is the JSON-lines front end of --mode rpc: it frames stdin into
// commands, routes them by "type" through the command table on an ordinary
// lane (one at a time, in order) or a concurrent lane (interrupts and
// independent work), writes exactly one response per command, and owns the
// single writer of stdout through which every response, event and extension
// UI request passes.
package rpc

import (
	"io"

	"github.com/atomic-go/atomic/host/jsonl"
)

// ReadLines calls fn for every record of r (host/jsonl's framing: LF only,
// one trailing CR stripped, no size limit).
func ReadLines(r io.Reader, fn func(line []byte)) error { return jsonl.ReadLines(r, fn) }

// Writer is the single writer of the protocol stream (host/jsonl).
type Writer = jsonl.Writer

// NewWriter starts a writer on w (see jsonl.NewWriter).
func NewWriter(w io.Writer, onErr func(error)) *Writer { return jsonl.NewWriter(w, onErr) }

// ErrAbandoned is the error of a stream whose client stopped reading.
var ErrAbandoned = jsonl.ErrAbandoned
