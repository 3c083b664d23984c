package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"rumbench/internal/model"
)

// "sorry, too many clients already" names the server and the fix, and is
// the user's to fix (exit 2), not a failure of rumbench.
func TestClassifyTooManyClients(t *testing.T) {
	cfg, err := pgx.ParseConfig("postgres://bench:s3cret@db.example:5433/x")
	if err != nil {
		t.Fatal(err)
	}
	got := classify(&pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"}, cfg, "rumbench")
	want := "postgres: the server at db.example:5433 refused a connection (sorry, too many clients already): use fewer --clients, or raise its max_connections (SQLSTATE 53300)"
	if got.Error() != want || !errors.Is(got, model.ErrSetup) {
		t.Fatalf("classify: %q (setup error %v), want %q as a setup error", got, errors.Is(got, model.ErrSetup), want)
	}
}
