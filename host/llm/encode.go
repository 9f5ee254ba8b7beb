package llm

import (
	"strconv"

	"github.com/atomic-go/atomic/internal/jsonw"
)

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
	dst = jsonw.AppendFloat(dst, u.Cost.Input)
	dst = append(dst, `,"output":`...)
	dst = jsonw.AppendFloat(dst, u.Cost.Output)
	dst = append(dst, `,"cacheRead":`...)
	dst = jsonw.AppendFloat(dst, u.Cost.CacheRead)
	dst = append(dst, `,"cacheWrite":`...)
	dst = jsonw.AppendFloat(dst, u.Cost.CacheWrite)
	dst = append(dst, `,"total":`...)
	dst = jsonw.AppendFloat(dst, u.Cost.Total)
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
