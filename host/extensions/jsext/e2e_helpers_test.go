package jsext_test

import "os"

func writeFile(p, src string) error { return os.WriteFile(p, []byte(src), 0o644) }
