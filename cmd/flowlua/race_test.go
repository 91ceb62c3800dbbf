//go:build race

package main

// raceEnabled is true when the tests run with the race detector, whose
// shadow memory does not fit under a small address-space limit.
const raceEnabled = true
