package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/model"
)

// session is a worker's connection on pgconn, pgx's wire-protocol layer:
// statements are prepared once by pgconn, and each execution's messages
// are written from a reused buffer and read back with pgconn's
// ReceiveMessage (send, receive): arguments are encoded in binary (no
// boxing, no type map lookups) and results decoded from binary in place,
// and a statement allocates nothing. Cancellation is watched once per
// context (sqleng.CtxWatch), not once per statement.
type session struct {
	c *pgconn.PgConn
	// bc is the socket under pgconn (and TLS) when client_io=blocking: the
	// connection waits blocked in recv from its first statement on
	// (blockconn).
	bc  net.Conn
	w   sqleng.CtxWatch
	seq int
	row model.Row
	out []byte // the messages of one execution
	// closed, when set, is told the backend's pid when the session
	// closes (exits, DB.Internals).
	closed func(pid uint32)
}

// Type OIDs the session encodes and decodes in binary.
const (
	oidBytea   = 17
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidText    = 25
	oidVarchar = 1043
)

func openSession(ctx context.Context, cfg *pgx.ConnConfig, blocking bool) (*session, error) {
	pc := &cfg.Config
	var bc net.Conn
	if blocking {
		pc = pc.Copy()
		dial := pc.DialFunc
		pc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			bc, err = blockconn.Wrap(nc)
			return bc, err
		}
	}
	c, err := pgconn.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	s := &session{c: c, bc: bc}
	s.w.Interrupt = func() { c.Conn().SetDeadline(time.Unix(1, 0)) } //nolint:errcheck // a closed socket is interrupted already
	return s, nil
}

type stmt struct {
	s     *session
	sd    *pgconn.StatementDescription
	pfmt  []int16 // per parameter: 1 binary, 0 text
	rfmt  []int16 // per result column
	rcols []uint32
}

func (st *stmt) Close() error {
	if st.s.c.IsClosed() {
		return nil
	}
	return st.s.c.Deallocate(context.Background(), st.sd.Name)
}

func binaryParam(oid uint32) bool {
	switch oid {
	case oidBytea, oidInt8, oidInt4, oidInt2, oidText, oidVarchar:
		return true
	}
	return false
}

func (s *session) Prepare(ctx context.Context, text string, cols []model.Type) (sqleng.Stmt, error) {
	if err := s.w.Watch(ctx); err != nil {
		return nil, err
	}
	s.seq++
	sd, err := s.c.Prepare(context.Background(), "rb"+strconv.Itoa(s.seq), text, nil)
	if err != nil {
		return nil, sqleng.CtxErr(ctx, err)
	}
	st := &stmt{s: s, sd: sd, pfmt: make([]int16, len(sd.ParamOIDs)), rfmt: make([]int16, len(sd.Fields))}
	for i, oid := range sd.ParamOIDs {
		if binaryParam(oid) {
			st.pfmt[i] = 1
		}
	}
	for i, f := range sd.Fields {
		st.rcols = append(st.rcols, f.DataTypeOID)
		if binaryParam(f.DataTypeOID) {
			st.rfmt[i] = 1
		}
	}
	if len(sd.Fields) != len(cols) {
		s.c.Deallocate(context.Background(), sd.Name) //nolint:errcheck // the mismatch is the error
		return nil, fmt.Errorf("statement returns %d columns, want %d", len(sd.Fields), len(cols))
	}
	return st, nil
}

// appendBind appends st's Bind message with args, in st's parameter
// formats, byte for byte as pgproto3's Bind.Encode writes it, but from
// the arguments themselves: no slice per parameter, one copy of each value.
func appendBind(out []byte, st *stmt, args []sqleng.Arg) ([]byte, error) {
	if len(args) != len(st.pfmt) {
		return out, fmt.Errorf("statement has %d parameters, got %d arguments", len(st.pfmt), len(args))
	}
	if len(args) > math.MaxUint16 || len(st.rfmt) > math.MaxUint16 {
		return out, fmt.Errorf("statement has %d parameters and %d result columns, more than the protocol's %d", len(args), len(st.rfmt), math.MaxUint16)
	}
	start := len(out)
	out = append(out, 'B', 0, 0, 0, 0, 0) // length to come, unnamed portal
	out = append(out, st.sd.Name...)
	out = append(out, 0)
	out = appendFormats(out, st.pfmt)
	out = binary.BigEndian.AppendUint16(out, uint16(len(args)))
	for i, a := range args {
		if a.Type == model.String {
			// nil binds as empty, not NULL: every column is NOT NULL.
			out = binary.BigEndian.AppendUint32(out, uint32(len(a.Value.Bytes)))
			out = append(out, a.Value.Bytes...)
			continue
		}
		switch oid := st.sd.ParamOIDs[i]; {
		case st.pfmt[i] == 1 && oid == oidInt8:
			out = binary.BigEndian.AppendUint32(out, 8)
			out = binary.BigEndian.AppendUint64(out, uint64(a.Value.Int))
		case st.pfmt[i] == 1 && oid == oidInt4:
			out = binary.BigEndian.AppendUint32(out, 4)
			out = binary.BigEndian.AppendUint32(out, uint32(a.Value.Int))
		case st.pfmt[i] == 1 && oid == oidInt2:
			out = binary.BigEndian.AppendUint32(out, 2)
			out = binary.BigEndian.AppendUint16(out, uint16(a.Value.Int))
		default: // text format, or a text-like type: the decimal text
			at := len(out)
			out = binary.BigEndian.AppendUint32(out, 0)
			out = strconv.AppendInt(out, a.Value.Int, 10)
			binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
		}
	}
	out = appendFormats(out, st.rfmt)
	binary.BigEndian.PutUint32(out[start+1:], uint32(len(out)-start-1))
	return out, nil
}

func appendFormats(out []byte, f []int16) []byte {
	out = binary.BigEndian.AppendUint16(out, uint16(len(f)))
	for _, c := range f {
		out = binary.BigEndian.AppendUint16(out, uint16(c))
	}
	return out
}

func (s *session) Exec(ctx context.Context, st sqleng.Stmt, args []sqleng.Arg) (int64, error) {
	p := st.(*stmt)
	if err := s.w.Watch(ctx); err != nil {
		return 0, err
	}
	if err := blockconn.Busy(s.bc); err != nil {
		return 0, err
	}
	if err := s.send(p, args); err != nil {
		return 0, sqleng.CtxErr(ctx, err)
	}
	n, _, err := s.receive(p, nil)
	return n, sqleng.CtxErr(ctx, err)
}

func (s *session) Query(ctx context.Context, st sqleng.Stmt, args []sqleng.Arg, fn func(model.Row) bool) (int, error) {
	p := st.(*stmt)
	if err := s.w.Watch(ctx); err != nil {
		return 0, err
	}
	if err := blockconn.Busy(s.bc); err != nil {
		return 0, err
	}
	if err := s.send(p, args); err != nil {
		return 0, sqleng.CtxErr(ctx, err)
	}
	_, n, err := s.receive(p, fn)
	return n, sqleng.CtxErr(ctx, err)
}

// send writes one execution of p with args, as pgconn's ExecStatement
// does (Bind, Describe when the statement returns no rows, Execute, Sync),
// from a buffer the session keeps: pgconn's own buffer is dropped after
// every write of more than 1 KiB, so a multi-row insert made it regrow
// (about 46 KB of garbage per 100 rows), and pgconn arms and stops a timer
// around every write, which wakes another thread.
func (s *session) send(p *stmt, args []sqleng.Arg) error {
	out, err := appendBind(s.out[:0], p, args)
	if err != nil {
		return err
	}
	if len(p.sd.Fields) == 0 {
		out, _ = (&pgproto3.Describe{ObjectType: 'P'}).Encode(out)
	}
	out, _ = (&pgproto3.Execute{}).Encode(out)
	out, _ = (&pgproto3.Sync{}).Encode(out)
	s.out = out
	if _, err := s.c.Conn().Write(out); err != nil {
		s.broken()
		return err
	}
	return nil
}

// receive reads the replies to one send up to ReadyForQuery, handing each
// row to fn, and returns the rows affected and the rows read.
func (s *session) receive(p *stmt, fn func(model.Row) bool) (affected int64, n int, err error) {
	if cap(s.row) < len(p.rcols) {
		s.row = make(model.Row, len(p.rcols))
	}
	row := s.row[:len(p.rcols)]
	more := fn != nil
	for {
		msg, rerr := s.c.ReceiveMessage(context.Background())
		if rerr != nil {
			s.broken()
			return affected, n, rerr
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if !more || err != nil {
				continue // the rest of the result is read and dropped
			}
			if err = decode(row, m.Values, p); err != nil {
				continue
			}
			n++
			more = fn(row)
		case *pgproto3.CommandComplete:
			affected = rowsAffected(m.CommandTag)
		case *pgproto3.ErrorResponse:
			if err == nil {
				err = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return affected, n, err
		}
	}
}

// rowsAffected is the count at the end of a command tag ("INSERT 0 100").
func rowsAffected(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	var n int64
	for _, c := range tag[i:] {
		n = n*10 + int64(c-'0')
	}
	return n
}

// broken closes a connection whose exchange failed midway: what it would
// read next is not known.
func (s *session) broken() {
	s.c.Conn().Close() //nolint:errcheck // already failed
}

// decode reads one binary result row into row.
func decode(row model.Row, vals [][]byte, p *stmt) error {
	for i, v := range vals {
		if v == nil {
			return fmt.Errorf("column %d: unexpected NULL", i)
		}
		switch p.rcols[i] {
		case oidInt8:
			if len(v) != 8 {
				return fmt.Errorf("column %d: int8 of %d bytes", i, len(v))
			}
			row[i] = model.Value{Int: int64(binary.BigEndian.Uint64(v))}
		case oidInt4:
			if len(v) != 4 {
				return fmt.Errorf("column %d: int4 of %d bytes", i, len(v))
			}
			row[i] = model.Value{Int: int64(int32(binary.BigEndian.Uint32(v)))}
		case oidInt2:
			if len(v) != 2 {
				return fmt.Errorf("column %d: int2 of %d bytes", i, len(v))
			}
			row[i] = model.Value{Int: int64(int16(binary.BigEndian.Uint16(v)))}
		case oidBytea, oidText, oidVarchar:
			row[i] = model.Value{Bytes: v}
		default:
			x, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return fmt.Errorf("column %d: type OID %d is not an integer: %w", i, p.rcols[i], err)
			}
			row[i] = model.Value{Int: x}
		}
	}
	return nil
}

func (s *session) ExecText(ctx context.Context, q string) error {
	if err := s.w.Watch(ctx); err != nil {
		return err
	}
	_, err := s.c.Exec(context.Background(), q).ReadAll()
	return sqleng.CtxErr(ctx, err)
}

// BlocksInKernel reports whether the socket has moved to blocking mode
// (model.KernelWaiter).
func (s *session) BlocksInKernel() bool { return blockconn.Blocking(s.bc) }

func (s *session) Close() error {
	s.w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pid := s.c.PID()
	err := s.c.Close(ctx)
	if s.closed != nil {
		s.closed(pid)
	}
	return err
}
