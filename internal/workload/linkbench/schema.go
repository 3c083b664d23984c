// Package linkbench is a LinkBench-style social-graph workload (design §4.3,
// issue 19): nodes, typed links between them and per-(node, link type) link
// counts, loaded with power-law out-degrees and then read and written by a
// published mix of ten request types, each request one transaction. Its main
// use is measuring bytes written to storage per request in steady state.
package linkbench

import "rumbench/internal/model"

// Table names, as LinkBench's MySQL schema has them (nodetable, linktable,
// counttable) but short.
const (
	NodeTable  = "node"
	LinkTable  = "link"
	CountTable = "count"
)

// Column positions of node.
const (
	NodeID = iota
	NodeType
	NodeVersion
	NodeTime
	NodeData
)

// Column positions of link.
const (
	LinkID1 = iota
	LinkID2
	LinkType
	LinkVisibility
	LinkData
	LinkTime
	LinkVersion
)

// Column positions of count.
const (
	CountID = iota
	CountType
	CountCount
	CountTime
	CountVersion
)

// Link visibility values (LinkBench's VISIBILITY_HIDDEN, VISIBILITY_DEFAULT).
const (
	Hidden  = 0
	Visible = 1
)

// MaxLinkData is the link data column's bound (varchar(255) in LinkBench).
const MaxLinkData = 255

// NodeSchema is node(id PK, type, version, time, data).
func NodeSchema(maxData int) *model.Table {
	return &model.Table{
		Name: NodeTable,
		Columns: []model.Column{
			NodeID:      {Name: "id", Type: model.Int},
			NodeType:    {Name: "type", Type: model.Int},
			NodeVersion: {Name: "version", Type: model.Int},
			NodeTime:    {Name: "time", Type: model.Int},
			NodeData:    {Name: "data", Type: model.String, MaxLen: maxData},
		},
		PK: []int{NodeID},
	}
}

// LinkSchema is link with PK (link_type, id1, id2) and the covering index
// id1_type (id1, link_type, visibility, time, id2, version, data) that
// serves get_link_list.
func LinkSchema() *model.Table {
	return &model.Table{
		Name: LinkTable,
		Columns: []model.Column{
			LinkID1:        {Name: "id1", Type: model.Int},
			LinkID2:        {Name: "id2", Type: model.Int},
			LinkType:       {Name: "link_type", Type: model.Int},
			LinkVisibility: {Name: "visibility", Type: model.Int},
			LinkData:       {Name: "data", Type: model.String, MaxLen: MaxLinkData},
			LinkTime:       {Name: "time", Type: model.Int},
			LinkVersion:    {Name: "version", Type: model.Int},
		},
		PK: []int{LinkType, LinkID1, LinkID2},
		Indexes: []model.Index{{Name: "id1_type",
			Columns: []int{LinkID1, LinkType, LinkVisibility, LinkTime, LinkID2, LinkVersion, LinkData}}},
	}
}

// CountSchema is count(id, link_type, count, time, version), PK (id,
// link_type).
func CountSchema() *model.Table {
	return &model.Table{
		Name: CountTable,
		Columns: []model.Column{
			CountID:      {Name: "id", Type: model.Int},
			CountType:    {Name: "link_type", Type: model.Int},
			CountCount:   {Name: "count", Type: model.Int},
			CountTime:    {Name: "time", Type: model.Int},
			CountVersion: {Name: "version", Type: model.Int},
		},
		PK: []int{CountID, CountType},
	}
}
