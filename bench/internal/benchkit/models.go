package benchkit

import (
	"fmt"
	"os"
	"strings"
)

// LocalModels is the models.json of the bench programs: one provider
// "local" speaking openai-completions at baseURL (a scripted llmtest
// server), with one text model id, no reasoning, no cost.
func LocalModels(baseURL, id string) string {
	return fmt.Sprintf(`{"providers": {"local": {"baseUrl": %q, "api": "openai-completions", "apiKey": "bench-key",
	  "models": [{"id": %q, "name": "Bench Model", "reasoning": false, "input": ["text"], "contextWindow": 128000, "maxTokens": 16384,
	    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}}`, baseURL+"/v1", id)
}

// LoadAvg is the machine's 1, 5 and 15 minute load average ("?" when it
// cannot be read).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
