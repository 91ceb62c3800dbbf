//go:build unix

package luabind_test

import "syscall"

// cpuTime returns the CPU time the process has used, in nanoseconds, or
// false where it is not known.
func cpuTime() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
