package decode

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckType(t *testing.T) {
	type inner struct {
		A string `lua:"a"`
	}
	type dup struct {
		inner `lua:",squash"`
		A     int `lua:"a"`
	}
	tests := []struct {
		t    reflect.Type
		want string // substring of the error; "" for none
	}{
		{reflect.TypeFor[kinds](), ""},
		{reflect.TypeFor[exporterArgs](), ""},
		{reflect.TypeFor[struct {
			a string `lua:"a"`
		}](), "a lua-tagged field must be exported"},
		{reflect.TypeFor[struct {
			A string `lua:"a,requird"`
		}](), `unknown lua tag option "requird"`},
		{reflect.TypeFor[struct {
			A string `lua:",required"`
		}](), "lua tag without a name"},
		{reflect.TypeFor[struct {
			A *inner `lua:",squash"`
		}](), "squash takes a struct field"},
		{reflect.TypeFor[struct {
			A inner `lua:"a,squash"`
		}](), "squash takes a struct field"},
		{reflect.TypeFor[struct {
			A int `lua:"a" enum:"1,2"`
		}](), "enum needs a string field"},
		{reflect.TypeFor[dup](), `two fields named "a"`},
		{reflect.TypeFor[[]struct {
			B struct {
				A int `lua:"a" enum:"1,2"`
			} `lua:"b"`
		}](), "enum needs a string field"},
	}
	for _, tt := range tests {
		err := CheckType(tt.t)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckType(%v) = %v, want nil", tt.t, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckType(%v) = %v, want an error containing %q", tt.t, err, tt.want)
		}
	}
}

func TestInvalidTypePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "lua tag without a name") {
			t.Errorf("recovered %v, want the tag error", r)
		}
	}()
	var v struct {
		A string `lua:""`
	}
	_ = Decode(map[string]any{}, &v)
}

func TestComparePaths(t *testing.T) {
	sorted := []string{"", "a", "a.b", "a[2]", "a[10]", "a[10].b", "a[x]", "b", "b[1][3]", "b[1][20]", "ba"}
	for i, a := range sorted {
		for j, b := range sorted {
			got := comparePaths(a, b)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("comparePaths(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestFormatPath(t *testing.T) {
	tests := []struct {
		segs []segment
		want string
	}{
		{nil, ""},
		{[]segment{{key: "output"}, {key: "traces"}, {index: 2}}, "output.traces[2]"},
		{[]segment{{index: 1}, {key: "a"}}, "[1].a"},
		{[]segment{{key: "m"}, {key: "a.b"}, {index: 10}, {index: 3}}, "m.a.b[10][3]"},
	}
	for _, tt := range tests {
		if got := formatPath(tt.segs); got != tt.want {
			t.Errorf("formatPath(%v) = %q, want %q", tt.segs, got, tt.want)
		}
	}
	// It agrees with JoinPath.
	if got, want := formatPath(tests[1].segs), JoinPath(JoinPath(JoinPath("", "output"), "traces"), 1); got != want {
		t.Errorf("formatPath %q differs from JoinPath %q", got, want)
	}
}
