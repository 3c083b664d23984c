package catalog

import (
	"reflect"
	"strings"
	"testing"

	"rumbench/internal/model"
)

func TestRoundTrip(t *testing.T) {
	tbl := &model.Table{
		Name: `t"x`,
		Columns: []model.Column{
			{Name: "a", Type: model.Int}, {Name: "b", Type: model.Int},
			{Name: "s", Type: model.String, MaxLen: 10}, {Name: "v", Type: model.Time},
		},
		PK:      []int{0, 1},
		Indexes: []model.Index{{Name: "i", Columns: []int{3, 0}}},
	}
	s, err := Encode(tbl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, `"type":"time"`) {
		t.Errorf("schema JSON does not spell out types: %s", s)
	}
	got, err := Decode(s)
	if err != nil || !reflect.DeepEqual(got, tbl) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	for _, bad := range []string{`{`, `{"name":"x","columns":[{"name":"a","type":"float"}],"pk":[0]}`, `{"name":"x","columns":[{"name":"a","type":"int"}],"pk":[3]}`} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%s) succeeded", bad)
		}
	}
}
