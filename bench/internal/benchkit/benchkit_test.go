package benchkit

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestMedianDoesNotReorder(t *testing.T) {
	xs := []time.Duration{5, 1, 4, 2, 3}
	if got := Median(xs); got != 3 {
		t.Fatalf("Median = %v, want 3", got)
	}
	if !slices.Equal(xs, []time.Duration{5, 1, 4, 2, 3}) {
		t.Fatalf("Median reordered its input: %v", xs)
	}
	// An even count gives the upper middle sample.
	if got := Median([]int64{40, 10, 30, 20}); got != 30 {
		t.Fatalf("Median of four = %d, want 30", got)
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 10; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := Summarize(ds)
	want := Summary{Min: 1 * time.Millisecond, Median: 6 * time.Millisecond, Mean: 5500 * time.Microsecond,
		P90: 10 * time.Millisecond, Max: 10 * time.Millisecond}
	if s != want {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
	if ds[0] != 10*time.Millisecond {
		t.Fatalf("Summarize reordered its input")
	}
}

func TestMS(t *testing.T) {
	for d, want := range map[time.Duration]string{
		12345678 * time.Nanosecond: "12.3 ms",
		999 * time.Nanosecond:      "0.0 ms",
		1500 * time.Millisecond:    "1500.0 ms",
	} {
		if got := MS(d); got != want {
			t.Errorf("MS(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStatusField(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	kib, err := StatusField(os.Getpid(), "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	if kib <= 0 {
		t.Fatalf("VmHWM of this test = %d KiB", kib)
	}
	if _, err := StatusField(os.Getpid(), "NoSuchField"); err == nil {
		t.Fatal("no error for a missing field")
	}
}

func TestProcWaitForAndStop(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	p := Start(exec.Command(cat))
	p.Send(`{"id":"a","type":"x"}`)
	p.Send(`{"id":"b","type":"response","success":true}`)
	if got := p.WaitFor(`"id":"b"`, `"success":true`); got != `{"id":"b","type":"response","success":true}` {
		t.Fatalf("WaitFor returned %q", got)
	}
	p.Stop()
	if p.Cmd.ProcessState == nil || !p.Cmd.ProcessState.Exited() {
		t.Fatal("process not waited for")
	}
}

func TestCPUTimeGrowsWithWork(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	before, err := CPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the thread clock has moved by 20 ms of CPU time.
	x := 0
	deadline := time.Now().Add(20 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("20 s of wall time and the CPU time has not moved by 20 ms")
		}
		for i := 0; i < 1e6; i++ {
			x += i
		}
		now, err := CPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now-before >= 20*time.Millisecond {
			break
		}
	}
	_ = x
	if _, err := CPUTime(-1); err == nil {
		t.Fatal("no error for a process that does not exist")
	}
}
