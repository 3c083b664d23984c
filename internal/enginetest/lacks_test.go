package enginetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"rumbench/internal/model"
)

// connsDB is an opened engine whose connections wrap changes.
type connsDB struct {
	model.DB
	wrap func(model.Conn) model.Conn
}

func (d connsDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return d.wrap(c), nil
}

// beginFails is a connection whose Begin fails with err.
type beginFails struct {
	model.Conn
	err error
}

func (c beginFails) Begin(context.Context) (model.Tx, error) { return nil, c.err }

// failBegin makes every connection's Begin fail with err, as a server
// without transactions (model.ErrNotSupported) or a broken one does.
func failBegin(db model.DB, err error) model.DB {
	return connsDB{db, func(c model.Conn) model.Conn { return beginFails{c, err} }}
}

// TestLacksTransactions: a declared lack of transactions skips only when
// the engine refuses Begin with model.ErrNotSupported; declared on an
// engine that has them, or refusing otherwise, it is an error.
func TestLacksTransactions(t *testing.T) {
	sqlite := openEmbedded(t, "sqlite")
	noTx := failBegin(sqlite, fmt.Errorf("standalone server: %w", model.ErrNotSupported))
	// Connections that are no model.Transactor at all.
	noTransactor := connsDB{sqlite, func(c model.Conn) model.Conn { return struct{ model.Conn }{c} }}
	lacks := Lacks{Transactions: "the test server is standalone"}
	for _, tc := range []struct {
		name  string
		lacks Lacks
		db    model.DB
		skip  string // substring of the skip message, "" for none
		err   string // substring of the error, "" for none
	}{
		{"nothing declared", Lacks{}, noTx, "", ""},
		{"declared, Begin refused", lacks, noTx, "no multi-document transactions: the test server is standalone", ""},
		{"declared, no Transactor", lacks, noTransactor, "not a model.Transactor", ""},
		{"declared, but Begin works", lacks, sqlite, "", "Begin succeeded"},
		{"declared, Begin fails otherwise", lacks, failBegin(sqlite, errors.New("connection reset")), "", "want an error wrapping model.ErrNotSupported"},
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
