package main

import (
	"reflect"
	"testing"

	"github.com/flowlua/flowlua/cmd/flowlua/internal/heapsampling"
)

// TestHeapSamplingNames: the package that stops heap sampling before the
// initialisers run reads the same flag and variable as run's option, so
// that what it decides early is what the parser decides later.
func TestHeapSamplingNames(t *testing.T) {
	f, ok := reflect.TypeFor[runCmd]().FieldByName("EnablePprof")
	if !ok {
		t.Fatal("runCmd has no EnablePprof field")
	}
	if got := f.Tag.Get("name"); got != heapsampling.Flag {
		t.Errorf("run's flag is %q, heapsampling reads %q", got, heapsampling.Flag)
	}
	if got := f.Tag.Get("env"); got != heapsampling.EnvVar {
		t.Errorf("run's variable is %q, heapsampling reads %q", got, heapsampling.EnvVar)
	}
	if _, negatable := f.Tag.Lookup("negatable"); !negatable {
		t.Error("run's flag is not negatable, heapsampling reads --no-" + heapsampling.Flag)
	}
}
