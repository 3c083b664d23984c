package kv

import (
	"errors"
	"testing"
	"time"
)

// TestPKTailClaims checks the tail's rules without a store: a claim needs
// its range above every key raised or claimed before; a writer of keys in a
// claimed range waits for its release (a Tx up to txLockWait, then
// errLockTimeout), of keys elsewhere it does not; and a waiter's raise keeps
// later claims off its keys.
func TestPKTailClaims(t *testing.T) {
	tl := newPKTail()
	tl.known = true // as if the table's last key had been read: none
	a, b := &conn{}, &conn{}
	st := &tableState{}
	claim := func(c *conn, lo, hi string) bool {
		ok, err := tl.tryClaim(c, st, []byte(lo), []byte(hi))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !claim(a, "b", "d") {
		t.Fatal("claim of [b, d] on an empty table refused")
	}
	if claim(b, "c", "f") {
		t.Fatal("claim of [c, f] granted beside a claim of [b, d]")
	}
	if claim(b, "d", "f") {
		t.Fatal("claim of [d, f] granted: d is claimed")
	}
	if !claim(b, "e", "f") {
		t.Fatal("claim of [e, f] above [b, d] refused")
	}
	if err := tl.waitClaims([]byte("a"), []byte("a"), txLockWait); err != nil {
		t.Fatalf("a key below every claim waited: %v", err)
	}
	if err := tl.waitClaims([]byte("c"), []byte("c"), txLockWait); !errors.Is(err, errLockTimeout) {
		t.Fatalf("a Tx's key in a claimed range: %v, want errLockTimeout", err)
	}
	tl.releaseClaim(a)
	if err := tl.waitClaims([]byte("c"), []byte("c"), txLockWait); err != nil {
		t.Fatalf("a key of a released claim: %v", err)
	}
	// An autocommit writer waits until the claim is released.
	done := make(chan struct{})
	go func() {
		tl.waitClaims([]byte("a"), []byte("z"), 0)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("a writer of [a, z] went on while [e, f] was claimed")
	case <-time.After(20 * time.Millisecond):
	}
	tl.releaseClaim(b)
	<-done
	// Its raise to z keeps any claim at or below z out.
	if claim(a, "x", "y") || claim(a, "z", "zz") {
		t.Fatal("a claim at or below a writer's raised key was granted")
	}
	if !claim(a, "za", "zb") {
		t.Fatal("a claim above every raised key refused")
	}
}
