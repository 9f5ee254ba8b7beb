// Package fuzzy ranks texts against a typed query the way pi 1.6's pickers
// and `--list-models` do: every character of the query in order, not
// necessarily together; runs of adjacent characters and starts of words
// score better, gaps and late matches worse. A lower score is a better
// match.
package fuzzy

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Match reports whether query matches text and with which score (lower is
// better). Case is ignored. A query of letters then digits ("gpt5") or
// digits then letters also matches with the two parts swapped, a little
// worse.
func Match(query, text string) (bool, float64) {
	q := []rune(strings.ToLower(query))
	t := []rune(strings.ToLower(text))
	if ok, s := match(q, t); ok {
		return true, s
	}
	swapped := swap(string(q))
	if swapped == "" {
		return false, 0
	}
	if ok, s := match([]rune(swapped), t); ok {
		return true, s + 5
	}
	return false, 0
}

// swap turns "gpt5" into "5gpt" and "5gpt" into "gpt5": a run of ASCII
// letters and a run of digits, either first; "" for anything else.
func swap(q string) string {
	isLetter := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for _, first := range []func(byte) bool{isLetter, isDigit} {
		second := isDigit
		if first(0x30) { // digits first
			second = isLetter
		}
		i := 0
		for i < len(q) && first(q[i]) {
			i++
		}
		j := i
		for j < len(q) && second(q[j]) {
			j++
		}
		if i > 0 && j > i && j == len(q) {
			return q[i:] + q[:i]
		}
	}
	return ""
}

func match(q, t []rune) (bool, float64) {
	if len(q) == 0 {
		return true, 0
	}
	if len(q) > len(t) {
		return false, 0
	}
	// Each query character at its first place after the previous one.
	pos := make([]int, len(q))
	last := -1
	for k, c := range q {
		i := index(t, c, last+1)
		if i < 0 {
			return false, 0
		}
		pos[k], last = i, i
	}
	score := scorePositions(t, pos)
	// That alignment can spread the query over an unrelated early part of
	// the text; every place the query occurs whole is scored too.
	for start := indexRunes(t, q, 0); start >= 0; start = indexRunes(t, q, start+1) {
		for k := range pos {
			pos[k] = start + k
		}
		score = math.Min(score, scorePositions(t, pos))
	}
	if string(q) == string(t) {
		score -= 100
	}
	return true, score
}

func scorePositions(t []rune, pos []int) float64 {
	score := 0.0
	last, run := -1, 0
	for _, i := range pos {
		if last == i-1 {
			run++
			score -= float64(run * 5)
		} else {
			run = 0
			if last >= 0 {
				score += float64((i - last - 1) * 2)
			}
		}
		if i == 0 || isBoundary(t[i-1]) {
			score -= 10
		}
		score += float64(i) * 0.1
		last = i
	}
	return score
}

func isBoundary(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("-_./:", r)
}

func index(t []rune, c rune, from int) int {
	for i := from; i < len(t); i++ {
		if t[i] == c {
			return i
		}
	}
	return -1
}

func indexRunes(t, q []rune, from int) int {
	for i := from; i+len(q) <= len(t); i++ {
		if string(t[i:i+len(q)]) == string(q) {
			return i
		}
	}
	return -1
}

// Filter keeps the items whose text matches every token of query (tokens
// are separated by white space or "/"), best first; items that score the
// same keep their order. An empty query keeps every item as it is.
func Filter[T any](items []T, query string, text func(T) string) []T {
	tokens := strings.FieldsFunc(query, func(r rune) bool { return unicode.IsSpace(r) || r == '/' })
	if len(tokens) == 0 {
		return items
	}
	type scored struct {
		item  T
		score float64
	}
	var out []scored
	for _, it := range items {
		s := text(it)
		total, all := 0.0, true
		for _, tok := range tokens {
			ok, sc := Match(tok, s)
			if !ok {
				all = false
				break
			}
			total += sc
		}
		if all {
			out = append(out, scored{it, total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score < out[j].score })
	res := make([]T, len(out))
	for i, o := range out {
		res[i] = o.item
	}
	return res
}
