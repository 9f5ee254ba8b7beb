// Package jsonl is the stdio layer shared by the protocol front ends
// (host/rpc and host/acp): JSON-lines framing of the input (ReadLines) and
// the single writer of the protocol stream (Writer), through which every
// record either front end sends must pass.
package jsonl

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
