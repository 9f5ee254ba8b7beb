package llm

// Cost is money in US dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is the token usage of one assistant message and what it cost.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
	// Optional detail some providers report (written only when non-zero).
	CacheWrite1h int `json:"cacheWrite1h,omitempty"`
	Reasoning    int `json:"reasoning,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Input: u.Input + o.Input, Output: u.Output + o.Output,
		CacheRead: u.CacheRead + o.CacheRead, CacheWrite: u.CacheWrite + o.CacheWrite,
		TotalTokens:  u.TotalTokens + o.TotalTokens,
		CacheWrite1h: u.CacheWrite1h + o.CacheWrite1h, Reasoning: u.Reasoning + o.Reasoning,
		Cost: Cost{
			Input: u.Cost.Input + o.Cost.Input, Output: u.Cost.Output + o.Cost.Output,
			CacheRead: u.Cost.CacheRead + o.Cost.CacheRead, CacheWrite: u.Cost.CacheWrite + o.Cost.CacheWrite,
			Total: u.Cost.Total + o.Cost.Total,
		},
	}
}

// ModelCost is a model's price in US dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Model describes one model of one provider, in the protocol's shape.
type Model struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	API           string    `json:"api"`
	Provider      string    `json:"provider"`
	BaseURL       string    `json:"baseUrl"`
	Reasoning     bool      `json:"reasoning"`
	Input         []string  `json:"input"`
	ContextWindow int       `json:"contextWindow"`
	MaxTokens     int       `json:"maxTokens"`
	Cost          ModelCost `json:"cost"`
	// Headers are extra request headers (raw models.json values, which may
	// name secrets); they are never serialised.
	Headers map[string]string `json:"-"`
	Compat  map[string]any    `json:"compat,omitempty"`
	// ThinkingLevels, when set, lists the levels the model supports beyond
	// the standard ones (for example "xhigh" or "max").
	ThinkingLevels []string `json:"thinkingLevels,omitempty"`
}

// FillCost sets u.Cost from the model's prices and u.TotalTokens when it is
// zero.
func (m *Model) FillCost(u *Usage) {
	if u.TotalTokens == 0 {
		u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	u.Cost.Input = float64(u.Input) * m.Cost.Input / 1e6
	u.Cost.Output = float64(u.Output) * m.Cost.Output / 1e6
	u.Cost.CacheRead = float64(u.CacheRead) * m.Cost.CacheRead / 1e6
	u.Cost.CacheWrite = float64(u.CacheWrite) * m.Cost.CacheWrite / 1e6
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// SupportsImages reports whether the model accepts image input.
func (m *Model) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// Thinking levels.
const (
	ThinkingOff     = "off"
	ThinkingMinimal = "minimal"
	ThinkingLow     = "low"
	ThinkingMedium  = "medium"
	ThinkingHigh    = "high"
	ThinkingXHigh   = "xhigh"
	ThinkingMax     = "max"
)

// AllThinkingLevels lists every level in cycle order.
var AllThinkingLevels = []string{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh, ThinkingMax}

// IsThinkingLevel reports whether s names a thinking level.
func IsThinkingLevel(s string) bool {
	for _, l := range AllThinkingLevels {
		if l == s {
			return true
		}
	}
	return false
}

// ThinkingLevelsFor returns the levels a model supports, in cycle order: only
// "off" for a model without reasoning, the five standard levels otherwise,
// plus any extra levels the model lists.
func ThinkingLevelsFor(m *Model) []string {
	if m == nil || !m.Reasoning {
		return []string{ThinkingOff}
	}
	levels := []string{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh}
	for _, extra := range []string{ThinkingXHigh, ThinkingMax} {
		for _, l := range m.ThinkingLevels {
			if l == extra {
				levels = append(levels, extra)
			}
		}
	}
	return levels
}

// ClampThinkingLevel returns the supported level closest to want, never
// above it when a lower one exists.
func ClampThinkingLevel(m *Model, want string) string {
	levels := ThinkingLevelsFor(m)
	rank := func(l string) int {
		for i, x := range AllThinkingLevels {
			if x == l {
				return i
			}
		}
		return 0
	}
	best := levels[0]
	for _, l := range levels {
		if rank(l) <= rank(want) {
			best = l
		}
	}
	return best
}
