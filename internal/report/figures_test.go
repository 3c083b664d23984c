package report

import (
	"testing"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
)

// StepFigures (what the results history records) are the values of the
// report's step tables, figure for figure, and only those it has.
func TestStepFiguresAreTheTableValues(t *testing.T) {
	bs, err := Load([]string{"testdata/run1", "testdata/v1-release"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, sr := range rep.Steps {
		for i, row := range sr.Rows {
			got := map[string]float64{}
			for _, f := range StepFigures(bs[i], sr.Name) {
				got[f.Key] = f.Value
			}
			if row.Status == StatusNotRun {
				if len(got) != 0 {
					t.Errorf("%s of run %d: figures %v of a step it did not run", sr.Name, i+1, got)
				}
				continue
			}
			for k, v := range row.Values {
				g, ok := got[k]
				if ok != v.OK || (ok && g != v.V) {
					t.Errorf("%s of run %d: %s = %v (%v), the table has %v (%v)", sr.Name, i+1, k, g, ok, v.V, v.OK)
				}
				checked++
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d values compared", checked)
	}
}

// Every figure the step tables show is catalogued (its unit, direction and
// formatter are the catalogue's), and every row carries exactly the
// catalogue's figures.
func TestReportKeysAreCatalogued(t *testing.T) {
	w := measure.OpSpec{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite}
	q := measure.OpSpec{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead}
	for _, sr := range []*StepReport{{Kind: KindWrite, Rate: w, Main: w}, {Kind: KindQuery, Rate: q, Main: q, Write: w}} {
		for _, c := range columnsFor(sr, true) {
			if _, ok := figure.Lookup(c.Key); !ok {
				t.Errorf("%s step column %q shows %q, which the catalogue lacks", sr.Kind, c.Header, c.Key)
			}
		}
	}
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Steps {
		for _, row := range sr.Rows {
			if row.Status == StatusNotRun {
				continue
			}
			if len(row.Values) != len(figure.Catalogue) {
				t.Errorf("%s: %d values, the catalogue has %d", sr.Name, len(row.Values), len(figure.Catalogue))
			}
			for k := range row.Values {
				if _, ok := figure.Lookup(k); !ok {
					t.Errorf("%s: value %q is not catalogued", sr.Name, k)
				}
			}
		}
	}
}
