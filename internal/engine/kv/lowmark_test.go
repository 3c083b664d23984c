package kv

import (
	"bytes"
	"testing"
)

// TestLowMark steps through the orders in which a writer can report a key
// relative to a DeleteOldest's start, reserve and raise.
func TestLowMark(t *testing.T) {
	k := func(b ...byte) []byte { return b }
	expect := func(m *lowMark, want []byte) {
		t.Helper()
		if got, _ := m.start(nil); !bytes.Equal(got, want) {
			t.Fatalf("mark = %x, want %x", got, want)
		}
	}
	var m lowMark
	expect(&m, nil)
	m.wrote(k(5)) // nothing reserved: no mark to lower
	expect(&m, nil)

	// A delete of [.., 10) with no write meanwhile raises the mark.
	_, gen := m.start(nil)
	m.reserve(k(10))
	m.raise(k(9, 0), gen)
	expect(&m, k(9, 0))

	// A write inside the reserved range, reported before the raise (the
	// delete did not see it): the mark stays.
	_, gen = m.start(nil)
	m.reserve(k(20))
	m.wrote(k(15))
	m.raise(k(19, 0), gen)
	expect(&m, k(9, 0))

	// Reported after the raise: the mark goes back down to it.
	_, gen = m.start(nil)
	m.reserve(k(30))
	m.raise(k(29, 0), gen)
	expect(&m, k(29, 0))
	m.wrote(k(25))
	expect(&m, k(25))

	// Below the mark, between start and reserve: lowered, and no raise.
	_, gen = m.start(nil)
	m.wrote(k(3))
	m.reserve(k(40))
	m.raise(k(39, 0), gen)
	expect(&m, k(3))

	// Writes above every reserved bound (the ibench inserter) change
	// nothing and do not stop a raise.
	_, gen = m.start(nil)
	m.reserve(k(50))
	m.wrote(k(50))
	m.wrote(k(99))
	m.raise(k(49, 0), gen)
	expect(&m, k(49, 0))

	// Two deletes in flight: the one finishing last with a lower key does
	// not lower the mark.
	_, g1 := m.start(nil)
	_, g2 := m.start(nil)
	m.reserve(k(60))
	m.reserve(k(70))
	m.raise(k(69, 0), g2)
	m.raise(k(59, 0), g1)
	expect(&m, k(69, 0))
}
