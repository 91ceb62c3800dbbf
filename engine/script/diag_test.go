package script

import (
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	a := Diagnostics{Errorf(Pos{File: "b.lua", Line: 2}, "two"), Errorf(Pos{File: "a.lua", Line: 9}, "nine")}
	b := Diagnostics{Errorf(Pos{File: "a.lua", Line: 9}, "nine"), Errorf(Pos{File: "a.lua", Line: 1}, "one")}
	aBefore := append(Diagnostics{}, a...)
	got := Merge(a, b)
	want := Diagnostics{Errorf(Pos{File: "a.lua", Line: 1}, "one"), Errorf(Pos{File: "a.lua", Line: 9}, "nine"), Errorf(Pos{File: "b.lua", Line: 2}, "two")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(a, aBefore) {
		t.Errorf("Merge changed its input: %v", a)
	}
	if got := Merge(nil, nil); got != nil {
		t.Errorf("Merge(nil, nil) = %v, want nil", got)
	}
}
