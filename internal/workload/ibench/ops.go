package ibench

import "rumbench/internal/measure"

// Operation names the insert benchmark records.
const (
	OpInsert         = "insert"
	OpDelete         = "delete"
	OpQuery          = "query"
	OpIndex          = "index"
	OpScan           = "scan"
	OpMaintain       = "maintain"
	OpInsertResponse = "insert_response"
	OpDeleteResponse = "delete_response"
	OpQueryResponse  = "query_response"
)

// ops are the insert benchmark's operations. Inserts and deletes count
// rows (IPS, DPS); queries count queries (QPS), each returning up to 10
// rows; index builds count the rows indexed; the response twins hold the
// latency of paced writes from their intended start (no coordinated
// omission) and have no rate of their own.
var ops = measure.Ops{
	{Name: OpInsert, Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i", RateLabel: "IPS", Desc: "one insert transaction; rows inserted"},
	{Name: OpDelete, Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "d", RateLabel: "DPS", Desc: "one delete of the oldest rows; rows deleted"},
	{Name: OpQuery, Unit: measure.UnitOps, Role: measure.RoleRead, Short: "q", RateLabel: "QPS", Desc: "one range or point query"},
	{Name: OpIndex, Unit: measure.UnitRows, Role: measure.RoleNone, Short: "i", RateLabel: "IPS", Desc: "building a table's secondary indexes; rows indexed",
		Note: "IPS.av here is rows indexed per second (the index build); max(ms) is the longest index build of one table."},
	{Name: OpScan, Unit: measure.UnitRows, Role: measure.RoleRead, Short: "row", RateLabel: "scan", Desc: "a full scan of one index; rows read"},
	{Name: OpMaintain, Unit: measure.UnitOps, Role: measure.RoleNone, Short: "op", RateLabel: "maint", Desc: "the engine's maintenance action (model.Maintainer)",
		Note: "maint: the engine's maintenance action between the write and the query steps (PostgreSQL: VACUUM ANALYZE; MariaDB: ANALYZE TABLE, MyRocks also a memtable flush; SQLite: WAL checkpoint; Pebble, RocksDB: memtable flush; WiredTiger: checkpoint; bbolt: none); max(ms) is its duration, the other columns its whole cost."},
	{Name: OpInsertResponse, Unit: measure.UnitRows, Role: measure.RoleNone, ResponseOf: OpInsert, Desc: "paced insert: latency from its intended start"},
	{Name: OpDeleteResponse, Unit: measure.UnitRows, Role: measure.RoleNone, ResponseOf: OpDelete, Desc: "paced delete: latency from its intended start"},
	{Name: OpQueryResponse, Unit: measure.UnitOps, Role: measure.RoleNone, ResponseOf: OpQuery, Desc: "paced query (--query-rate): latency from its intended start"},
}

var (
	opInsert         = ops.Must(OpInsert)
	opDelete         = ops.Must(OpDelete)
	opQuery          = ops.Must(OpQuery)
	opIndex          = ops.Must(OpIndex)
	opScan           = ops.Must(OpScan)
	opMaintain       = ops.Must(OpMaintain)
	opInsertResponse = ops.Must(OpInsertResponse)
	opDeleteResponse = ops.Must(OpDeleteResponse)
	opQueryResponse  = ops.Must(OpQueryResponse)
)

// Ops implements workload.Workload.
func (b *Bench) Ops() measure.Ops { return ops }

// Ops returns the insert benchmark's operation set (for tests and tools).
func Ops() measure.Ops { return ops }
