package app

import (
	"reflect"
	"testing"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

func testQueues(mode string) (*messageQueues, *[]events.QueueUpdate) {
	var got []events.QueueUpdate
	q := newMessageQueues(func(ev events.Event) { got = append(got, ev.(events.QueueUpdate)) }, mode, mode)
	return q, &got
}

func push(q *messageQueues, steer bool, text string) {
	q.push(steer, queued{text: text, msg: userMessage(text, nil)})
}

func texts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content.JoinText(""))
	}
	return out
}

// Every change of the lists is followed by a queue_update with the lists
// as they are; a pause holds deliveries and resume reports what it held.
func TestMessageQueues(t *testing.T) {
	q, got := testQueues("one-at-a-time")
	push(q, true, "s1")
	push(q, false, "f1")
	push(q, true, "s2")
	want := []events.QueueUpdate{
		{Steering: []string{"s1"}, FollowUp: []string{}},
		{Steering: []string{"s1"}, FollowUp: []string{"f1"}},
		{Steering: []string{"s1", "s2"}, FollowUp: []string{"f1"}},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("events %+v", *got)
	}
	if st := q.status(); st.pending != 3 || st.paused || st.steeringMode != "one-at-a-time" {
		t.Fatalf("status %+v", st)
	}

	q.pause()
	if out := q.dequeue(true); out != nil {
		t.Fatalf("delivered while paused: %v", texts(out))
	}
	var next []llm.Message
	q.update(func() bool { next = q.takeNext(); return len(next) > 0 })
	if next != nil || len(*got) != 3 {
		t.Fatalf("took %v while paused, events %d", texts(next), len(*got))
	}
	if !q.resume() || q.resume() {
		t.Fatal("resume should report the held messages once")
	}

	// One at a time: steering first, then follow-ups.
	q.update(func() bool { next = q.takeNext(); return len(next) > 0 })
	if !reflect.DeepEqual(texts(next), []string{"s1"}) {
		t.Fatalf("next %v", texts(next))
	}
	q.setMode(true, "all")
	if out := q.dequeue(true); !reflect.DeepEqual(texts(out), []string{"s2"}) {
		t.Fatalf("dequeue %v", texts(out))
	}
	if last := (*got)[len(*got)-1]; !reflect.DeepEqual(last, events.QueueUpdate{Steering: []string{}, FollowUp: []string{"f1"}}) {
		t.Fatalf("last event %+v", last)
	}

	steering, followUp := q.clear()
	if len(steering) != 0 || !reflect.DeepEqual(followUp, []string{"f1"}) {
		t.Fatalf("cleared %v %v", steering, followUp)
	}
	n := len(*got)
	q.clear() // nothing to clear: no event
	if len(*got) != n || q.status().pending != 0 {
		t.Fatalf("events %d, want %d", len(*got), n)
	}
}

func TestMessageQueuesAllMode(t *testing.T) {
	q, _ := testQueues("all")
	push(q, false, "f1")
	push(q, false, "f2")
	if out := q.dequeue(false); !reflect.DeepEqual(texts(out), []string{"f1", "f2"}) {
		t.Fatalf("dequeue %v", texts(out))
	}
	push(q, true, "s1")
	var had bool
	q.update(func() bool { had = q.drop(); return had })
	if !had || q.status().pending != 0 {
		t.Fatal("drop")
	}
}
