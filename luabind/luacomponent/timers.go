package luacomponent

import (
	"context"
	"fmt"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Bounds of timers.
const (
	maxTimers   = 64
	minInterval = 10 * time.Millisecond
)

// timer is a function of the primary state called after a delay, once or
// repeatedly.
type timer struct {
	v        *vm
	gen      int // v.gen when created: the timer dies with its state
	fn       *lua.LFunction
	interval time.Duration
	repeat   bool
	stopOnce sync.Once
	stop     chan struct{}
}

func (t *timer) cancel() { t.stopOnce.Do(func() { close(t.stop) }) }

// timerSet runs the timers of an instance while it runs.
type timerSet struct {
	mu      sync.Mutex
	ctx     context.Context // set while running
	fire    func(*timer)
	pending []*timer // created before the instance ran
	active  int
	wg      sync.WaitGroup
}

// add starts t now if running, else when the instance runs.
func (s *timerSet) add(t *timer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active+len(s.pending) >= maxTimers {
		return fmt.Errorf("too many timers (at most %d)", maxTimers)
	}
	if s.ctx == nil {
		s.pending = append(s.pending, t)
		return nil
	}
	s.launch(t)
	return nil
}

// launch runs t's goroutine; s.mu is held.
func (s *timerSet) launch(t *timer) {
	s.active++
	s.wg.Add(1)
	ctx := s.ctx
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			s.active--
			s.mu.Unlock()
		}()
		tick := time.NewTimer(t.interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.stop:
				return
			case <-tick.C:
			}
			s.fire(t)
			if !t.repeat {
				return
			}
			tick.Reset(t.interval)
		}
	}()
}

// run starts the timers until ctx ends; fire calls a timer's function.
func (s *timerSet) run(ctx context.Context, fire func(*timer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx, s.fire = ctx, fire
	for _, t := range s.pending {
		s.launch(t)
	}
	s.pending = nil
}

// wait waits for the timers' goroutines once the context of run ended.
func (s *timerSet) wait() { s.wg.Wait() }

// openTimers binds every(interval, fn) and after(delay, fn); both return
// a handle whose stop() cancels the timer. Intervals are duration strings
// ("10s") or numbers of seconds.
func (v *vm) openTimers() {
	L := v.L
	mt := L.NewTypeMetatable(mtTimer)
	mt.RawSetString("__metatable", lua.LString("timer"))
	mt.RawSetString("__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"stop": func(L *lua.LState) int {
			if t, ok := L.CheckUserData(1).Value.(*timer); ok {
				t.cancel()
			}
			return 0
		},
	}))
	L.SetGlobal("every", L.NewFunction(v.newTimer("every", true)))
	L.SetGlobal("after", L.NewFunction(v.newTimer("after", false)))
}

func (v *vm) newTimer(name string, repeat bool) lua.LGFunction {
	return func(L *lua.LState) int {
		d, err := durationArg(L.Get(1))
		if err != nil {
			L.ArgError(1, err.Error())
		}
		if d < minInterval {
			L.ArgError(1, fmt.Sprintf("at least %s", minInterval))
		}
		fn := L.CheckFunction(2)
		t := &timer{v: v, gen: v.gen, fn: fn, interval: d, repeat: repeat, stop: make(chan struct{})}
		if v.inst != nil {
			if !v.primary {
				L.RaiseError("%s: timers belong to the component's first state: create them in start", name)
			}
			if err := v.inst.timers.add(t); err != nil {
				L.RaiseError("%s: %v", name, err)
			}
		}
		L.Push(v.newUserData(t, mtTimer))
		return 1
	}
}

// durationArg reads a duration string or a number of seconds.
func durationArg(x lua.LValue) (time.Duration, error) {
	switch x := x.(type) {
	case lua.LNumber:
		return time.Duration(float64(x) * float64(time.Second)), nil
	case lua.LString:
		d, err := time.ParseDuration(string(x))
		if err != nil {
			return 0, fmt.Errorf(`invalid duration %q (use "200ms", "10s" or a number of seconds)`, string(x))
		}
		return d, nil
	}
	return 0, fmt.Errorf(`expected a duration ("10s") or a number of seconds, got %s`, x.Type())
}
