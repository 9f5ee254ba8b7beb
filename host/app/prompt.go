package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// Streaming behaviours of a prompt sent while the agent runs.
const (
	BehaviorSteer    = "steer"
	BehaviorFollowUp = "followUp"
)

// ErrBusy is returned by Prompt while the agent runs and no streaming
// behaviour was given.
var ErrBusy = errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")

// PromptInput is a user prompt.
type PromptInput struct {
	Text              string
	Images            []llm.ContentBlock
	StreamingBehavior string
}

func userMessage(text string, images []llm.ContentBlock) llm.Message {
	blocks := []llm.ContentBlock{llm.Text(text)}
	blocks = append(blocks, images...)
	return llm.Message{Role: llm.RoleUser, Content: llm.Content{Blocks: blocks}, Timestamp: llm.Now()}
}

// Dispositions of an accepted prompt, steer or follow_up (the
// response's data.disposition, as pi 1.6 reports it).
const (
	// DispositionStarted: the prompt starts a run.
	DispositionStarted = "started"
	// DispositionQueued: the message waits in the steering or follow-up
	// queue.
	DispositionQueued = "queued"
	// DispositionHandled: an extension command, an input hook or a
	// built-in command consumed it; no run starts for it.
	DispositionHandled = "handled"
)

// Accepted is what became of an accepted prompt.
type Accepted struct {
	// Start begins the run (nil when there is nothing to start): the
	// caller acknowledges the prompt first and then calls Start, so that
	// the acknowledgement precedes the run's events. For an extension
	// command (DispositionHandled) Start runs the command to its end: as
	// in pi 1.6, the prompt is answered once the command has finished.
	Start       func()
	Disposition string
}

// Prompt accepts a prompt. It returns a start function (nil when the prompt
// was queued or handled) that begins the run; the caller acknowledges the
// prompt first and then calls start, so that the acknowledgement precedes
// the run's events.
func (rt *Runtime) Prompt(in PromptInput) (start func(), err error) {
	a, err := rt.Submit(in)
	return a.Start, err
}

// Submit is Prompt that also says what became of the prompt.
func (rt *Runtime) Submit(in PromptInput) (Accepted, error) {
	handled := Accepted{Disposition: DispositionHandled}
	if ok, err := rt.builtinCommand(in.Text); ok {
		if err != nil {
			return Accepted{}, err
		}
		return handled, nil
	}
	rt.extReady()
	// An extension command runs at once, even while streaming; no input
	// hook, no expansion.
	if cmd := rt.extensionCommand(in.Text); cmd != nil {
		return Accepted{Start: cmd, Disposition: DispositionHandled}, nil
	}
	// As in pi, nothing the prompt starts runs before the start-up
	// session_start handlers have finished: what they register (a tool,
	// an input handler) is part of the first run.
	rt.extStarted()
	text, images, consumed := rt.inputHook(in.Text, in.Images, rt.inputSource(), rt.streamingBehaviorIfRunning(in.StreamingBehavior))
	if consumed {
		return handled, nil
	}
	in.Images = images
	text = rt.expandInput(text)
	rt.mu.Lock()
	if rt.closing {
		rt.mu.Unlock()
		return Accepted{}, ErrClosing
	}
	if rt.run != nil {
		compacting := rt.isCompactingLocked()
		rt.mu.Unlock()
		if compacting && in.StreamingBehavior == "" {
			// The run is compacting: the prompt waits for it as a follow-up.
			in.StreamingBehavior = BehaviorFollowUp
		}
		queued := Accepted{Disposition: DispositionQueued}
		switch in.StreamingBehavior {
		case BehaviorSteer:
			rt.enqueue(true, text, in.Images)
			return queued, nil
		case BehaviorFollowUp:
			rt.enqueue(false, text, in.Images)
			return queued, nil
		case "":
			return Accepted{}, ErrBusy
		default:
			return Accepted{}, fmt.Errorf("invalid streamingBehavior %q: use \"steer\" or \"followUp\"", in.StreamingBehavior)
		}
	}
	if rt.queue.isPaused() {
		// Queued messages are held: the prompt waits with them.
		rt.mu.Unlock()
		rt.enqueue(in.StreamingBehavior == BehaviorSteer, text, in.Images)
		return Accepted{Disposition: DispositionQueued}, nil
	}
	if rt.model == nil {
		rt.mu.Unlock()
		return Accepted{}, errors.New("No model selected.\n\nSet defaultProvider and defaultModel in settings, or pass --provider and --model.")
	}
	if _, ok := rt.catalog.Credential(rt.model.Provider); !ok {
		p := rt.model.Provider
		rt.mu.Unlock()
		return Accepted{}, fmt.Errorf("No API key found for %s.\n\nSet the provider's API key environment variable or add it to auth.json or models.json.", p)
	}
	if len(in.Images) > 0 && !rt.model.SupportsImages() {
		rt.log.Warn("model does not accept images; sending them anyway", "model", rt.model.ID)
	}
	rt.flushPendingBashLocked()
	run := rt.beginRunLocked()
	wait := rt.compactionDoneLocked()
	rt.mu.Unlock()
	prompt := userMessage(text, in.Images)
	return Accepted{Disposition: DispositionStarted, Start: func() {
		go func() {
			if wait != nil { // a compaction outside a run: start once it is over
				<-wait
			}
			rt.execute(run, []llm.Message{prompt})
		}()
	}}, nil
}

// inputSource is the input event's source for what the front end
// typed: "interactive" in the terminal UI, "rpc" otherwise.
func (rt *Runtime) inputSource() string {
	if rt.opts.Mode == ModeTUI {
		return "interactive"
	}
	return "rpc"
}

// streamingBehaviorIfRunning is the streaming behaviour the input hook
// sees: the given one while a run is active, none when idle.
func (rt *Runtime) streamingBehaviorIfRunning(behavior string) string {
	if !rt.IsStreaming() {
		return ""
	}
	return behavior
}

// Steer queues a steering message.
func (rt *Runtime) Steer(text string, images []llm.ContentBlock) error {
	_, err := rt.Queue(true, text, images)
	return err
}

// FollowUp queues a follow-up message.
func (rt *Runtime) FollowUp(text string, images []llm.ContentBlock) error {
	_, err := rt.Queue(false, text, images)
	return err
}

// Queue queues a steering (steer) or follow-up message after the input
// hook, which may consume it (DispositionHandled) or change it, and
// returns its disposition. Extension commands are refused.
func (rt *Runtime) Queue(steer bool, text string, images []llm.ContentBlock) (string, error) {
	if rt.IsExtensionCommand(text) {
		return "", errQueuedCommand(text)
	}
	rt.extStarted() // as Submit
	behavior := BehaviorFollowUp
	if steer {
		behavior = BehaviorSteer
	}
	text, images, consumed := rt.inputHook(text, images, rt.inputSource(), rt.streamingBehaviorIfRunning(behavior))
	if consumed {
		return DispositionHandled, nil
	}
	rt.enqueue(steer, rt.expandInput(text), images)
	return DispositionQueued, nil
}

func errQueuedCommand(text string) error {
	name, _, _ := splitCommand(text)
	return fmt.Errorf("Extension command \"/%s\" cannot be queued. Use prompt() or execute the command when not streaming.", name)
}

func (rt *Runtime) enqueue(steer bool, text string, images []llm.ContentBlock) {
	rt.enqueueMessage(steer, text, userMessage(text, images))
}

// enqueueMessage queues any message (user or custom) as steering or
// follow-up.
func (rt *Runtime) enqueueMessage(steer bool, text string, msg llm.Message) {
	rt.queue.push(steer, queued{text: text, msg: msg})
}

// dequeue takes queued messages according to the mode.
func (rt *Runtime) dequeue(steer bool) []llm.Message { return rt.queue.dequeue(steer) }

// ClearQueue removes every queued message and returns their texts.
func (rt *Runtime) ClearQueue() (steering, followUp []string) { return rt.queue.clear() }

// PauseQueued holds the queued messages (Atomic's pause_queued_messages):
// steering and follow-up messages stay queued instead of being delivered,
// and a prompt sent while idle is queued too, until ResumeQueued.
func (rt *Runtime) PauseQueued() { rt.queue.pause() }

// ResumeQueued ends a pause. Held messages go on: the run in flight picks
// them up, or, when idle, a new run starts with them. released reports
// whether any message was waiting.
func (rt *Runtime) ResumeQueued() (released bool) {
	released = rt.queue.resume()
	if released {
		rt.ContinueQueued()
	}
	return released
}

// SetSteeringMode sets how steering messages are delivered.
func (rt *Runtime) SetSteeringMode(mode string) error {
	if mode != "all" && mode != "one-at-a-time" {
		return fmt.Errorf("invalid steering mode %q: use \"all\" or \"one-at-a-time\"", mode)
	}
	rt.queue.setMode(true, mode)
	return nil
}

// SetFollowUpMode sets how follow-up messages are delivered.
func (rt *Runtime) SetFollowUpMode(mode string) error {
	if mode != "all" && mode != "one-at-a-time" {
		return fmt.Errorf("invalid follow-up mode %q: use \"all\" or \"one-at-a-time\"", mode)
	}
	rt.queue.setMode(false, mode)
	return nil
}

func (rt *Runtime) beginRunLocked() *activeRun {
	ctx, cancel := context.WithCancel(rt.baseCtx)
	run := &activeRun{ctx: ctx, cancel: cancel, done: make(chan struct{}), settled: make(chan struct{}), prev: rt.last}
	rt.run = run
	rt.last = run
	return run
}

// execute runs the agent for prompts. A message queued too late for the
// agent loop to pick it up (after its last look at the queues) starts
// another round instead of waiting for the next prompt.
//
// For clients a run is over when they see agent_end: a prompt sent on that
// event must find the agent idle. So the decision to finish (clearing
// rt.run) is taken just before agent_end goes out. A run started in the
// meantime waits until this one has emitted agent_settled before it
// begins, so runs never interleave their events.
//
// Automatic compaction hooks in here (compaction.go): before the prompt
// and after the run when the context is over the threshold, and after a
// run that overflowed the model's context, which stays active, compacts
// and retries once.
func (rt *Runtime) execute(run *activeRun, prompts []llm.Message) {
	if run.prev != nil {
		<-run.prev.settled
		run.prev = nil // do not keep the whole history of runs alive
	}
	rt.compactOverThreshold(run)
	var rec overflowRecovery
	retry := rt.newRetrier(run) // automatic retry of transient provider errors (retry.go)
	defer retry.done()
	first := true
	settles := 0 // continuations agent_before_settle asked for
	rt.waitMCPDirect(run.ctx)
	for {
		cfg := rt.agentConfig()
		retry.instrument(cfg)
		if first && prompts[0].Role == llm.RoleUser {
			// Messages extensions held for the next prompt, then
			// before_agent_start (system prompt for this run, injected
			// messages).
			prompts = append(prompts, rt.takeNextTurn()...)
			prompts = rt.beforeAgentStart(run.ctx, cfg, prompts)
		}
		first = false
		var next []llm.Message
		var retryIn time.Duration
		retrying := false
		cfg.Emit = func(ev events.Event) {
			if end, ok := ev.(events.AgentEnd); ok {
				recovering := false
				if retryIn, retrying = retry.plan(end.Messages); !retrying {
					if recovering = rec.begin(rt, run, end.Messages); !recovering {
						next = rt.nextOrFinish(run)
					}
				}
				end.WillRetry = retrying || recovering
				ev = end
			}
			rt.agentEvent(ev)
			retry.observe(ev)
		}
		rt.mu.Lock()
		history := append([]llm.Message(nil), rt.contextLocked()...)
		rt.mu.Unlock()
		agent.Run(run.ctx, cfg, history, prompts)
		retry.flush()
		if retrying {
			if retry.sleep(retryIn) {
				prompts = nil
				continue
			}
			next = rt.nextOrFinish(run)
		} else if rec.after(rt, run) {
			prompts = nil // retry the turn on the compacted context
			retry.failedMsg, retry.failedLevel, rec.failed = rec.failed, retry.lastLevel, nil
			continue
		} else if rec.retry {
			next = rt.nextOrFinish(run) // no retry after all: finish as usual
		}
		if next == nil {
			// agent_before_settle may ask for one more request; a run
			// started meanwhile (a prompt sent on agent_end) is that
			// request already.
			if settles >= maxSettleContinuations {
				rt.log.Warn("agent_before_settle asked to continue too many times in a row; the run settles", "limit", maxSettleContinuations)
				break
			}
			if !rt.beforeSettle(run.ctx) || !rt.resume(run) {
				break
			}
			settles++
		}
		prompts = next
	}
	rt.compactOverThreshold(run)
	aborted := run.ctx.Err() != nil // cancelled by abort (or a session change, shutdown)
	run.cancel()
	close(run.done)
	rt.Emit(events.AgentSettled{Aborted: aborted})
	close(run.settled)
}

// nextOrFinish returns the queued messages to continue run with, or clears
// the run and returns nil (always nil for an aborted run).
func (rt *Runtime) nextOrFinish(run *activeRun) (next []llm.Message) {
	rt.queue.update(func() bool {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if run.ctx.Err() == nil && !rt.closing {
			if next = rt.queue.takeNext(); len(next) > 0 {
				return true
			}
		}
		if rt.run == run {
			rt.run = nil
			rt.flushPendingBashLocked()
		}
		return false
	})
	return next
}

// maxSettleContinuations bounds the requests agent_before_settle can add
// to one run (an unconditional continue would never settle).
const maxSettleContinuations = 16

// resume makes run the active run again after it finished (rt.run was
// cleared at agent_end), unless another run or a shutdown came first.
func (rt *Runtime) resume(run *activeRun) bool {
	ok := false
	rt.queue.update(func() bool {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if rt.run == nil && rt.last == run && !rt.closing && run.ctx.Err() == nil {
			rt.run, ok = run, true
		}
		return false
	})
	return ok
}

// ContinueQueued starts a run for messages still queued when the agent is
// idle (after an abort, queued steering and follow-up messages go on). It
// does nothing while a run is active or when the queues are empty.
func (rt *Runtime) ContinueQueued() {
	var run *activeRun
	var msgs []llm.Message
	rt.queue.update(func() bool {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if rt.run != nil || rt.closing || rt.model == nil {
			return false
		}
		if msgs = rt.queue.takeNext(); len(msgs) == 0 {
			return false
		}
		run = rt.beginRunLocked()
		return true
	})
	if run != nil {
		go rt.execute(run, msgs)
	}
}

func (rt *Runtime) agentConfig() *agent.Config {
	rt.mu.Lock()
	model := *rt.model
	level := rt.thinking
	sess := rt.sess
	files, runner := rt.toolFiles, rt.toolRunner
	rt.mu.Unlock()
	provider, err := rt.catalog.ProviderFor(model)
	key, _ := rt.catalog.Credential(model.Provider)
	cfg := &agent.Config{
		Model: model, Provider: provider, APIKey: key, Headers: rt.requestHeaders(model, key),
		SystemPrompt: rt.systemPrompt(), ThinkingLevel: level, SessionID: sess.ID(),
		Tools: rt.tools, Cwd: rt.Cwd(), Env: rt.toolEnv(), Shell: rt.shell(),
		Emit:            rt.agentEvent,
		MaxTurnRequests: max(rt.settings.MaxTurnRequests, 0),
		BlockImages:     rt.settings.Images.BlockImages,
		Files:           files, Runner: runner,
		Steering: func() []llm.Message { return rt.dequeue(true) },
		FollowUp: func() []llm.Message { return rt.dequeue(false) },
	}
	if err != nil {
		cfg.Stream = func(context.Context, *llm.Request, *llm.Builder) error { return err }
	}
	rt.installHooks(cfg)
	return cfg
}

// toolEnv is the environment the session's commands see.
func (rt *Runtime) toolEnv() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.toolEnvLocked()
}

// toolEnvLocked is toolEnv with rt.mu held. Every ATOMIC_ variable also
// comes as PI_ for scripts written for pi.
func (rt *Runtime) toolEnvLocked() []string {
	vars := [][2]string{{"SESSION_ID", rt.sess.ID()}, {"SESSION_FILE", rt.sess.Path()}}
	if rt.model != nil {
		vars = append(vars, [2]string{"PROVIDER", rt.model.Provider}, [2]string{"MODEL", rt.model.ID})
	}
	vars = append(vars, [2]string{"REASONING_LEVEL", rt.thinking})
	env := []string{"AI_AGENT=atomic"}
	for _, v := range vars {
		env = append(env, "ATOMIC_"+v[0]+"="+v[1], "PI_"+v[0]+"="+v[1])
	}
	if rt.offline() {
		env = append(env, extensions.OfflineEnv()...) // as pi's own process has them
	}
	return env
}

// agentEvent records finished messages in the session and forwards every
// event to the listeners. A message is recorded before its message_end goes out, so that a client
// reacting to the event finds it in get_messages.
func (rt *Runtime) agentEvent(ev events.Event) {
	rt.notifyExtensions(ev)
	if end, ok := ev.(events.MessageEnd); ok {
		rt.mu.Lock()
		rt.messages = append(rt.contextLocked(), end.Message)
		sess := rt.sess
		rt.mu.Unlock()
		msg := end.Message
		if e := rt.appendEntry(sess, session.Entry{Type: session.TypeMessage, Message: &msg}); e != nil {
			rt.ext.noteTurnEntry(msg.Role, e.ID)
		}
	}
	rt.Emit(ev)
}

// Abort cancels the turn (CancelTurn) and waits until it has stopped.
func (rt *Runtime) Abort() { rt.CancelTurn() }

// CancelTurn is the one "cancel this turn" of every front end (RPC abort,
// ACP session/cancel, an extension's ctx.abort(), the terminal's Esc), as
// pi's abort: an import's copy, the wait before a retry, a compaction and
// the run in flight (its model request and its tools, bash included) are
// cancelled, and it returns once they have stopped; it reports whether a
// run was cancelled. Queued steering and follow-up messages stay queued:
// RPC continues them after answering (ContinueQueued), ACP leaves them to
// the next prompt.
func (rt *Runtime) CancelTurn() bool {
	rt.AbortImport()
	rt.AbortRetry()
	rt.AbortCompaction()
	return rt.AbortRun()
}

// AbortRun cancels the run in flight (including one that is emitting its
// last events), waits until its agent loop has returned, and reports
// whether there was one.
func (rt *Runtime) AbortRun() bool {
	run := rt.current()
	if run == nil {
		return false
	}
	run.cancel()
	<-run.done
	return true
}

// current returns the active run, or the latest one while its agent loop
// has not returned; nil when idle.
func (rt *Runtime) current() *activeRun {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.run != nil {
		return rt.run
	}
	if last := rt.last; last != nil {
		select {
		case <-last.done:
		default:
			return last
		}
	}
	return nil
}

// WaitIdle blocks until no run is in flight and the last one has emitted
// all its events, or ctx ends.
func (rt *Runtime) WaitIdle(ctx context.Context) error {
	for {
		rt.mu.Lock()
		run := rt.run
		if run == nil {
			run = rt.last
		}
		rt.mu.Unlock()
		if run == nil {
			return nil
		}
		select {
		case <-run.settled:
			rt.mu.Lock()
			idle := rt.run == nil && rt.last == run
			rt.mu.Unlock()
			if idle {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// IsStreaming reports whether a run is in flight.
func (rt *Runtime) IsStreaming() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.run != nil
}

// Messages returns the conversation's messages (the current context).
func (rt *Runtime) Messages() []llm.Message {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]llm.Message(nil), rt.contextLocked()...)
}
