//go:build !race

// Package racedetect tells tests whether they run under the race
// detector, so that a test whose cost it multiplies can leave those runs
// to a run without it (the Makefile's test target has one).
package racedetect

// Enabled reports whether the program was built with the race detector.
const Enabled = false
