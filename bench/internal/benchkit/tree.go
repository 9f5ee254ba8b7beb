package benchkit

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// TreeSum adds get(pid) over a process and all its descendants (those
// that exit meanwhile are skipped).
func TreeSum(root int, get func(pid int) (int64, error)) (int64, error) {
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The field after the parenthesised command name: state, ppid.
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	var total int64
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		kb, err := get(pid)
		if err != nil {
			if pid == root {
				return 0, err
			}
			continue
		}
		total += kb
		queue = append(queue, children[pid]...)
	}
	return total, nil
}

// TreeCPU returns the CPU time of a process and all its descendants.
func TreeCPU(root int) (time.Duration, error) {
	ns, err := TreeSum(root, func(pid int) (int64, error) {
		d, err := CPUTime(pid)
		return int64(d), err
	})
	return time.Duration(ns), err
}
