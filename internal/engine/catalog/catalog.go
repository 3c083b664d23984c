// Package catalog is the record in which the engines that keep a catalog
// table or collection (the SQL engines and mongodb) store the schema of
// each table rumbench created.
package catalog

import (
	"encoding/json"
	"fmt"

	"rumbench/internal/model"
)

// Table is the name of the catalog table (collection, for mongodb).
const Table = "rumbench_catalog"

// The catalog stores each table's schema as JSON with types spelled out, so
// a data dir stays readable if model.Type's numbering ever changes.

type catalogColumn struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	MaxLen int    `json:"max_len,omitempty"`
}

type catalogIndex struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"`
	Unique  bool   `json:"unique,omitempty"`
}

type catalogTable struct {
	Name    string          `json:"name"`
	Columns []catalogColumn `json:"columns"`
	PK      []int           `json:"pk"`
	Indexes []catalogIndex  `json:"indexes,omitempty"`
}

// Encode renders t as the catalog's JSON, with t.Indexes taken as the
// built indexes.
func Encode(t *model.Table) (string, error) {
	ct := catalogTable{Name: t.Name, PK: t.PK}
	for _, c := range t.Columns {
		ct.Columns = append(ct.Columns, catalogColumn{Name: c.Name, Type: c.Type.String(), MaxLen: c.MaxLen})
	}
	for _, ix := range t.Indexes {
		ct.Indexes = append(ct.Indexes, catalogIndex{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique})
	}
	b, err := json.Marshal(ct)
	if err != nil {
		return "", fmt.Errorf("encode schema of %s: %w", t.Name, err)
	}
	return string(b), nil
}

// Decode parses a schema written by Encode.
func Decode(s string) (*model.Table, error) {
	var ct catalogTable
	if err := json.Unmarshal([]byte(s), &ct); err != nil {
		return nil, fmt.Errorf("decode catalog schema: %w", err)
	}
	t := &model.Table{Name: ct.Name, PK: ct.PK}
	for _, c := range ct.Columns {
		var typ model.Type
		switch c.Type {
		case model.Int.String():
			typ = model.Int
		case model.Time.String():
			typ = model.Time
		case model.String.String():
			typ = model.String
		default:
			return nil, fmt.Errorf("decode catalog schema of %s: column %s has unknown type %q", ct.Name, c.Name, c.Type)
		}
		t.Columns = append(t.Columns, model.Column{Name: c.Name, Type: typ, MaxLen: c.MaxLen})
	}
	for _, ix := range ct.Indexes {
		t.Indexes = append(t.Indexes, model.Index{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique})
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("catalog schema: %w", err)
	}
	return t, nil
}
