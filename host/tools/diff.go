package tools

import (
	"fmt"
	"strings"
)

// maxLCSCells bounds the work of the line-level LCS; larger changed regions
// are shown as a block removal followed by a block addition.
const maxLCSCells = 4_000_000

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// diffLines splits s into lines for diffing; a final newline does not start
// an extra empty line.
func diffLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lineDiff computes a line edit script from a to b.
func lineDiff(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-pre-suf)
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) <= maxLCSCells {
		ops = append(ops, lcsDiff(ma, mb)...)
	} else {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// lcsDiff is a dynamic-programming diff for small inputs; removals come
// before additions within a changed run.
func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// l[i][j] = LCS length of a[i:] and b[j:]
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// unifiedDiff renders the change from oldText to newText as a unified diff
// with the given number of context lines, and returns the 1-based line
// number in newText of the first change (0 when nothing changed).
func unifiedDiff(name, oldText, newText string, context int) (string, int) {
	ops := lineDiff(diffLines(oldText), diffLines(newText))
	var changes []int
	for i, op := range ops {
		if op.kind != ' ' {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 {
		return "", 0
	}
	// Line numbers before each op.
	oldBefore := make([]int, len(ops)+1)
	newBefore := make([]int, len(ops)+1)
	for i, op := range ops {
		oldBefore[i+1], newBefore[i+1] = oldBefore[i], newBefore[i]
		if op.kind != '+' {
			oldBefore[i+1]++
		}
		if op.kind != '-' {
			newBefore[i+1]++
		}
	}
	firstChanged := newBefore[changes[0]] + 1

	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	for k := 0; k < len(changes); {
		// Extend the hunk while the gap to the next change is small.
		last := k
		for last+1 < len(changes) && changes[last+1]-changes[last]-1 <= 2*context {
			last++
		}
		start := max(0, changes[k]-context)
		end := min(len(ops), changes[last]+context+1)
		oldCount := oldBefore[end] - oldBefore[start]
		newCount := newBefore[end] - newBefore[start]
		oldStart, newStart := oldBefore[start], newBefore[start]
		if oldCount > 0 {
			oldStart++
		}
		if newCount > 0 {
			newStart++
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldCount, newStart, newCount)
		for _, op := range ops[start:end] {
			b.WriteByte(op.kind)
			b.WriteString(op.text)
			b.WriteByte('\n')
		}
		k = last + 1
	}
	return strings.TrimSuffix(b.String(), "\n"), firstChanged
}
