package luacomponent

import (
	"context"
	"sync/atomic"
	"time"
)

// deadline is the context a callback's Lua code runs under: it is done
// once the callback's time limit has passed.
//
// gopher-lua polls its state's context before every instruction it runs.
// The context package's contexts answer Done with an atomic load and a
// type assertion, and the poll of a real channel costs more again; in a
// loop over the spans of a batch that is tens of nanoseconds a span.
// deadline answers Done with nil, a channel the poll skips at once, until
// the limit has passed, and with a closed channel from then on. That
// breaks the rule that Done always returns the same channel, which only
// code that keeps the channel relies on: the VM polls Done afresh each
// time, and the sandbox has no coroutines or channels, the only other
// users of a state's context.
type deadline struct {
	expired atomic.Bool
	at      time.Time
	timer   *time.Timer
}

// closed is the channel Done returns once the limit has passed.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// newDeadline returns a deadline timeout from now; stop releases its timer.
func newDeadline(timeout time.Duration) *deadline {
	d := &deadline{at: time.Now().Add(timeout)}
	d.timer = time.AfterFunc(timeout, func() { d.expired.Store(true) })
	return d
}

// stop releases the timer.
func (d *deadline) stop() { d.timer.Stop() }

// Deadline returns the time limit.
func (d *deadline) Deadline() (time.Time, bool) { return d.at, true }

// Done returns nil before the limit and a closed channel after it.
func (d *deadline) Done() <-chan struct{} {
	if d.expired.Load() {
		return closed
	}
	return nil
}

// Err returns context.DeadlineExceeded once the limit has passed.
func (d *deadline) Err() error {
	if d.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

// Value returns nil: a deadline carries no values.
func (d *deadline) Value(any) any { return nil }
