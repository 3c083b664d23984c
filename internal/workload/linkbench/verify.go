package linkbench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sort"

	"rumbench/internal/model"
)

// CountCheck is the result of CheckCounts.
type CountCheck struct {
	// Groups is the number of (id1, link_type) with at least one visible
	// link; CountRows the number of count rows.
	Groups, CountRows, VisibleLinks int64
	// Mismatches counts the (id, link_type) whose count row differs from
	// its visible links (a missing row counts as 0); Examples lists a few.
	Mismatches int64
	Examples   []string
}

// OK reports whether every count matched.
func (c *CountCheck) OK() bool { return c.Mismatches == 0 }

// CheckCounts compares every count row with the number of visible links of
// its (id, link_type), read from link's id1_type index (which rumbench
// verify checks against the link table itself).
func CheckCounts(ctx context.Context, db model.DB) (*CountCheck, error) {
	link, count := LinkSchema(), CountSchema()
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	have := map[string]bool{}
	for _, t := range tables {
		have[t.Name] = len(t.Indexes) > 0 || t.Name != LinkTable
	}
	if !have[LinkTable] || !have[CountTable] {
		return nil, fmt.Errorf("no linkbench tables here (need %s with its index and %s): give the data dir or database of a linkbench run", LinkTable, CountTable)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	type key struct{ id, lt int64 }
	visible := map[key]int64{}
	res := &CountCheck{}
	// Index projection: id1, link_type, visibility, time, id2, version, data.
	if _, err := c.Scan(ctx, link, model.ScanSpec{Index: 0, Cols: []int{0, 1, 2}}, func(r model.Row) bool {
		if r[2].Int == Visible {
			visible[key{r[0].Int, r[1].Int}]++
			res.VisibleLinks++
		}
		return true
	}); err != nil {
		return nil, fmt.Errorf("scan %s.id1_type: %w", LinkTable, err)
	}
	res.Groups = int64(len(visible))
	var keys []model.Row
	if _, err := c.Scan(ctx, count, model.ScanSpec{Index: -1, Cols: []int{0, 1}}, func(r model.Row) bool {
		keys = append(keys, model.Row{{Int: r[0].Int}, {Int: r[1].Int}})
		return true
	}); err != nil {
		return nil, fmt.Errorf("scan %s: %w", CountTable, err)
	}
	bad := func(k key, got, want int64) {
		res.Mismatches++
		if len(res.Examples) < 5 {
			res.Examples = append(res.Examples, fmt.Sprintf("id=%d link_type=%d: count %d, visible links %d", k.id, k.lt, got, want))
		}
	}
	for len(keys) > 0 {
		n := min(len(keys), 200)
		if _, err := c.Get(ctx, count, keys[:n], func(r model.Row) {
			res.CountRows++
			k := key{r[CountID].Int, r[CountType].Int}
			if want := visible[k]; r[CountCount].Int != want {
				bad(k, r[CountCount].Int, want)
			}
			delete(visible, k)
		}); err != nil {
			return nil, fmt.Errorf("read %s: %w", CountTable, err)
		}
		keys = keys[n:]
	}
	for k, n := range visible {
		bad(k, 0, n)
	}
	return res, nil
}

// verifyCounts is the workload's Verify: CheckCounts, printed.
func verifyCounts(ctx context.Context, db model.DB, w io.Writer) (bool, error) {
	res, err := CheckCounts(ctx, db)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "linkbench counts: %d count rows, %d (id1, link_type) with visible links, %d visible links, %d mismatches\n",
		res.CountRows, res.Groups, res.VisibleLinks, res.Mismatches)
	for _, e := range res.Examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	return res.OK(), nil
}

// Checksum hashes the full contents of the three tables in primary key
// order (SHA-256 of every row's values), so two engines loaded with the same
// configuration and seed can be compared.
func Checksum(ctx context.Context, db model.DB) (string, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	h := sha256.New()
	var buf []byte
	for _, t := range []*model.Table{NodeSchema(1), LinkSchema(), CountSchema()} {
		var keys []model.Row
		if _, err := c.Scan(ctx, t, model.ScanSpec{Index: -1}, func(r model.Row) bool {
			keys = append(keys, model.CopyRow(nil, r))
			return true
		}); err != nil {
			return "", fmt.Errorf("scan %s: %w", t.Name, err)
		}
		fmt.Fprintf(h, "%s %d\n", t.Name, len(keys))
		for len(keys) > 0 {
			n := min(len(keys), 200)
			var rows []string
			if _, err := c.Get(ctx, t, keys[:n], func(r model.Row) {
				buf = buf[:0]
				for i, v := range r {
					if t.Columns[i].Type == model.String {
						buf = binary.AppendUvarint(buf, uint64(len(v.Bytes)))
						buf = append(buf, v.Bytes...)
					} else {
						buf = binary.AppendVarint(buf, v.Int)
					}
				}
				rows = append(rows, string(buf))
			}); err != nil {
				return "", fmt.Errorf("read %s: %w", t.Name, err)
			}
			// Get returns rows in no promised order: hash them sorted.
			sort.Strings(rows)
			for _, r := range rows {
				h.Write([]byte(r))
			}
			keys = keys[n:]
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
