//go:build !linux

package native

// residentBytes is known on Linux only.
func residentBytes(int) (int64, bool) { return 0, false }
