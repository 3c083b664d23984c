package results

import (
	"testing"
	"time"

	"rumbench/internal/measure"
)

// BenchmarkTick is one clock interval of a query step as the runner logs it:
// the clock's merge of a worker's recorder, then the interval's record
// (latency summary and encoded histogram per operation). Its time per
// operation is the bookkeeping each interval adds to the client's CPU.
func BenchmarkTick(b *testing.B) {
	for _, reuse := range []bool{false, true} {
		name := map[bool]string{false: "new-encoder", true: "reused-encoder"}[reuse]
		b.Run(name, func(b *testing.B) {
			var enc IntervalEncoder
			c := measure.NewClock(100*time.Millisecond, summaryOps, func(iv *measure.Interval) {
				if reuse {
					enc.Encode("s", iv)
				} else {
					EncodeInterval("s", iv)
				}
			})
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			c.StartAt(t0)
			rec := c.Recorder()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, op := range []string{"query", "insert", "insert_response"} {
					o := summaryOps.Must(op)
					for v := int64(0); v < 200; v++ {
						rec.Record(o, 1, time.Duration(20+(v*37)%300)*time.Microsecond, false)
					}
				}
				c.Tick(t0.Add(time.Duration(i+1) * 100 * time.Millisecond))
			}
		})
	}
}
