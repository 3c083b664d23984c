package enginetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"rumbench/internal/model"
)

// noTxDB is an opened engine whose connections refuse Begin as a server
// without transactions does.
type noTxDB struct{ model.DB }

func (d noTxDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	return noTxConn{c}, err
}

type noTxConn struct{ model.Conn }

func (noTxConn) Begin(context.Context) (model.Tx, error) {
	return nil, fmt.Errorf("standalone server: %w", model.ErrNotSupported)
}

// noTransactorDB's connections are no model.Transactor at all.
type noTransactorDB struct{ model.DB }

func (d noTransactorDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	return struct{ model.Conn }{c}, err
}

// failBeginDB's connections fail Begin with some other error.
type failBeginDB struct{ model.DB }

func (d failBeginDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	return failBeginConn{c}, err
}

type failBeginConn struct{ model.Conn }

func (failBeginConn) Begin(context.Context) (model.Tx, error) {
	return nil, fmt.Errorf("connection reset")
}

// TestLacksTransactions: a declared lack of transactions skips only when
// the engine refuses Begin with model.ErrNotSupported; declared on an
// engine that has them, or refusing otherwise, it is an error.
func TestLacksTransactions(t *testing.T) {
	sqlite := openEmbedded(t, "sqlite")
	lacks := Lacks{Transactions: "the test server is standalone"}
	for _, tc := range []struct {
		name  string
		lacks Lacks
		db    model.DB
		skip  string // substring of the skip message, "" for none
		err   string // substring of the error, "" for none
	}{
		{"nothing declared", Lacks{}, noTxDB{sqlite}, "", ""},
		{"declared, Begin refused", lacks, noTxDB{sqlite}, "no multi-document transactions: the test server is standalone", ""},
		{"declared, no Transactor", lacks, noTransactorDB{sqlite}, "not a model.Transactor", ""},
		{"declared, but Begin works", lacks, sqlite, "", "Begin succeeded"},
		{"declared, Begin fails otherwise", lacks, failBeginDB{sqlite}, "", "want an error wrapping model.ErrNotSupported"},
	} {
		skip, err := tc.lacks.checkTransactions(tc.db)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
		case (tc.skip == "") != (skip == "") || !strings.Contains(skip, tc.skip):
			t.Errorf("%s: skip %q, want %q", tc.name, skip, tc.skip)
		}
	}
}
