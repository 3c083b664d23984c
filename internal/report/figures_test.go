package report

import "testing"

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
