package decode

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

// batch has defaults (its own and a nested struct's) and validates.
type batch struct {
	Timeout   time.Duration    `lua:"timeout" doc:"flush after this long"`
	Size      int              `lua:"send_batch_size" doc:"items per batch"`
	Queue     queue            `lua:"queue"`
	Retry     *queue           `lua:"retry"`
	Sizes     []queue          `lua:"sizes"`
	ByName    map[string]queue `lua:"by_name"`
	validated *int
}

func (b *batch) SetToDefault() {
	b.Timeout = 200 * time.Millisecond
	b.Size = 8192
}

// Validate has a value receiver on purpose.
func (b batch) Validate() error {
	if b.validated != nil {
		*b.validated++
	}
	if b.Size <= 0 {
		return errors.New("send_batch_size must be positive")
	}
	return nil
}

type queue struct {
	Enabled bool `lua:"enabled"`
	Workers int  `lua:"num_consumers"`
}

func (q *queue) SetToDefault() {
	q.Enabled = true
	q.Workers = 10
}

// Validate returns an *Error relative to the queue.
func (q *queue) Validate() error {
	if q.Workers > 100 {
		return Errorf("num_consumers", "at most 100, got %d", q.Workers)
	}
	return nil
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want batch
	}{
		{name: "all defaults", in: nil, want: batch{Timeout: 200 * time.Millisecond, Size: 8192, Queue: queue{true, 10}}},
		{name: "tables merge over defaults", in: map[string]any{"timeout": "1s", "queue": map[string]any{"enabled": false}},
			want: batch{Timeout: time.Second, Size: 8192, Queue: queue{false, 10}}},
		{name: "fresh pointer, elements and map values get defaults", in: map[string]any{
			"retry":   map[string]any{"num_consumers": 2.0},
			"sizes":   []any{map[string]any{}, map[string]any{"enabled": false}},
			"by_name": map[string]any{"a": map[string]any{"num_consumers": 3.0}},
		}, want: batch{
			Timeout: 200 * time.Millisecond, Size: 8192, Queue: queue{true, 10},
			Retry:  &queue{true, 2},
			Sizes:  []queue{{true, 10}, {false, 10}},
			ByName: map[string]queue{"a": {true, 3}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got batch
			var in any
			if tt.in != nil {
				in = tt.in
			}
			if err := Decode(in, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// ownDefaults's SetToDefault overrides its nested struct's defaults.
type ownDefaults struct {
	Q queue `lua:"q"`
}

func (o *ownDefaults) SetToDefault() { o.Q.Workers = 1 }

func TestDefaultsOrder(t *testing.T) {
	var got ownDefaults
	if err := Decode(map[string]any{}, &got); err != nil {
		t.Fatal(err)
	}
	if want := (ownDefaults{Q: queue{Enabled: true, Workers: 1}}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		in        map[string]any
		errs      []string
		validated int // calls of batch.Validate
	}{
		{name: "valid", in: map[string]any{}, validated: 1},
		{name: "plain error at the struct's path", in: map[string]any{"send_batch_size": 0.0},
			errs: []string{"send_batch_size must be positive"}, validated: 1},
		{name: "*Error prefixed", in: map[string]any{"queue": map[string]any{"num_consumers": 101.0}},
			errs: []string{"queue.num_consumers: at most 100, got 101"}},
		{name: "in list elements", in: map[string]any{"sizes": []any{map[string]any{}, map[string]any{"num_consumers": 200.0}}},
			errs: []string{"sizes[2].num_consumers: at most 100, got 200"}},
		{name: "in map values", in: map[string]any{"by_name": map[string]any{"x": map[string]any{"num_consumers": 200.0}}},
			errs: []string{"by_name.x.num_consumers: at most 100, got 200"}},
		{name: "not called after a decoding error inside", in: map[string]any{"send_batch_size": 0.0, "timeout": 1.0},
			errs: []string{`timeout: expected duration string like "200ms", got number`}},
		{name: "both levels", in: map[string]any{"send_batch_size": -1.0, "retry": map[string]any{"num_consumers": 101.0}},
			errs: []string{"retry.num_consumers: at most 100, got 101"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			got := batch{validated: &n}
			err := Decode(tt.in, &got)
			if gotErrs := errStrings(err); !slices.Equal(gotErrs, tt.errs) {
				t.Fatalf("errors:\n got %q\nwant %q", gotErrs, tt.errs)
			}
			if n != tt.validated {
				t.Errorf("Validate called %d times, want %d", n, tt.validated)
			}
		})
	}
}

// selector decodes itself from a string or a table ({ key = value }).
type selector struct {
	Key, Value string
}

func (s *selector) UnmarshalScript(v any) error {
	switch v := v.(type) {
	case string:
		s.Key = v
		return nil
	case map[string]any:
		var errs Errors
		for _, k := range []string{"key", "value"} {
			if _, ok := v[k].(string); !ok {
				errs = append(errs, Errorf(k, "want a string"))
			}
		}
		if errs != nil {
			return errs
		}
		s.Key, s.Value = v["key"].(string), v["value"].(string)
		return nil
	case []any:
		return Errorf("[1]", "lists are not selectors")
	}
	return errors.New("want a string or a table")
}

// byValue decodes with a value receiver: it can only reject.
type byValue struct{}

func (byValue) UnmarshalScript(v any) error {
	if v == "ok" {
		return nil
	}
	return &Error{Message: "not ok"}
}

type selectors struct {
	One  selector   `lua:"one"`
	Many []selector `lua:"many"`
	Ptr  *selector  `lua:"ptr"`
	Val  byValue    `lua:"val"`
}

func TestUnmarshaler(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want selectors
		errs []string
	}{
		{name: "string", in: map[string]any{"one": "a", "ptr": "p", "val": "ok"}, want: selectors{One: selector{Key: "a"}, Ptr: &selector{Key: "p"}}},
		{name: "table", in: map[string]any{"many": []any{"x", map[string]any{"key": "k", "value": "v"}}},
			want: selectors{Many: []selector{{Key: "x"}, {Key: "k", Value: "v"}}}},
		{name: "plain error at the path", in: map[string]any{"one": true}, errs: []string{"one: want a string or a table"}},
		{name: "Errors prefixed", in: map[string]any{"many": []any{"x", map[string]any{"key": 1.0}}},
			errs: []string{"many[2].key: want a string", "many[2].value: want a string"}},
		{name: "index prefixed", in: map[string]any{"ptr": []any{"x"}}, errs: []string{"ptr[1]: lists are not selectors"}},
		{name: "value receiver", in: map[string]any{"val": "no"}, errs: []string{"val: not ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got selectors
			err := Decode(tt.in, &got)
			if gotErrs := errStrings(err); !slices.Equal(gotErrs, tt.errs) {
				t.Fatalf("errors:\n got %q\nwant %q", gotErrs, tt.errs)
			}
			if tt.errs == nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// wholeTable is a top-level Unmarshaler, as the collector adapter's
// arguments will be.
type wholeTable struct{ got any }

func (w *wholeTable) UnmarshalScript(v any) error {
	w.got = v
	return nil
}

func TestUnmarshalerTopLevelNil(t *testing.T) {
	var w wholeTable
	if err := Decode(nil, &w); err != nil {
		t.Fatal(err)
	}
	if m, ok := w.got.(map[string]any); !ok || len(m) != 0 {
		t.Errorf("got %#v, want an empty table", w.got)
	}
}

// common is squashed into two types.
type common struct {
	Endpoint string        `lua:"endpoint,required" doc:"host:port"`
	Timeout  time.Duration `lua:"timeout"`
}

func (c *common) SetToDefault() { c.Timeout = 5 * time.Second }

type squashed struct {
	common `lua:",squash"`
	Name   string `lua:"name"`
	Inner  struct {
		common `lua:",squash"`
	} `lua:"inner"`
}

func TestSquash(t *testing.T) {
	var got squashed
	err := Decode(map[string]any{"endpoint": "e", "name": "n", "timeuot": "1s", "inner": map[string]any{"timeout": "1s"}}, &got)
	want := []string{
		`unknown field "timeuot" (did you mean "timeout"?)`,
		`inner: missing required field "endpoint"`,
	}
	if gotErrs := errStrings(err); !slices.Equal(gotErrs, want) {
		t.Fatalf("errors:\n got %q\nwant %q", gotErrs, want)
	}
	got = squashed{}
	if err := Decode(map[string]any{"endpoint": "e", "inner": map[string]any{"endpoint": "i"}}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != "e" || got.Timeout != 5*time.Second || got.Inner.Endpoint != "i" || got.Inner.Timeout != 5*time.Second {
		t.Errorf("got %+v", got)
	}
}
