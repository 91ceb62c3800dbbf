//go:build !unix

package luabind_test

func cpuTime() (int64, bool) { return 0, false }
