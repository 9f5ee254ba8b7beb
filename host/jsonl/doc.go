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
	return ReadLinesMax(r, -1, fn, nil)
}

// HeadMax is how much of an over-long record ReadLinesMax keeps.
const HeadMax = 64 << 10

// ReadLinesMax is ReadLines with records bounded at max bytes (max < 0:
// no bound). A longer record is not given to fn: once it passes max the
// rest of it is discarded while it is read, so memory stays bounded
// whatever the input, and when it ends (at LF or EOF) long is called with
// its first bytes (at most HeadMax), for an error that names it.
func ReadLinesMax(r io.Reader, max int, fn func(line []byte), long func(head []byte)) error {
	br := bufio.NewReaderSize(r, 64*1024)
	var acc []byte
	over := false // the record being read passed max; acc holds its head
	end := func(line []byte) {
		if over {
			long(acc)
		} else {
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			fn(line)
		}
		over = false
		acc = acc[:0]
		if cap(acc) > 1<<20 {
			acc = nil // do not keep a huge buffer after one big record
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		eol := err == nil
		if eol {
			chunk = chunk[:len(chunk)-1]
		} else if !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return err
		}
		switch {
		case over:
		case max >= 0 && len(acc)+len(chunk) > max:
			over = true
			if len(acc) > HeadMax {
				acc = acc[:HeadMax]
			}
			acc = append(acc, chunk[:min(len(chunk), HeadMax-len(acc))]...)
		case eol && len(acc) == 0:
			end(chunk)
			continue
		default:
			acc = append(acc, chunk...)
		}
		switch {
		case eol:
			end(acc)
		case errors.Is(err, io.EOF):
			if len(acc) > 0 || over {
				end(acc)
			}
			return nil
		}
	}
}
