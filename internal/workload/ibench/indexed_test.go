package ibench

import (
	"context"
	"strings"
	"testing"

	"rumbench/internal/verify"
)

// l.i0x loads with the secondary indexes in place: afterwards every index
// holds exactly the table's rows (verify), on a B-tree and an LSM.
func TestIndexedLoad(t *testing.T) {
	for _, eng := range []string{"sqlite", "pebble"} {
		t.Run(eng, func(t *testing.T) {
			b, err := New(Config{Clients: 2, Rows: 3000, Indexes: MaxIndexes, PadMin: 10, PadMax: 20, PadRandomPct: 50,
				Seed: 3, Steps: []string{StepLoadIndexed}})
			if err != nil {
				t.Fatal(err)
			}
			db := openEngine(t, eng)
			ctx := context.Background()
			if err := b.Prepare(ctx, db); err != nil {
				t.Fatal(err)
			}
			sum := runStep(t, db, b, StepLoadIndexed)
			if sum.Inserted != 6000 || sum.MainOp != OpInsert {
				t.Fatalf("l.i0x inserted %d rows (main %s), want 6000", sum.Inserted, sum.MainOp)
			}
			res, err := verify.Run(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || len(res.Indexes) != 2*MaxIndexes {
				t.Fatalf("verify after l.i0x: %+v", res)
			}
			for _, ix := range res.Indexes {
				if !ix.Consistent || ix.Entries != 3000 {
					t.Errorf("index %+v inconsistent", ix)
				}
			}
		})
	}
}

func TestIndexedLoadStepLists(t *testing.T) {
	if got := strings.Join(expandStepLists([]string{"@indexed"}), ","); !strings.HasPrefix(got, "l.i0x,l.i1,l.i2,maint,qr100") {
		t.Errorf("@indexed = %s", got)
	}
	for _, steps := range [][]string{{StepLoadIndexed, StepIndex}, {StepLoad, StepLoadIndexed}} {
		cfg := Config{Clients: 1, Rows: 10, Indexes: 3, PadMax: 20, Steps: steps}
		if err := cfg.Validate(); err == nil {
			t.Errorf("steps %v validated", steps)
		}
	}
}
