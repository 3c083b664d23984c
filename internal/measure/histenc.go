package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// HistEncoder writes histograms in HdrHistogram's V2 compressed encoding,
// base64 text as hdr's Encode(V2CompressedEncodingCookieBase) returns it and
// any HdrHistogram decoder reads it. It exists for the clock's ticks: hdr's
// Encode builds a new zlib compressor at its best level for every call
// (about 800 KB of garbage and 240 µs per histogram here), and a copy of the
// dense counts (188 KB) would cost a fifth of that; at 0.1 s intervals and
// five operations this was a tenth of a query step's client CPU. An encoder
// moves the counts into a reused sparse histogram (hdr's PackedHistogram,
// made for rolling windows), walks its populated buckets, and compresses
// with one reused zlib writer at BestSpeed: the payload is a few hundred
// bytes of run-length varints, which the level hardly changes. It writes
// the conversion ratio 1, as every histogram rumbench builds has. Not safe
// for concurrent use.
type HistEncoder struct {
	slot    *hdr.PackedHistogram
	geo     geometry
	payload bytes.Buffer // the uncompressed V2 encoding
	deflate bytes.Buffer // its zlib stream
	out     []byte       // cookie, length and the zlib stream
	text    []byte       // base64 of out
	zw      *zlib.Writer
	varint  [9]byte
}

// geometry is what maps a value to its index in HdrHistogram's flat counts
// array (the V2 payload is that array, run-length encoded), as HdrHistogram
// defines it for a lowest discernible value and significant digits.
type geometry struct {
	low, high, sig   int64
	unitMag, halfMag int32
	mask             int64
}

func newGeometry(low, high, sig int64) geometry {
	g := geometry{low: low, high: high, sig: sig}
	// Unit resolution up to 2×10^sig, in a power-of-two sub-bucket count.
	countMag := int32(math.Ceil(math.Log2(2 * math.Pow10(int(sig)))))
	g.halfMag = max(countMag, 1) - 1
	g.unitMag = max(int32(math.Floor(math.Log2(float64(low)))), 0)
	g.mask = int64(1)<<(g.halfMag+1) - 1<<g.unitMag
	return g
}

// index is the counts index of value v.
func (g geometry) index(v int64) int64 {
	bucket := int64(64-bits.LeadingZeros64(uint64(v|g.mask))) - int64(g.unitMag) - int64(g.halfMag+1)
	sub := v >> (bucket + int64(g.unitMag))
	return (bucket+1)<<g.halfMag + sub - 1<<g.halfMag
}

// V2 encoding cookies (HdrHistogram's wire format; the 0x10 marks 64-bit
// counts as every implementation writes them).
const (
	v2EncodingCookie           int32 = 0x1c849303 | 0x10
	v2CompressedEncodingCookie int32 = 0x1c849304 | 0x10
)

// Encode returns h's V2 compressed encoding as base64 text. The returned
// slice is the encoder's own and valid until the next call.
func (e *HistEncoder) Encode(h *hdr.Histogram) ([]byte, error) {
	low, high, sig := h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()
	if e.slot == nil || e.geo.low != low || e.geo.high != high || e.geo.sig != sig {
		e.slot = hdr.NewPacked(low, high, int(sig))
		e.geo = newGeometry(low, high, sig)
	}
	e.slot.Reset()
	e.slot.MergeFrom(h)
	e.payload.Reset()
	var hdrBuf [40]byte
	e.payload.Write(hdrBuf[:]) // filled below, once the payload's length is known
	// The counts from index 0 to the highest populated one, at least one
	// count, as hdr's encoder writes them: a run of zeros as its negated
	// length, a single zero as 0.
	next := int64(0)
	for v, c := range e.slot.ForEachBucket {
		i := e.geo.index(v)
		e.putZeros(i - next)
		e.putZigZag(c)
		next = i + 1
	}
	if next == 0 {
		e.putZigZag(0)
	}
	p := e.payload.Bytes()
	be := binary.BigEndian
	be.PutUint32(p[0:], uint32(v2EncodingCookie))
	be.PutUint32(p[4:], uint32(len(p)-40))
	be.PutUint32(p[8:], 0) // normalizing index offset: the payload is in logical order
	be.PutUint32(p[12:], uint32(int32(sig)))
	be.PutUint64(p[16:], uint64(low))
	be.PutUint64(p[24:], uint64(high))
	be.PutUint64(p[32:], math.Float64bits(1))

	e.deflate.Reset()
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel(&e.deflate, zlib.BestSpeed)
		if err != nil {
			return nil, fmt.Errorf("histogram encoder: %w", err)
		}
		e.zw = zw
	} else {
		e.zw.Reset(&e.deflate)
	}
	if _, err := e.zw.Write(p); err != nil {
		return nil, fmt.Errorf("histogram encoder: %w", err)
	}
	if err := e.zw.Close(); err != nil {
		return nil, fmt.Errorf("histogram encoder: %w", err)
	}
	z := e.deflate.Bytes()
	e.out = e.out[:0]
	e.out = be.AppendUint32(e.out, uint32(v2CompressedEncodingCookie))
	e.out = be.AppendUint32(e.out, uint32(len(z)))
	e.out = append(e.out, z...)
	n := base64.StdEncoding.EncodedLen(len(e.out))
	if cap(e.text) < n {
		e.text = make([]byte, n)
	}
	e.text = e.text[:n]
	base64.StdEncoding.Encode(e.text, e.out)
	return e.text, nil
}

// putZeros appends a run of n zero counts.
func (e *HistEncoder) putZeros(n int64) {
	switch {
	case n == 1:
		e.putZigZag(0)
	case n > 1:
		e.putZigZag(-n)
	}
}

// putZigZag appends v as HdrHistogram's ZigZag LEB128-64b9B varint: seven
// bits per byte for the first eight bytes, all eight in a ninth.
func (e *HistEncoder) putZigZag(v int64) {
	u := uint64((v << 1) ^ (v >> 63))
	n := 0
	for n < 8 && u >= 0x80 {
		e.varint[n] = byte(u) | 0x80
		u >>= 7
		n++
	}
	e.varint[n] = byte(u)
	e.payload.Write(e.varint[:n+1])
}
