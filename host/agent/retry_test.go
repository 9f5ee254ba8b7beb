package agent_test

import (
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/agent"
)

func TestRetryPolicyDelay(t *testing.T) {
	p := agent.NewRetryPolicy(true, 3, 2000, 60000)
	for attempt, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 3: 8 * time.Second, 6: 60 * time.Second} {
		if d, ok := p.Delay(attempt, 0); d != want || !ok {
			t.Errorf("attempt %d: %v %v, want %v", attempt, d, ok, want)
		}
	}
	if d, ok := p.Delay(1, 5*time.Second); d != 5*time.Second || !ok {
		t.Errorf("server delay: %v %v", d, ok)
	}
	if _, ok := p.Delay(1, 2*time.Minute); ok {
		t.Errorf("a server delay above the maximum must not be waited for")
	}
}

func TestNewRetryPolicyDefaults(t *testing.T) {
	p := agent.NewRetryPolicy(false, -1, 0, -5)
	if p.Enabled || p.MaxRetries != 0 || p.Base != agent.DefaultRetryBase || p.Max != agent.DefaultRetryMax {
		t.Fatalf("%+v", p)
	}
}
