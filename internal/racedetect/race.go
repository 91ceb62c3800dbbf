//go:build race

package racedetect

// Enabled reports whether the program was built with the race detector.
const Enabled = true
