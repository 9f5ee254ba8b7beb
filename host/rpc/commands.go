package rpc

// commandTable returns the protocol's commands, one group per file of
// this package (cmd_<area>.go holds the handlers). Each server builds its
// own table, so nothing outside NewServer can change what a server answers
// (WithCommand adds to one server's table).
func commandTable() map[string]Command {
	return map[string]Command{
		// cmd_bash.go
		"bash":       {Lane: Concurrent, Handler: handleBash, Accept: acceptBash},
		"user_bash":  {Lane: Concurrent, Handler: handleBash, Accept: acceptBash},
		"abort_bash": {Lane: Concurrent, Handler: handleAbortBash},
		// cmd_commands.go
		"get_commands":             {Lane: Ordinary, Handler: handleGetCommands},
		"get_command_completions":  {Lane: Ordinary, Handler: handleGetCommandCompletions},
		"reload":                   {Lane: Ordinary, Handler: handleReload},
		"get_resource_diagnostics": {Lane: Ordinary, Handler: handleGetResourceDiagnostics},
		// cmd_compact.go
		"compact":          {Lane: Ordinary, Handler: handleCompact},
		"abort_compaction": {Lane: Concurrent, Handler: handleAbortCompaction},
		// cmd_extensions.go
		"get_extensions": {Lane: Ordinary, Handler: handleGetExtensions},
		"trust_project":  {Lane: Ordinary, Handler: handleTrustProject},
		// cmd_mcp.go
		"get_mcp_servers": {Lane: Ordinary, Handler: handleGetMCPServers},
		"mcp_reconnect":   {Lane: Concurrent, Handler: handleMCPReconnect}, // a slow server never holds up other commands
		// cmd_model.go
		"set_model":                     {Lane: Ordinary, Handler: handleSetModel},
		"cycle_model":                   {Lane: Ordinary, Handler: handleCycleModel},
		"get_available_models":          {Lane: Ordinary, Handler: handleGetAvailableModels},
		"logout_provider":               {Lane: Ordinary, Handler: handleLogoutProvider},
		"set_thinking_level":            {Lane: Ordinary, Handler: handleSetThinkingLevel},
		"cycle_thinking_level":          {Lane: Ordinary, Handler: handleCycleThinkingLevel},
		"get_available_thinking_levels": {Lane: Ordinary, Handler: handleGetThinkingLevels},
		"abort_retry":                   {Lane: Concurrent, Handler: handleAbortRetry},
		// cmd_prompt.go
		"prompt":                 {Lane: Ordinary, Handler: handlePrompt},
		"steer":                  {Lane: Ordinary, Handler: handleSteer},
		"follow_up":              {Lane: Ordinary, Handler: handleFollowUp},
		"abort":                  {Lane: Concurrent, Handler: handleAbort},
		"clear_queue":            {Lane: Concurrent, Handler: handleClearQueue},
		"pause_queued_messages":  {Lane: Concurrent, Handler: handlePauseQueued},
		"resume_queued_messages": {Lane: Concurrent, Handler: handleResumeQueued},
		"set_steering_mode":      {Lane: Ordinary, Handler: handleSetSteeringMode},
		"set_follow_up_mode":     {Lane: Ordinary, Handler: handleSetFollowUpMode},
		// cmd_session.go
		"new_session":       {Lane: Ordinary, Handler: handleNewSession},
		"switch_session":    {Lane: Ordinary, Handler: handleSwitchSession},
		"import_session":    {Lane: Ordinary, Handler: handleImportSession},
		"fork":              {Lane: Ordinary, Handler: handleFork},
		"clone":             {Lane: Ordinary, Handler: handleClone},
		"get_fork_messages": {Lane: Ordinary, Handler: handleGetForkMessages},
		"get_entries":       {Lane: Ordinary, Handler: handleGetEntries},
		"get_tree":          {Lane: Ordinary, Handler: handleGetTree},
		"navigate_tree":     {Lane: Ordinary, Handler: handleNavigateTree},
		"set_label":         {Lane: Ordinary, Handler: handleSetLabel},
		"set_session_name":  {Lane: Ordinary, Handler: handleSetSessionName},
		"get_session_stats": {Lane: Ordinary, Handler: handleGetSessionStats},
		"export_html":       {Lane: Ordinary, Handler: handleExportHTML},
		// list_sessions only reads files: it runs beside the ordinary lane, so
		// that a slow listing never holds up get_state and the rest.
		"list_sessions": {Lane: Concurrent, Handler: handleListSessions},
		// cmd_state.go
		"get_state":               {Lane: Quick, Handler: handleGetState},
		"get_messages":            {Lane: Ordinary, Handler: handleGetMessages},
		"get_last_assistant_text": {Lane: Ordinary, Handler: handleLastAssistantText},
		"set_auto_compaction":     {Lane: Ordinary, Handler: handleSetAutoCompaction},
		"set_auto_retry":          {Lane: Ordinary, Handler: handleSetAutoRetry},
	}
}
