package llm

import (
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as a JSON string. It produces the same value as
// encoding/json without its HTML escaping, and is used on the hot path of
// streamed deltas.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// AppendUsage appends the usage object's JSON.
func AppendUsage(dst []byte, u Usage) []byte {
	dst = append(dst, `{"input":`...)
	dst = appendInt(dst, u.Input)
	dst = append(dst, `,"output":`...)
	dst = appendInt(dst, u.Output)
	dst = append(dst, `,"cacheRead":`...)
	dst = appendInt(dst, u.CacheRead)
	dst = append(dst, `,"cacheWrite":`...)
	dst = appendInt(dst, u.CacheWrite)
	dst = append(dst, `,"totalTokens":`...)
	dst = appendInt(dst, u.TotalTokens)
	dst = append(dst, `,"cost":{"input":`...)
	dst = appendFloat(dst, u.Cost.Input)
	dst = append(dst, `,"output":`...)
	dst = appendFloat(dst, u.Cost.Output)
	dst = append(dst, `,"cacheRead":`...)
	dst = appendFloat(dst, u.Cost.CacheRead)
	dst = append(dst, `,"cacheWrite":`...)
	dst = appendFloat(dst, u.Cost.CacheWrite)
	dst = append(dst, `,"total":`...)
	dst = appendFloat(dst, u.Cost.Total)
	dst = append(dst, '}')
	if u.CacheWrite1h != 0 {
		dst = append(dst, `,"cacheWrite1h":`...)
		dst = appendInt(dst, u.CacheWrite1h)
	}
	if u.Reasoning != 0 {
		dst = append(dst, `,"reasoning":`...)
		dst = appendInt(dst, u.Reasoning)
	}
	return append(dst, '}')
}
