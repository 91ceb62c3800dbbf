package luacomponent

import (
	"context"
	"sync"
)

// pool holds the Lua states of an instance that process batches: a
// batch takes any free state, so that up to `concurrency` batches are
// processed at once. The primary state is one of them.
type pool struct {
	free chan *vm // states not in use

	mu      sync.Mutex
	all     []*vm // the live states, the primary first
	retired map[*vm]bool
}

func newPool(vms []*vm) *pool {
	p := &pool{free: make(chan *vm, MaxConcurrency), all: vms, retired: map[*vm]bool{}}
	for _, v := range vms {
		p.free <- v
	}
	return p
}

// acquire takes a free state, locked, waiting until one is free or ctx
// ends.
func (p *pool) acquire(ctx context.Context) (*vm, error) {
	for {
		select {
		case v := <-p.free:
			if p.drop(v) {
				continue
			}
			v.mu.Lock()
			return v, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// release unlocks a state and makes it free again.
func (p *pool) release(v *vm) {
	v.mu.Unlock()
	if p.drop(v) {
		return
	}
	p.free <- v
}

// drop closes v if it was retired and reports whether it was.
func (p *pool) drop(v *vm) bool {
	p.mu.Lock()
	retired := p.retired[v]
	delete(p.retired, v)
	p.mu.Unlock()
	if retired {
		v.close()
	}
	return retired
}

// states returns the live states.
func (p *pool) states() []*vm {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*vm(nil), p.all...)
}

// resize keeps n states: new ones come from create, extra ones (never the
// primary) are retired and closed once they are free.
func (p *pool) resize(n int, create func() (*vm, error)) error {
	p.mu.Lock()
	have := len(p.all)
	p.mu.Unlock()
	var added []*vm
	for have+len(added) < n {
		v, err := create()
		if err != nil {
			for _, v := range added {
				v.close()
			}
			return err
		}
		added = append(added, v)
	}
	p.mu.Lock()
	for len(p.all) > max(n, 1) {
		last := p.all[len(p.all)-1]
		p.all = p.all[:len(p.all)-1]
		p.retired[last] = true
	}
	p.all = append(p.all, added...)
	p.mu.Unlock()
	// Close the retired states that are free now; the others are closed
	// when released.
	for range len(p.free) {
		select {
		case v := <-p.free:
			if !p.drop(v) {
				p.free <- v
			}
		default:
		}
	}
	for _, v := range added {
		p.free <- v
	}
	return nil
}
