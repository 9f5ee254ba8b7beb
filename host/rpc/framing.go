// Package rpc is the JSON-lines front end of --mode rpc: it frames stdin into
// commands, routes them by "type" through the command table on an ordinary
// lane (one at a time, in order) or a concurrent lane (interrupts and
// independent work), writes exactly one response per command, and owns the
// single writer of stdout through which every response, event and extension
// UI request passes.
package rpc

import (
	"bufio"

	"errors"
	"io"
)

// ReadLines calls fn for every record of r: records end at LF only, one
// trailing CR is stripped, a last record without LF is delivered, and there
// is no size limit. U+2028 and U+2029 are ordinary characters. It returns
// nil at EOF.
func ReadLines(r io.Reader, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 64*1024)
	var acc []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			var line []byte
			if len(acc) > 0 {
				acc = append(acc, chunk...)
				line = acc
			} else {
				line = chunk
			}
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			fn(line)
			acc = acc[:0]
			if cap(acc) > 1<<20 {
				acc = nil // do not keep a huge buffer after one big record
			}
		case errors.Is(err, bufio.ErrBufferFull):
			acc = append(acc, chunk...)
		case errors.Is(err, io.EOF):
			acc = append(acc, chunk...)
			if len(acc) > 0 {
				if n := len(acc); acc[n-1] == '\r' {
					acc = acc[:n-1]
				}
				fn(acc)
			}
			return nil
		default:
			return err
		}
	}
}
