//go:build wiredtiger

package wiredtiger

import (
	"encoding/binary"
	"flag"
	"strings"
	"testing"
	"time"

	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// The bare loop: the insert benchmark's l.i0x (a PK-order load into a table
// and its three secondary indexes, 100 rows per transaction, one client)
// straight on WiredTiger, with the keys, values, tables and wiredtiger_open
// configuration rumbench's engine uses, but none of rumbench's layers (no
// kv layer, no unique check, no session pool, no measurement). It tells
// whether a slow WiredTiger run is WiredTiger at these settings or
// rumbench's use of it:
//
//	go test -tags wiredtiger -run '^$' -bench BareLoop -benchtime 1x ./internal/engine/kv/wiredtiger/
//	... -bareloop.opts eviction_dirty_target=5,eviction_dirty_trigger=20   (MongoDB's: it collapses)
//	... -bareloop.rows 1000000 -bareloop.index leaf_page_max=16k
var (
	bareRows = flag.Int("bareloop.rows", 300000, "rows the bare loop loads")
	bareOpts = flag.String("bareloop.opts", "", "engine options of the bare loop, key=value,...")
	// Appended to the tables' create configuration, to try page settings.
	barePK    = flag.String("bareloop.pk", "", "extra WT_SESSION::create configuration of the primary key's table")
	bareIndex = flag.String("bareloop.index", "", "extra WT_SESSION::create configuration of the index tables")
)

// bareWindow is the rows per progress sample of the bare loop.
const bareWindow = 10000

func BenchmarkBareLoop(b *testing.B) {
	opts := map[string]string{}
	if *bareOpts != "" {
		for _, kv := range strings.Split(*bareOpts, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				b.Fatalf("-bareloop.opts: %q is not key=value", kv)
			}
			opts[k] = v
		}
	}
	s, err := parseOptions(opts)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rate, worst := bareLoad(b, s, *bareRows)
		b.ReportMetric(rate, "rows/s")
		b.ReportMetric(worst, "worst-rows/s")
	}
}

// bareLoad loads rows rows and returns the whole load's rate and the rate
// of its slowest window of bareWindow rows.
func bareLoad(b *testing.B, s settings, rows int) (rate, worst float64) {
	st, _, err := openStore(b.TempDir(), s, false)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ss, err := st.get()
	if err != nil {
		b.Fatal(err)
	}
	defer st.put(ss)
	b.Logf("wiredtiger_open %s", s.openConfig())
	// The primary key and the three indexes, created as CreateKeyspace
	// does (the URIs only differ in the table id).
	names := []string{"pi1.PRIMARY", "pi1.marketsegment", "pi1.registersegment", "pi1.pdc"}
	cs := make([]*cursorHandle, len(names))
	for i, name := range names {
		uri := spaceURI(uint64(1)<<8|uint64(i), name)
		cfg := st.spaceConfig(i > 0)
		if extra := map[bool]string{false: *barePK, true: *bareIndex}[i > 0]; extra != "" {
			cfg += "," + extra
		}
		if i < 2 {
			b.Logf("create %s", cfg)
		}
		if err := ss.create(uri, cfg); err != nil {
			b.Fatal(err)
		}
		c, err := ss.openCursor(uri, "")
		if err != nil {
			b.Fatal(err)
		}
		cs[i] = &cursorHandle{c}
	}
	// Each index's columns, then the PK (model.Table.IndexColumns).
	idx := [][]int{
		{ibench.ColProductID, ibench.ColCustomerID, ibench.ColPrice, ibench.ColTransactionID},
		{ibench.ColCashRegisterID, ibench.ColCustomerID, ibench.ColPrice, ibench.ColTransactionID},
		{ibench.ColPrice, ibench.ColDateAndTime, ibench.ColCustomerID, ibench.ColTransactionID},
	}
	const perTxn = 100
	gen := ibench.NewRowGen(1, 0, 10, 20, 50)
	batch := ibench.NewBatch(perTxn, 20)
	var (
		data      []byte
		ops       []int64
		bc        cursors
		rollbacks int
	)
	start := time.Now()
	winStart := start
	worst = -1
	for pk := int64(1); pk <= int64(rows); pk += perTxn {
		n := min(perTxn, int(int64(rows)-pk+1))
		rs := gen.Fill(batch, pk, n, time.Now().Unix())
		data, ops, bc = data[:0], ops[:0], bc[:0]
		for _, r := range rs { // the rows, then each index's entries (kv's insert order)
			k := len(data)
			data = keyenc.AppendInt(data, r[ibench.ColTransactionID].Int)
			kn := len(data) - k
			data = bareValue(data, r)
			ops = append(ops, int64(kn), int64(len(data)-k-kn))
			bc = append(bc, cs[0].c)
		}
		for i, cols := range idx {
			for _, r := range rs {
				k := len(data)
				for _, c := range cols {
					data = keyenc.AppendInt(data, r[c].Int)
				}
				ops = append(ops, int64(len(data)-k), 0)
				bc = append(bc, cs[i+1].c)
			}
		}
		// WT_ROLLBACK under cache pressure: applied again, as MongoDB's
		// writeConflictRetry and the kv layer do.
		for {
			err := ss.applyCursors(bc, data, ops)
			if err == nil {
				break
			}
			if !isCode(err, wtRollback) {
				b.Fatalf("rows %d..: %v", pk, err)
			}
			rollbacks++
			time.Sleep(time.Millisecond)
		}
		if done := pk + int64(n) - 1; done%bareWindow == 0 {
			now := time.Now()
			r := bareWindow / now.Sub(winStart).Seconds()
			if worst < 0 || r < worst {
				worst = r
			}
			// At most ten progress lines: the testing package cuts a
			// benchmark's log after a few more.
			if done%(bareWindow*max(5, int64(rows)/bareWindow/10)) == 0 {
				b.Logf("%7d rows %6.2fs  last %d rows at %8.0f rows/s", done, now.Sub(start).Seconds(), bareWindow, r)
			}
			winStart = now
		}
	}
	secs := time.Since(start).Seconds()
	var restored, evicted int64
	ss.stats("statistics:", func(desc string, v int64) {
		switch desc {
		case "cache: pages written requiring in-memory restoration":
			restored = v
		case "cache: modified pages evicted":
			evicted = v
		}
	})
	b.Logf("%d rows in %.2fs: %.0f rows/s, slowest %d rows at %.0f rows/s; modified pages evicted %d, restored in memory %d; WT_ROLLBACK retried %d",
		rows, secs, float64(rows)/secs, bareWindow, worst, evicted, restored, rollbacks)
	return float64(rows) / secs, worst
}

// cursorHandle keeps a cursor in a Go value (test files cannot name C
// types).
type cursorHandle struct{ c cursorPtr }

// bareValue appends the PK entry value of an ibench row: the non-PK
// columns, integers as varints and the pad with its length (kv's
// appendValue).
func bareValue(dst []byte, r model.Row) []byte {
	for c := ibench.ColDateAndTime; c < ibench.ColData; c++ {
		dst = binary.AppendVarint(dst, r[c].Int)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r[ibench.ColData].Bytes)))
	return append(dst, r[ibench.ColData].Bytes...)
}
