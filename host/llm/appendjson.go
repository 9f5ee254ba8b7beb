package llm

// The protocol's records are built by appending to one byte slice. Using
// encoding/json for nested types would re-validate and re-compact every
// level's output (a 32 MiB prompt is scanned once per nesting level), so
// the conversation types write themselves; only values of unknown type go
// through encoding/json, once.

// appendBlocks appends a block array ([] for none).
func appendBlocks(dst []byte, blocks []ContentBlock) []byte {
	dst = append(dst, '[')
	for i := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = blocks[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

// appendMessages appends a message array ([] for none).
func appendMessages(dst []byte, msgs []Message) []byte {
	dst = append(dst, '[')
	for i := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = msgs[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

// AppendMessages appends a JSON array of messages ([] for none).
func AppendMessages(dst []byte, msgs []Message) []byte { return appendMessages(dst, msgs) }
