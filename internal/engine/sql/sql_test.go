package sql

import (
	"reflect"
	"testing"

	"rumbench/internal/model"
)

// pgLike is a dialect with $n parameters and no row values, to check the
// generic statement text independently of SQLite.
type pgLike struct{}

func (pgLike) Name() string                       { return "pglike" }
func (pgLike) Quote(s string) string              { return QuoteDouble(s) }
func (pgLike) AppendParam(b []byte, n int) []byte { return AppendDollar(b, n) }
func (pgLike) MaxParams() int                     { return 65535 }
func (pgLike) ColumnType(c model.Column) string {
	return map[model.Type]string{model.Int: "bigint", model.Time: "bigint", model.String: "bytea"}[c.Type]
}
func (pgLike) TableOptions(*model.Table) string { return "" }
func (d pgLike) CreateIndexes(t *model.Table, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, StdCreateIndex(d, t, i))
	}
	return out
}
func (d pgLike) Insert(t *model.Table, n int) string          { return StdInsert(d, t, n) }
func (pgLike) DeleteOldest(*model.Table, int) (string, []int) { return "DELETE", nil }
func (pgLike) IndexHint(*model.Table, int) string             { return "" }
func (pgLike) Limit(p string) string                          { return " LIMIT " + p }
func (pgLike) RowValues() bool                                { return false }
func (pgLike) BeginWrite() string                             { return "BEGIN" }
func (pgLike) CatalogDDL() string                             { return "" }
func (d pgLike) CatalogPut() string                           { return StdCatalogPutOnConflict(d) }

func testTable() *model.Table {
	return &model.Table{
		Name: `t"x`,
		Columns: []model.Column{
			{Name: "a", Type: model.Int}, {Name: "b", Type: model.Int},
			{Name: "s", Type: model.String, MaxLen: 10}, {Name: "v", Type: model.Time},
		},
		PK:      []int{0, 1},
		Indexes: []model.Index{{Name: "i", Columns: []int{3, 0}}},
	}
}

func TestStatementText(t *testing.T) {
	d, tbl := pgLike{}, testTable()
	for _, tc := range []struct{ got, want string }{
		{createTableSQL(d, tbl), `CREATE TABLE "t""x" ("a" bigint NOT NULL, "b" bigint NOT NULL, "s" bytea NOT NULL, "v" bigint NOT NULL, PRIMARY KEY ("a", "b"))`},
		{StdCreateIndex(d, tbl, 0), `CREATE INDEX "t""x_i" ON "t""x" ("v", "a")`},
		{StdInsert(d, tbl, 2), `INSERT INTO "t""x" ("a", "b", "s", "v") VALUES ($1,$2,$3,$4),($5,$6,$7,$8)`},
		{getSQL(d, tbl, 2), `SELECT "a", "b", "s", "v" FROM "t""x" WHERE ("a" = $1 AND "b" = $2) OR ("a" = $3 AND "b" = $4)`},
		{updateSQL(d, tbl, []model.Change{{Col: 3, Op: model.Add}, {Col: 2, Op: model.Set}}), `UPDATE "t""x" SET "v" = "v" + $1, "s" = $2 WHERE "a" = $3 AND "b" = $4`},
		{StdCatalogPutOnConflict(d), `INSERT INTO "rumbench_catalog" (name, "schema") VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET "schema" = excluded."schema"`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	one := &model.Table{Name: "p", Columns: []model.Column{{Name: "k", Type: model.Int}}, PK: []int{0}}
	if got, want := getSQL(d, one, 3), `SELECT "k" FROM "p" WHERE "k" IN ($1, $2, $3)`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestScanText(t *testing.T) {
	d, tbl := pgLike{}, testTable()
	cols := tbl.IndexColumns(0) // v, a, b
	q, plan := scanSQL(d, tbl, 0, cols, 3, false, true)
	want := `SELECT "v", "a", "b" FROM "t""x" WHERE "v" >= $1 AND ("v" > $2 OR "a" >= $3 AND ("a" > $4 OR "b" >= $5)) ORDER BY "v", "a", "b" LIMIT $6`
	if q != want || !reflect.DeepEqual(plan, []int{0, 0, 1, 1, 2}) {
		t.Errorf("got  %s %v\nwant %s", q, plan, want)
	}
	q, plan = scanSQL(d, tbl, 0, cols, 1, true, false)
	want = `SELECT "v", "a", "b" FROM "t""x" WHERE "v" <= $1 ORDER BY "v" DESC, "a" DESC, "b" DESC`
	if q != want || !reflect.DeepEqual(plan, []int{0}) {
		t.Errorf("got  %s %v\nwant %s", q, plan, want)
	}
	q, plan = scanSQL(rowValues{pgLike{}}, tbl, -1, tbl.PK, 2, true, true)
	want = `SELECT "a", "b" FROM "t""x" WHERE ("a", "b") <= ($1, $2) ORDER BY "a" DESC, "b" DESC LIMIT $3`
	if q != want || !reflect.DeepEqual(plan, []int{0, 1}) {
		t.Errorf("got  %s %v\nwant %s", q, plan, want)
	}
	q = betweenSQL(pgLike{}, tbl, -1, tbl.PK, 2, true, true)
	want = `SELECT "a", "b" FROM "t""x" WHERE "a" = $1 AND "b" >= $2 AND "b" <= $3 ORDER BY "a" DESC, "b" DESC LIMIT $4`
	if q != want {
		t.Errorf("got  %s\nwant %s", q, want)
	}
	if q := deleteSQL(pgLike{}, tbl); q != `DELETE FROM "t""x" WHERE "a" = $1 AND "b" = $2` {
		t.Errorf("delete by PK: %s", q)
	}
	if q := StdUpsert(pgLike{}, tbl, []model.Change{{Col: 3, Op: model.Add}, {Col: 2}}); q != `INSERT INTO "t""x" ("a", "b", "s", "v") VALUES ($1,$2,$3,$4) ON CONFLICT ("a", "b") DO UPDATE SET "v" = "t""x"."v" + $5, "s" = $6` {
		t.Errorf("upsert: %s", q)
	}
	// scans, bounded ranges of the PK and the index, a get, deletes
	// without and with a bound
	if n := len(QueryShapes(d, tbl)); n != 2*(3+4)+2*2+3 {
		t.Errorf("QueryShapes returned %d statements", n)
	}
}

type rowValues struct{ pgLike }

func (rowValues) RowValues() bool { return true }

func TestAsInt(t *testing.T) {
	for _, v := range []any{int64(-7), int32(-7), -7, []byte("-7"), "-7"} {
		if got, err := asInt(v); err != nil || got != -7 {
			t.Errorf("asInt(%T) = %d, %v", v, got, err)
		}
	}
	for _, v := range []any{nil, 1.5, []byte("x")} {
		if _, err := asInt(v); err == nil {
			t.Errorf("asInt(%v) succeeded", v)
		}
	}
}
