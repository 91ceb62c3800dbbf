package luamem

import (
	"context"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

func newDeadline(timeout time.Duration) *Guard { return Start(lua.NewState(), timeout, 0, false) }

func (g *Guard) stop() { g.Stop() }

func TestGuardDeadline(t *testing.T) {
	d := newDeadline(20 * time.Millisecond)
	defer d.stop()
	if d.Done() != nil || d.Err() != nil || d.PollFlag().Load() != 0 {
		t.Fatal("done before the limit")
	}
	if at, ok := d.Deadline(); !ok || time.Until(at) > 20*time.Millisecond {
		t.Fatalf("Deadline() = %v, %v", at, ok)
	}
	for end := time.Now().Add(5 * time.Second); d.Err() == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("not done 5s after a limit of 20ms")
		}
	}
	select {
	case <-d.Done():
	default:
		t.Fatal("Done is not closed after the limit")
	}
	if d.PollFlag().Load() == 0 { // the VM would skip Done
		t.Fatal("the poll flag is clear after the limit")
	}
	if d.Err() != context.DeadlineExceeded {
		t.Fatalf("Err() = %v", d.Err())
	}
}

func TestGuardDeadlineStopped(t *testing.T) {
	d := newDeadline(30 * time.Millisecond)
	d.stop()
	other := newDeadline(150 * time.Millisecond)
	defer other.stop()
	for other.Err() == nil { // wait well past the stopped limit
		time.Sleep(time.Millisecond)
	}
	if d.Err() != nil {
		t.Fatal("a stopped deadline expired")
	}
}
