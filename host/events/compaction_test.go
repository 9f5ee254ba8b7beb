package events

import "testing"

func TestCompactionEventsEncode(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{CompactionStart{Reason: CompactionThreshold}, `{"type":"compaction_start","reason":"threshold"}`},
		{CompactionEnd{Reason: CompactionManual, Aborted: true}, `{"type":"compaction_end","reason":"manual","result":null,"aborted":true,"willRetry":false}`},
		{CompactionEnd{Reason: CompactionOverflow, Result: map[string]int{"tokensBefore": 5}, WillRetry: true, ErrorMessage: "x", UnresolvedOverflow: true},
			`{"type":"compaction_end","reason":"overflow","result":{"tokensBefore":5},"aborted":false,"willRetry":true,"errorMessage":"x","unresolvedOverflow":true}`},
		{SummarizationRetryScheduled{Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "terminated"},
			`{"type":"summarization_retry_scheduled","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"terminated"}`},
		{SummarizationRetryAttemptStart{Source: "compaction", Reason: "threshold"}, `{"type":"summarization_retry_attempt_start","source":"compaction","reason":"threshold"}`},
		{SummarizationRetryFinished{}, `{"type":"summarization_retry_finished"}`},
	} {
		got, err := Encode(c.ev)
		if err != nil || string(got) != c.want {
			t.Errorf("got %s (%v), want %s", got, err, c.want)
		}
	}
}
