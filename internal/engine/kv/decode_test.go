package kv

import (
	"syscall"
	"testing"

	"rumbench/internal/model"
)

// linkTable is LinkBench's link table (internal/workload/linkbench), whose
// index covers every column: its entries are what get_link_list decodes.
func linkTable() *model.Table {
	return &model.Table{
		Name: "link",
		Columns: []model.Column{
			{Name: "id1", Type: model.Int}, {Name: "id2", Type: model.Int}, {Name: "link_type", Type: model.Int},
			{Name: "visibility", Type: model.Int}, {Name: "data", Type: model.String, MaxLen: 255},
			{Name: "time", Type: model.Int}, {Name: "version", Type: model.Int},
		},
		PK:      []int{2, 0, 1},
		Indexes: []model.Index{{Name: "id1_type", Columns: []int{0, 2, 3, 5, 1, 6, 4}}},
	}
}

func linkRow(i int64) model.Row {
	return model.Row{{Int: 1000 + i/7}, {Int: i * 31}, {Int: 1 + i%2}, {Int: 1}, {Bytes: []byte("link data\x00x")[:6+i%6]}, {Int: 1700000000 + i}, {Int: i % 3}}
}

// TestDecodeKey: the keys of an index and of the primary key decode to the
// values they were encoded from, into the projection and into a full row,
// strings with 0x00 bytes included; truncated keys are errors.
func TestDecodeKey(t *testing.T) {
	tbl := linkTable()
	st, err := newTableState(7, tbl, []byte{1}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(20) {
		row := linkRow(i)
		for _, ix := range []*indexState{&st.pk, &st.ixs[0]} {
			key := ix.appendKey(nil, row)
			proj := make(model.Row, len(ix.proj))
			if _, err := ix.decodeKey(key, proj, false, nil); err != nil {
				t.Fatal(err)
			}
			// decodeProj, as a scan calls it: into a projection
			// cleared once and decoded into again, entry after entry.
			scan := make(model.Row, len(ix.proj))
			ix.clearProj(scan)
			for _, k := range [][]byte{ix.appendKey(nil, linkRow(i+7)), key} {
				if _, err := ix.decodeProj(k, scan, nil); err != nil {
					t.Fatal(err)
				}
			}
			full := make(model.Row, len(tbl.Columns))
			if _, err := ix.decodeKey(key, full, true, nil); err != nil {
				t.Fatal(err)
			}
			for j, c := range ix.proj {
				if proj[j].Int != row[c].Int || string(proj[j].Bytes) != string(row[c].Bytes) || (tbl.Columns[c].Type == model.String) != (proj[j].Bytes != nil) {
					t.Fatalf("%s row %d: column %d decoded %+v, encoded %+v", ix.name, i, c, proj[j], row[c])
				}
				if full[c].Int != proj[j].Int || string(full[c].Bytes) != string(proj[j].Bytes) {
					t.Fatalf("%s row %d: column %d decoded %+v into the row, %+v into the projection", ix.name, i, c, full[c], proj[j])
				}
				if scan[j].Int != proj[j].Int || string(scan[j].Bytes) != string(proj[j].Bytes) || (scan[j].Bytes == nil) != (proj[j].Bytes == nil) {
					t.Fatalf("%s row %d: column %d decoded %+v by decodeProj, %+v by decodeKey", ix.name, i, c, scan[j], proj[j])
				}
			}
			for cut := prefixLen; cut < len(key); cut++ {
				if _, err := ix.decodeKey(key[:cut], proj, false, nil); err == nil {
					t.Fatalf("%s row %d: key cut to %d of %d bytes decoded", ix.name, i, cut, len(key))
				}
				if _, err := ix.decodeProj(key[:cut], scan, nil); err == nil {
					t.Fatalf("%s row %d: key cut to %d of %d bytes decoded by decodeProj", ix.name, i, cut, len(key))
				}
			}
		}
	}
}

// TestDecodeCols: a scan that names the columns its callback reads
// (ScanSpec.Cols) gets exactly those decoded, equal to decodeProj's, and
// the others left as they were (zero after clearProj), on the link index
// (six Ints and a string past them), its PK (three Ints) and an index led
// by a string; positions outside the projection are refused.
func TestDecodeCols(t *testing.T) {
	tbl := linkTable()
	tbl.Indexes = append(tbl.Indexes, model.Index{Name: "data_id2", Columns: []int{4, 1}})
	st, err := newTableState(7, tbl, []byte{1, 2}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	colSets := [][]int{{}, {0}, {1, 0}, {6}, {4}, {5, 5, 2}, {3, 6, 0}, {0, 1, 2, 3, 4, 5, 6}}
	var p colPlan
	for _, ix := range []*indexState{&st.pk, &st.ixs[0], &st.ixs[1]} {
		for i := range int64(12) {
			key := ix.appendKey(nil, linkRow(i))
			all := make(model.Row, len(ix.proj))
			if _, err := ix.decodeProj(key, all, nil); err != nil {
				t.Fatal(err)
			}
			for _, cols := range colSets {
				var in []int
				for _, c := range cols {
					if c < len(ix.proj) {
						in = append(in, c)
					}
				}
				if in == nil {
					in = []int{}
				}
				if err := ix.plan(&p, in); err != nil {
					t.Fatal(err)
				}
				if p.none() != (len(in) == 0) {
					t.Fatalf("%s cols %v: plan decodes nothing = %v", ix.name, in, p.none())
				}
				got := make(model.Row, len(ix.proj))
				ix.clearProj(got)
				if _, err := ix.decodeCols(key, got, &p, nil); err != nil {
					t.Fatalf("%s cols %v: %v", ix.name, in, err)
				}
				wanted := make([]bool, len(ix.proj))
				for _, c := range in {
					wanted[c] = true
				}
				for j := range got {
					want := model.Value{}
					if wanted[j] {
						want = all[j]
					}
					if got[j].Int != want.Int || string(got[j].Bytes) != string(want.Bytes) {
						t.Fatalf("%s row %d cols %v: position %d decoded %+v, want %+v", ix.name, i, in, j, got[j], want)
					}
				}
			}
			// Cols nil is every column.
			if err := ix.plan(&p, nil); err != nil || !p.all {
				t.Fatalf("%s: plan of nil cols: all %v, %v", ix.name, p.all, err)
			}
		}
		for _, bad := range [][]int{{-1}, {len(ix.proj)}, {0, 99}} {
			if err := ix.plan(&p, bad); err == nil {
				t.Fatalf("%s: cols %v of a %d-column projection planned", ix.name, bad, len(ix.proj))
			}
		}
	}
}

// BenchmarkDecodeKey: decoding (decodeProj) one entry of LinkBench's link index (six
// ints and a string) into the projection, as a scan does per entry.
func BenchmarkDecodeKey(b *testing.B) {
	st, err := newTableState(7, linkTable(), []byte{1}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	ix := &st.ixs[0]
	keys := make([][]byte, 64)
	for i := range keys {
		keys[i] = ix.appendKey(nil, linkRow(int64(i)))
	}
	out := make(model.Row, len(ix.proj))
	ix.clearProj(out)
	var scratch []byte
	b.ReportAllocs()
	cpu0 := processCPU()
	for i := range b.N {
		if scratch, err = ix.decodeProj(keys[i&63], out, scratch[:0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's CPU time in ns (wall times mean little on a
// shared machine).
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
