package events

// Compaction reasons.
const (
	CompactionManual    = "manual"
	CompactionThreshold = "threshold"
	CompactionOverflow  = "overflow"
)

// CompactionStart is emitted when a compaction begins.
type CompactionStart struct {
	Reason string `json:"reason"`
}

// CompactionEnd is emitted when a compaction is over. Result is the
// compaction result (null when none was committed); Result and
// ErrorMessage are independent.
type CompactionEnd struct {
	Reason             string `json:"reason"`
	Result             any    `json:"result"`
	Aborted            bool   `json:"aborted"`
	WillRetry          bool   `json:"willRetry"`
	ErrorMessage       string `json:"errorMessage,omitempty"`
	UnresolvedOverflow bool   `json:"unresolvedOverflow,omitempty"`
}

// SummarizationRetryScheduled is emitted before waiting to retry a
// transient error of a compaction planner call.
type SummarizationRetryScheduled struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// SummarizationRetryAttemptStart is emitted when a retried planner call
// starts.
type SummarizationRetryAttemptStart struct {
	Source string `json:"source"`
	Reason string `json:"reason,omitempty"`
}

// SummarizationRetryFinished is emitted when a retry loop is over.
type SummarizationRetryFinished struct{}

// EventType implementations.
func (CompactionStart) EventType() string                { return "compaction_start" }
func (CompactionEnd) EventType() string                  { return "compaction_end" }
func (SummarizationRetryScheduled) EventType() string    { return "summarization_retry_scheduled" }
func (SummarizationRetryAttemptStart) EventType() string { return "summarization_retry_attempt_start" }
func (SummarizationRetryFinished) EventType() string     { return "summarization_retry_finished" }
