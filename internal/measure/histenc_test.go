package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"io"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// inflate returns the uncompressed V2 encoding inside base64 text.
func inflate(t *testing.T, text []byte) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(string(text))
	if err != nil {
		t.Fatal(err)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	p, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw[:4], []byte{0x1c, 0x84, 0x93, 0x14}) {
		t.Fatalf("cookie % x", raw[:4])
	}
	return p
}

// The encoder's payload is byte for byte hdr's own, and hdr decodes it back
// to an equal histogram, for histograms one encoder writes in turn.
func TestHistEncoderMatchesHdr(t *testing.T) {
	cases := map[string]func(h *hdr.Histogram){
		"empty": func(h *hdr.Histogram) {},
		"one":   func(h *hdr.Histogram) { h.RecordValue(1) },
		"query": func(h *hdr.Histogram) {
			for i := 0; i < 5000; i++ {
				h.RecordValue(int64(15 + (i*7919)%400))
			}
		},
		"spread": func(h *hdr.Histogram) { h.RecordValues(3, 1<<40); h.RecordValue(999_999); h.RecordValue(histMaxUs) },
		"gaps": func(h *hdr.Histogram) {
			h.RecordValue(2047)
			h.RecordValue(2048)
			h.RecordValue(70_000)
			h.RecordValues(70_001, 200)
		},
	}
	var e HistEncoder
	for _, name := range []string{"query", "empty", "spread", "one", "gaps", "query"} {
		h := NewHistogram()
		cases[name](h)
		want, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(inflate(t, got), inflate(t, want)) {
			t.Fatalf("%s: payload differs from hdr's", name)
		}
		back, err := hdr.Decode(got)
		if err != nil {
			t.Fatalf("%s: hdr cannot decode it: %v", name, err)
		}
		if !back.Equals(h) || back.TotalCount() != h.TotalCount() || back.Max() != h.Max() {
			t.Fatalf("%s: decoded histogram differs (count %d/%d max %d/%d)", name, back.TotalCount(), h.TotalCount(), back.Max(), h.Max())
		}
	}
}

func TestZigZagNineBytes(t *testing.T) {
	var e HistEncoder
	for _, v := range []int64{0, -1, 1, 63, 64, -65, 1 << 55, -(1 << 62), 1<<63 - 1, -1 << 63} {
		e.payload.Reset()
		e.putZigZag(v)
		b := e.payload.Bytes()
		// Decode by the format's rule: 7 bits per byte, the ninth whole.
		var u uint64
		for i, c := range b {
			if i == 8 {
				u |= uint64(c) << 56
				break
			}
			u |= uint64(c&0x7f) << (7 * i)
			if c&0x80 == 0 {
				if i != len(b)-1 {
					t.Fatalf("%d: stray bytes % x", v, b)
				}
				break
			}
		}
		if got := int64(u>>1) ^ -int64(u&1); got != v || len(b) > 9 {
			t.Fatalf("%d: round trip %d (% x)", v, got, b)
		}
	}
}

func BenchmarkHistEncode(b *testing.B) {
	h := NewHistogram()
	for i := 0; i < 2000; i++ {
		h.RecordValue(int64(15 + (i*7919)%60))
	}
	h.RecordValue(900)
	b.Run("hdr", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h.Encode(hdr.V2CompressedEncodingCookieBase)
		}
	})
	b.Run("encoder", func(b *testing.B) {
		var e HistEncoder
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			e.Encode(h)
		}
	})
}

func BenchmarkHistExport(b *testing.B) {
	h := NewHistogram()
	h.RecordValue(900)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Export()
	}
}
