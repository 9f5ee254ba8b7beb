//go:build !linux

package nodeext

// residentBytes is not read outside Linux (the V8 heap limit still holds).
func residentBytes(int) (int64, bool) { return 0, false }
