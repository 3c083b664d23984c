// Package keyenc is an order-preserving encoding of typed values for keys of
// an ordered key-value store: comparing two encoded tuples bytewise gives the
// same result as comparing the tuples value by value.
//
// Int and Time values take 8 bytes: the big-endian two's complement with the
// sign bit flipped, so negatives sort before positives. Strings are the bytes
// with each 0x00 written as 0x00 0xFF, followed by the terminator 0x00 0x01.
// The terminator sorts below every byte that can follow a string's prefix, so
// a string sorts before every string it is a proper prefix of, even when more
// columns follow; and no encoded value is a prefix of another, which is what
// makes concatenation a tuple encoding.
//
// All Append functions append to dst and return the extended slice, so hot
// paths can reuse one buffer and allocate nothing.
package keyenc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	escape     = 0x00
	escaped00  = 0xFF // 0x00 0xFF stands for a 0x00 byte inside a string
	terminator = 0x01 // 0x00 0x01 ends a string
)

// shortString is the length up to which DecodeString looks for the end of
// a string byte by byte.
const shortString = 32

// IntLen is the encoded length of an Int or Time value.
const IntLen = 8

// ErrCorrupt is wrapped by decode errors.
var ErrCorrupt = errors.New("keyenc: corrupt encoding")

// AppendInt appends the order-preserving encoding of v.
func AppendInt(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// AppendTime appends a Unix-seconds timestamp; it sorts like an Int.
func AppendTime(dst []byte, unixSeconds int64) []byte {
	return AppendInt(dst, unixSeconds)
}

// AppendString appends the order-preserving encoding of s.
func AppendString(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, escape)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escaped00)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, escape, terminator)
}

// EncodedStringLen is the length AppendString adds for s.
func EncodedStringLen(s []byte) int {
	return len(s) + bytes.Count(s, []byte{escape}) + 2
}

// DecodeInt decodes an Int (or Time) at the start of src and returns it with
// the rest of src.
func DecodeInt(src []byte) (int64, []byte, error) {
	if len(src) < IntLen {
		return 0, nil, fmt.Errorf("%w: int needs %d bytes, have %d", ErrCorrupt, IntLen, len(src))
	}
	return int64(binary.BigEndian.Uint64(src) ^ (1 << 63)), src[IntLen:], nil
}

// DecodeString decodes a string at the start of src. When the string holds
// no 0x00 byte, val aliases src and buf is returned unchanged; otherwise the
// unescaped string is appended to buf, val points into the grown buf, and the
// grown buf is returned so the caller can keep reusing it.
func DecodeString(buf, src []byte) (val, rest, newBuf []byte, err error) {
	// Short strings (most keys' strings) are scanned here: cheaper than
	// bytes.IndexByte's call and setup at these lengths.
	i := -1
	if len(src) <= shortString {
		for j, c := range src {
			if c == escape {
				i = j
				break
			}
		}
	} else {
		i = bytes.IndexByte(src, escape)
	}
	if i < 0 || i+1 >= len(src) {
		return nil, nil, buf, fmt.Errorf("%w: unterminated string", ErrCorrupt)
	}
	if src[i+1] == terminator {
		return src[:i:i], src[i+2:], buf, nil
	}
	start := len(buf)
	for {
		if i < 0 || i+1 >= len(src) {
			return nil, nil, buf, fmt.Errorf("%w: unterminated string", ErrCorrupt)
		}
		switch src[i+1] {
		case terminator:
			buf = append(buf, src[:i]...)
			return buf[start:len(buf):len(buf)], src[i+2:], buf, nil
		case escaped00:
			buf = append(buf, src[:i+1]...)
			src = src[i+2:]
		default:
			return nil, nil, buf, fmt.Errorf("%w: bad escape 0x00 0x%02x in string", ErrCorrupt, src[i+1])
		}
		i = bytes.IndexByte(src, escape)
	}
}

// SkipString returns src after the string encoded at its start.
func SkipString(src []byte) ([]byte, error) {
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], escape)
		if i < 0 || off+i+1 >= len(src) {
			return nil, fmt.Errorf("%w: unterminated string", ErrCorrupt)
		}
		switch src[off+i+1] {
		case terminator:
			return src[off+i+2:], nil
		case escaped00:
			off += i + 2
		default:
			return nil, fmt.Errorf("%w: bad escape 0x00 0x%02x in string", ErrCorrupt, src[off+i+1])
		}
	}
}

// PrefixEnd appends to dst the smallest key that is greater than every key
// starting with prefix, and reports whether one exists (it does not when
// prefix is empty or all 0xFF). It is the exclusive upper bound of a prefix
// range.
func PrefixEnd(dst, prefix []byte) ([]byte, bool) {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			dst = append(dst, prefix[:i+1]...)
			dst[len(dst)-1]++
			return dst, true
		}
	}
	return dst, false
}
