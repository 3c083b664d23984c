// Package flame draws a profile as a flame graph: one box per stack frame,
// callers below their callees, each as wide as the samples under it, so a
// report shows where a step's CPU went without a viewer.
package flame

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// node is a frame in the merged call tree.
type node struct {
	name     string
	value    int64
	children map[string]*node
}

func (n *node) child(name string) *node {
	c := n.children[name]
	if c == nil {
		c = &node{name: name, children: map[string]*node{}}
		n.children[name] = c
	}
	return c
}

// Tree merges p's samples (value index vi) into a call tree, root first.
func tree(p *profile.Profile, vi int) *node {
	root := &node{name: "all", children: map[string]*node{}}
	for _, s := range p.Sample {
		v := s.Value[vi]
		if v <= 0 {
			continue
		}
		root.value += v
		n := root
		// Locations are leaf first; lines within a location innermost first.
		for i := len(s.Location) - 1; i >= 0; i-- {
			l := s.Location[i]
			for j := len(l.Line) - 1; j >= 0; j-- {
				name := "?"
				if f := l.Line[j].Function; f != nil {
					name = f.Name
				}
				n = n.child(name)
				n.value += v
			}
		}
	}
	return root
}

// Options shape the picture.
type Options struct {
	Title    string
	Width    float64 // px; default 960
	MaxDepth int     // frames drawn above the root; default 48
}

const rowHeight = 16

// Write draws p as an SVG flame graph of its last sample value (the CPU
// time of pprof's CPU profiles and of rumbench's perf profiles).
func Write(w io.Writer, p *profile.Profile, o Options) error {
	if o.Width <= 0 {
		o.Width = 960
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 48
	}
	if len(p.SampleType) == 0 {
		return fmt.Errorf("flame: the profile has no sample types")
	}
	root := tree(p, len(p.SampleType)-1)
	if root.value == 0 {
		return fmt.Errorf("flame: the profile has no samples")
	}
	depth := maxDepth(root, 0, o.MaxDepth)
	height := float64(depth+2)*rowHeight + 24
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="monospace" font-size="11">`, o.Width, height)
	fmt.Fprintf(&b, `<text x="4" y="14">%s</text>`, html.EscapeString(o.Title))
	var draw func(n *node, x, y float64, d int)
	scale := o.Width / float64(root.value)
	draw = func(n *node, x, y float64, d int) {
		wpx := float64(n.value) * scale
		if wpx < 0.5 || d > o.MaxDepth {
			return
		}
		pct := 100 * float64(n.value) / float64(root.value)
		fmt.Fprintf(&b, `<g><title>%s (%.1f%%)</title><rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" stroke="white" stroke-width="0.5"/>`,
			html.EscapeString(n.name), pct, x, y, wpx, rowHeight-1, color(n.name))
		if chars := int(wpx / 7); chars >= 3 {
			label := n.name
			if len(label) > chars {
				label = label[:chars-2] + ".."
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x+2, y+rowHeight-4, html.EscapeString(label))
		}
		b.WriteString("</g>")
		kids := make([]*node, 0, len(n.children))
		for _, c := range n.children {
			kids = append(kids, c)
		}
		// Widest first would move boxes between steps; by name keeps a
		// function in the same place in every step's picture.
		sort.Slice(kids, func(i, j int) bool { return kids[i].name < kids[j].name })
		cx := x
		for _, c := range kids {
			draw(c, cx, y-rowHeight, d+1)
			cx += float64(c.value) * scale
		}
	}
	draw(root, 0, height-rowHeight-2, 0)
	b.WriteString("</svg>")
	_, err := io.WriteString(w, b.String())
	return err
}

func maxDepth(n *node, d, limit int) int {
	if d >= limit {
		return limit
	}
	m := d
	for _, c := range n.children {
		m = max(m, maxDepth(c, d+1, limit))
	}
	return m
}

// color is a warm color chosen by the name, so a function keeps its color.
func color(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+h%50, 80+(h>>8)%120, 40+(h>>16)%50)
}
