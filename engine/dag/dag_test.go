package dag

import (
	"fmt"
	"reflect"
	"testing"
)

func build(edges ...[2]string) *Graph {
	g := New()
	for _, e := range edges {
		g.AddEdge(e[0], e[1])
	}
	return g
}

func TestTopoSortDependenciesFirstTiesSorted(t *testing.T) {
	g := build([2]string{"c", "a"}, [2]string{"b", "a"}, [2]string{"d", "c"}, [2]string{"d", "b"})
	g.AddNode("0lone")
	order, ok := g.TopoSort()
	if !ok {
		t.Fatal("acyclic graph reported a cycle")
	}
	want := []string{"0lone", "a", "b", "c", "d"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("order = %v, want %v", order, want)
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name  string
		edges [][2]string
		want  [][]string
	}{
		{"none", [][2]string{{"a", "b"}, {"b", "c"}}, nil},
		{"self loop", [][2]string{{"a", "a"}}, [][]string{{"a", "a"}}},
		{"two nodes", [][2]string{{"b", "a"}, {"a", "b"}}, [][]string{{"a", "b", "a"}}},
		{"rotated to smallest id", [][2]string{{"z", "m"}, {"m", "b"}, {"b", "z"}, {"x", "z"}},
			[][]string{{"b", "z", "m", "b"}}},
		{"two separate cycles sorted", [][2]string{{"q", "p"}, {"p", "q"}, {"b", "a"}, {"a", "b"}},
			[][]string{{"a", "b", "a"}, {"p", "q", "p"}}},
		{"shortest cycle through start", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"b", "a"}},
			[][]string{{"a", "b", "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(tt.edges...)
			got := g.Cycles()
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Cycles() = %v, want %v", got, tt.want)
			}
			if _, ok := g.TopoSort(); ok != (len(tt.want) == 0) {
				t.Fatalf("TopoSort ok = %v with cycles %v", ok, got)
			}
		})
	}
}

func TestCyclesEveryPathIsARealCycle(t *testing.T) {
	// A dense graph: every reported path must follow real edges.
	g := New()
	for i := 0; i < 30; i++ {
		for j := 0; j < 30; j++ {
			if (i*7+j*3)%11 == 0 && i != j {
				g.AddEdge(fmt.Sprint(i), fmt.Sprint(j))
			}
		}
	}
	for _, c := range g.Cycles() {
		if c[0] != c[len(c)-1] {
			t.Fatalf("cycle %v does not close", c)
		}
		for i := 0; i+1 < len(c); i++ {
			if _, ok := g.out[c[i]][c[i+1]]; !ok {
				t.Fatalf("cycle %v uses missing edge %s -> %s", c, c[i], c[i+1])
			}
		}
	}
}

func BenchmarkTopoSort(b *testing.B) {
	g := New()
	for i := 0; i < 1000; i++ {
		for k := 1; k <= 3; k++ {
			if i+k < 1000 {
				g.AddEdge(fmt.Sprintf("n%04d", i), fmt.Sprintf("n%04d", i+k))
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := g.TopoSort(); !ok {
			b.Fatal("cycle")
		}
	}
}
