// Package rpcclient drives a coding agent that speaks the JSON-lines
// `--mode rpc` protocol (atomic, or any compatible binary) from Go.
//
// Start launches the agent as a child process and talks to it over its
// stdin and stdout. Every command gets a request id ("req_1", "req_2", …)
// and the call returns when the response with that id arrives. Records
// that are not responses to a pending call (events, extension UI
// requests, responses nobody waits for such as parse errors) go to the
// subscribers returned by Subscribe.
//
// Deadlines follow the reference client's policy: quick commands
// (get_state, set_model, …) fail with a *TimeoutError after
// Options.RequestTimeout (30 s by default); commands that may rightly run
// for long (prompt, steer, follow_up, abort, bash, compact, new_session,
// switch_session, fork, clone, …; see LongLived) have no deadline of their
// own. The context passed to each method bounds any call.
//
// When the process exits, every call still waiting fails with an
// *ExitError that carries the exit status and the tail of the agent's
// stderr. Stop ends the agent with SIGTERM and, after Options.StopTimeout,
// SIGKILL; CloseInput ends it gracefully by closing its stdin.
//
// Dialogs an extension opens in the agent (select, confirm, input,
// editor) arrive as extension_ui_request records; set Options.UIHandler
// to answer them, or answer with RespondUI.
//
// This package does not import the agent's own packages: it only knows
// the wire protocol, so it works with any binary that speaks it.
package rpcclient
