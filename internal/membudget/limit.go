package membudget

import (
	"fmt"
	"strconv"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// RoomBytes is what a memory limit leaves every embedded engine beyond its
// cache, its large buffers and its own memory: the page cache of the files
// it reads and writes, dirty pages in flight. The iobound preset's room,
// with which its limits hold.
const RoomBytes = 16 << 20

// fitStep is the granularity of a shrunk buffer.
const fitStep = 64 << 10

// FitLimit makes each embedded engine of a run fit the memory limit limit
// (as given: limitText): its cache, every large buffer it declares
// (model.LargeBuffers: memtables, write buffers, the index build's sort),
// its own memory (model.OwnMemory) and RoomBytes. Buffers the run sets
// (an --engine-opt, a preset) stay as set; the others are shrunk from
// their defaults by one factor into what is left (never below the
// option's smallest size), set in opts as engine.key and recorded in
// b.Fitted. An engine that does not fit even so is an error, before
// anything starts, naming what it needs and the fix.
func (b *Budget) FitLimit(limit int64, limitText string, engines []string, opts map[string]string) error {
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil || d.Kind() != model.Embedded {
			continue
		}
		if err := b.fit(d, limit, limitText, opts); err != nil {
			return err
		}
	}
	return nil
}

// part is one figure of an engine's memory under a limit.
type part struct {
	buf   model.Buffer
	bytes int64 // one buffer's size
	set   string
}

func (b *Budget) fit(d model.Driver, limit int64, limitText string, opts map[string]string) error {
	e := d.Name()
	defaults := map[string]string{}
	for _, o := range d.Options() {
		defaults[o.Key] = o.Default
	}
	// size is an option's bytes as the run sets it ("": by default).
	size := func(key string) (int64, string, bool) {
		v, set := defaults[key], ""
		if written, given := engineopt.Scoped(opts).Given(e, key); given {
			_, v, _ = strings.Cut(written, "=")
			set = written
		}
		n, err := engineopt.ParseSize(key, v)
		return n, set, err == nil // a bad value is the engine's to refuse
	}
	var cache, own int64
	cacheHow := ""
	if co, ok := d.(model.CacheOption); ok {
		n, _, ok := size(co.CacheOption())
		if !ok {
			return nil
		}
		cache, cacheHow = n, b.From
		if how, over := b.Overrides[e]; over {
			cacheHow = how
		}
	}
	if o, ok := d.(model.OwnMemory); ok {
		own = o.OwnMemoryBytes()
	}
	var parts []part
	if lb, ok := d.(model.LargeBuffers); ok {
		for _, buf := range lb.LargeBuffers() {
			n, set, ok := size(buf.Option)
			if !ok {
				return nil
			}
			parts = append(parts, part{buf: buf, bytes: n, set: set})
		}
	}
	var fixed, flex, flexMin int64
	for _, p := range parts {
		n := int64(p.buf.Count) * p.bytes
		if p.set != "" {
			fixed += n
		} else {
			flex += n
			flexMin += int64(p.buf.Count) * p.buf.Min
		}
	}
	free := limit - cache - own - RoomBytes - fixed
	if flex <= free {
		return nil
	}
	if free >= flexMin {
		var total int64
		fitted := map[string]int64{}
		for _, p := range parts {
			if p.set != "" {
				continue
			}
			n := int64(float64(p.bytes) * float64(free) / float64(flex))
			n = max(n-n%fitStep, p.buf.Min)
			fitted[p.buf.Option] = n
			total += int64(p.buf.Count) * n
		}
		if total <= free {
			for k, n := range fitted {
				opts[engineopt.Join(e, k)] = strconv.FormatInt(n, 10)
				if b.Fitted == nil {
					b.Fitted = map[string]int64{}
				}
				b.Fitted[engineopt.Join(e, k)] = n
			}
			return nil
		}
	}
	return b.refuse(e, limitText, cache, cacheHow, own, fixed+flexMin, parts)
}

// refuse says that engine e cannot fit the limit: what it needs with the
// buffers the run did not set at their smallest, and what to change.
func (b *Budget) refuse(e string, limitText string, cache int64, cacheHow string, own, buffers int64, parts []part) error {
	need := cache + own + RoomBytes + buffers
	fromLimit := cache > 0 && cacheHow == "--memory-limit "+limitText
	var what []string
	if cache > 0 {
		what = append(what, fmt.Sprintf("cache %s (%s)", Size(cache), cacheHow))
	}
	var smaller []string
	for _, p := range parts {
		n, how := p.bytes, p.set
		if how == "" {
			n, how = p.buf.Min, p.buf.Option+" at its smallest"
		} else {
			smaller = append(smaller, engineopt.Join(e, p.buf.Option))
		}
		count := ""
		if p.buf.Count > 1 {
			count = strconv.Itoa(p.buf.Count) + " × "
		}
		what = append(what, fmt.Sprintf("%s %s%s (%s)", p.buf.What, count, Size(n), how))
	}
	what = append(what, "own memory "+Size(own))
	list := strings.Join(what, ", ") + " and " + Size(RoomBytes) + " of room for the page cache"
	least := need
	if fromLimit {
		// The cache is half of what the limit leaves (FromLimit): the
		// smallest limit L with L - FromLimit(L) >= need - cache.
		// With the cache at its smallest (MinBytes) that is need-cache
		// plus the smallest cache.
		least = max(2*(need-cache)-ProcessBytes, need-cache+MinBytes)
	}
	fix := fmt.Sprintf("give --memory-limit %s or more", Size(roundUpMB(least)))
	if cache > 0 && !fromLimit {
		fix += ", or a smaller cache (" + cacheHow + ")"
	}
	if len(smaller) > 0 {
		fix += ", or smaller --engine-opt " + strings.Join(smaller, ", ")
	}
	return fmt.Errorf("--memory-limit %s cannot hold %s: its %s need %s; %s", limitText, e, list, Size(need), fix)
}

func roundUpMB(n int64) int64 { return (n + 1<<20 - 1) &^ (1<<20 - 1) }
