package flame

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func prof() *profile.Profile {
	fn := map[string]*profile.Function{}
	loc := map[string]*profile.Location{}
	l := func(name string) *profile.Location {
		if loc[name] == nil {
			fn[name] = &profile.Function{ID: uint64(len(fn) + 1), Name: name}
			loc[name] = &profile.Location{ID: uint64(len(loc) + 1), Line: []profile.Line{{Function: fn[name]}}}
		}
		return loc[name]
	}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	// leaf first: main→insert→memmove 3 times, main→query once.
	for i := 0; i < 3; i++ {
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l("memmove"), l("insert"), l("main")}, Value: []int64{1, 10}})
	}
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l("query"), l("main")}, Value: []int64{1, 10}})
	return p
}

// TestTree: samples merge into a call tree, root first, values summed.
func TestTree(t *testing.T) {
	root := tree(prof(), 1)
	m := root.children["main"]
	if root.value != 40 || m == nil || m.value != 40 || m.children["insert"].value != 30 || m.children["query"].value != 10 ||
		m.children["insert"].children["memmove"].value != 30 {
		t.Fatalf("tree wrong: root %d main %+v", root.value, m)
	}
}

// TestWrite: the picture has a box per frame, as wide as its share (insert
// 3/4 of 960 px), with its share in the tooltip.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, prof(), Options{Title: "l.i0 server"}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{"<title>insert (75.0%)</title>", `width="720.0"`, "<title>query (25.0%)</title>", `width="240.0"`, "l.i0 server"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if err := Write(&b, &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu"}}}, Options{}); err == nil {
		t.Error("an empty profile drew")
	}
}
