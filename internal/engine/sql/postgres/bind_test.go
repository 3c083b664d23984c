package postgres

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// TestBindIsPgproto3s: appendBind writes the Bind message pgproto3's
// Bind.Encode writes for the same parameters (each integer in the width
// and format its parameter type takes, strings as they are, a nil string
// as an empty value), after what the buffer already holds.
func TestBindIsPgproto3s(t *testing.T) {
	oids := []uint32{oidInt8, oidInt4, oidInt2, oidText, oidBytea, 1700 /* numeric: text */, oidInt8}
	st := &stmt{
		sd:   &pgconn.StatementDescription{Name: "stmt_7", ParamOIDs: oids},
		pfmt: []int16{1, 1, 1, 0, 1, 0, 0},
		rfmt: []int16{1, 1, 0},
	}
	args := []sqleng.Arg{
		{Type: model.Int, Value: model.Value{Int: -1 << 40}},
		{Type: model.Int, Value: model.Value{Int: -123456}},
		{Type: model.Int, Value: model.Value{Int: -321}},
		{Type: model.String, Value: model.Value{Bytes: []byte("héllo")}},
		{Type: model.String},
		{Type: model.Int, Value: model.Value{Int: 987654321}},
		{Type: model.Int, Value: model.Value{Int: 42}}, // an int8 bound as text
	}
	params := [][]byte{
		binary.BigEndian.AppendUint64(nil, uint64(args[0].Value.Int)),
		binary.BigEndian.AppendUint32(nil, uint32(args[1].Value.Int)),
		binary.BigEndian.AppendUint16(nil, uint16(args[2].Value.Int)),
		[]byte("héllo"),
		{},
		[]byte(strconv.FormatInt(args[5].Value.Int, 10)),
		[]byte("42"),
	}
	want, err := (&pgproto3.Bind{PreparedStatement: "stmt_7", ParameterFormatCodes: st.pfmt, Parameters: params, ResultFormatCodes: st.rfmt}).Encode([]byte("prefix"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendBind([]byte("prefix"), st, args)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("appendBind wrote\n%q\npgproto3 writes\n%q", got, want)
	}
	if _, err := appendBind(nil, st, args[:3]); err == nil {
		t.Error("3 arguments for 7 parameters accepted")
	}
}
