// Package mongo is the "mongodb" engine: a MongoDB server (WiredTiger by
// default) through the official Go driver, go.mongodb.org/mongo-driver/v2,
// addressed by a mongodb:// DSN.
//
// Each table is a collection whose _id is the primary key (transactionid for
// the insert benchmark), so deletes of the oldest rows and point queries are
// _id ranges and lookups. Secondary indexes are compound indexes on the
// index's columns followed by _id (see createIndexes for why). rumbench works
// in its own database (--database, default "rumbench"), created at Open when
// missing and refused when it exists, holds collections and has no rumbench
// catalog; DropDatabase (or drop_database=true at Close) drops it — the same
// rules as the SQL server engines.
//
// docs/mongodb.md lists the server versions this targets and what FerretDB,
// the MongoDB-compatible server the tests can use, lacks.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"rumbench/internal/engine"
	"rumbench/internal/engine/catalog"
	"rumbench/internal/engine/dbserver"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// DefaultDSN addresses a local mongod (or FerretDB) without authentication.
const DefaultDSN = "mongodb://127.0.0.1:27017"

// EnvDSN overrides DefaultDSN when --dsn is empty.
const EnvDSN = "RUMBENCH_MONGO_DSN"

// CatalogCollection records the schema of every table rumbench created, one
// document per table: {_id: name, schema: <JSON, as the SQL engines'>}.
const CatalogCollection = catalog.Table

// minMajor is the oldest server major version accepted: the driver itself
// refuses servers older than 4.4 (wire version 9).
const minMajor = 4

func init() { engine.Register(Driver{}) }

// Driver is the mongodb model.Driver.
type Driver struct{}

func (Driver) Name() string { return "mongodb" }

// Family is WiredTiger's, the default (and since 4.2 only) storage engine of
// mongod; the engine in use is recorded as storage_engine in the settings.
func (Driver) Family() model.Family { return model.CoWBTree }
func (Driver) Kind() model.Kind     { return model.Server }
func (Driver) Description() string {
	return "MongoDB (WiredTiger) via the official Go driver; --dsn default $" + EnvDSN + " or " + DefaultDSN
}

func (Driver) Options() []model.Option { return optionTable(&parsed{}).Options() }

// optionTable declares mongo's options, parsed into p.
func optionTable(p *parsed) engineopt.Table {
	var w string // read with j, which follows it
	boolean := func(dst *bool, key, def, help string, empty bool) engineopt.Option {
		return engineopt.Func(key, def, help, func(raw string) (err error) {
			*dst, err = parseBool(key, raw, empty)
			return err
		})
	}
	return engineopt.Table{
		engineopt.Text(&w, "w", "", "write concern w: a number of members (>= 1) or majority (empty = the server's default)"),
		engineopt.Func("j", "", "write concern j: true waits for the journal at every write (empty = the server's default)", func(raw string) (err error) {
			p.wc, err = parseWriteConcern(w, raw)
			return err
		}),
		engineopt.Func("read_concern", "", "read concern level: local, available, majority, linearizable or snapshot (empty = the server's default)", func(raw string) (err error) {
			p.rc, err = parseReadConcern(raw)
			return err
		}),
		boolean(&p.hint, "hint", "true", "send the index as a hint with range queries and _id scans (true/false)", true),
		// netpoller by default, unlike postgres and innodb: against FerretDB
		// (replies in ~10 ms) blocking cost 2.6x the client CPU per query
		// (docs/client-floor.md, "MongoDB"); no MongoDB server here to
		// measure it at MongoDB's latencies.
		engineopt.Func(blockconn.OptionKey, "netpoller", clientIOHelp, func(raw string) (err error) {
			if raw == "" {
				raw = "netpoller"
			}
			p.blocking, err = blockconn.ParseOption("mongodb", raw)
			return err
		}),
		boolean(&p.dropOnClose, "drop_database", "false", "drop the rumbench database when the run ends (true/false); kept by default so `rumbench verify` can check it", false),
	}
}

// Available needs nothing local (the driver is pure Go); whether the server
// is reachable is only known with the DSN, at Open.
func (Driver) Available() error { return nil }

// parsed is a configuration checked without connecting.
type parsed struct {
	dsn         string
	cs          *connstring.ConnString
	name        string
	wc          *writeconcern.WriteConcern // nil = server default
	rc          *readconcern.ReadConcern   // nil = server default
	hint        bool
	dropOnClose bool
	blocking    bool // client_io=blocking
}

// dsnSecret is the password in a mongodb:// URI, as written and decoded, so
// both forms can be redacted from errors.
func dsnSecret(dsn string) []string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return nil
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		return nil
	}
	out := []string{pw}
	if esc := url.QueryEscape(pw); esc != pw {
		out = append(out, esc)
	}
	return out
}

// redact removes every form of the DSN's password from err's message.
func redact(err error, dsn string) error {
	for _, s := range dsnSecret(dsn) {
		err = dbserver.Redact(err, s)
	}
	return err
}

// ServerAddress is the first host dsn ("" for $RUMBENCH_MONGO_DSN, else
// the local server) names; a mongodb+srv URI has none before a DNS lookup.
func (Driver) ServerAddress(dsn string) (string, string, error) {
	dsn = dbserver.DSN(dsn, EnvDSN, DefaultDSN)
	if !strings.HasPrefix(dsn, "mongodb://") {
		return "", "", errors.New("mongodb: --dsn is not a mongodb:// URI")
	}
	cs, err := connstring.Parse(dsn)
	if err != nil || len(cs.Hosts) == 0 {
		return "", "", errors.New("mongodb: bad --dsn")
	}
	h := cs.Hosts[0]
	if strings.HasSuffix(h, ".sock") {
		return "unix", h, nil
	}
	if _, _, err := net.SplitHostPort(h); err != nil {
		h = net.JoinHostPort(h, "27017")
	}
	return "tcp", h, nil
}

var _ model.ServerAddress = Driver{}

// parseConfig checks the DSN's form, the database name and the option
// values. It connects to nothing; with resolve it looks up the hosts of a
// mongodb+srv URI in DNS.
func parseConfig(cfg model.Config, resolve bool) (parsed, error) {
	var p parsed
	p.dsn = dbserver.DSN(cfg.DSN, EnvDSN, DefaultDSN)
	if !strings.HasPrefix(p.dsn, "mongodb://") && !strings.HasPrefix(p.dsn, "mongodb+srv://") {
		return p, fmt.Errorf("mongodb: --dsn must be a MongoDB URI such as mongodb://user@host:27017/ (got one starting %q)", dsnScheme(p.dsn))
	}
	if strings.HasPrefix(p.dsn, "mongodb+srv://") && !resolve {
		// Parsing an SRV URI looks its hosts up in DNS: only its form is
		// checked before Open.
		if _, err := url.Parse(p.dsn); err != nil {
			return p, redact(fmt.Errorf("mongodb: bad --dsn (want a URI such as mongodb+srv://user@cluster.example.net/): %w", err), p.dsn)
		}
	} else {
		cs, err := connstring.ParseAndValidate(p.dsn)
		if err != nil {
			return p, redact(fmt.Errorf("mongodb: bad --dsn (want a URI such as mongodb://user@host:27017/): %w", err), p.dsn)
		}
		p.cs = cs
	}
	p.name = cfg.Database
	if p.name == "" {
		p.name = "rumbench"
	}
	if err := dbserver.CheckDatabaseName(p.name); err != nil {
		return p, fmt.Errorf("mongodb: %w", err)
	}
	if err := optionTable(&p).Parse(cfg.Options); err != nil {
		return p, err
	}
	return p, nil
}

// dsnScheme is the part of a DSN before "://" (or its first 12 bytes), for
// an error that must not echo a password.
func dsnScheme(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		return dsn[:i+3]
	}
	if i := strings.IndexAny(dsn, "@:/("); i >= 0 {
		return dsn[:i]
	}
	if len(dsn) > 12 {
		return dsn[:12]
	}
	return dsn
}

func parseBool(key, v string, def bool) (bool, error) {
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("mongodb: bad %s %q: want true or false", key, v)
	}
	return b, nil
}

// parseWriteConcern builds the write concern from the w and j options. w=0
// (unacknowledged) is refused: rumbench counts the rows the server
// confirmed, and w=0 confirms none.
func parseWriteConcern(w, j string) (*writeconcern.WriteConcern, error) {
	if w == "" && j == "" {
		return nil, nil
	}
	wc := &writeconcern.WriteConcern{}
	switch {
	case w == "":
	case w == "majority":
		wc.W = writeconcern.WCMajority
	default:
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("mongodb: bad w %q: want a number of members (1, 2, ...) or majority", w)
		}
		if n == 0 {
			return nil, fmt.Errorf("mongodb: w=0 is not allowed: unacknowledged writes confirm nothing, and rumbench counts only confirmed rows; use w=1")
		}
		wc.W = n
	}
	if j != "" {
		b, err := strconv.ParseBool(j)
		if err != nil {
			return nil, fmt.Errorf("mongodb: bad j %q: want true or false", j)
		}
		wc.Journal = &b
	}
	return wc, nil
}

func parseReadConcern(level string) (*readconcern.ReadConcern, error) {
	switch level {
	case "":
		return nil, nil
	case "local", "available", "majority", "linearizable", "snapshot":
		return &readconcern.ReadConcern{Level: level}, nil
	}
	return nil, fmt.Errorf("mongodb: bad read_concern %q: want local, available, majority, linearizable or snapshot", level)
}

// ValidateConfig checks the DSN's form and the option values without
// connecting.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseConfig(cfg, false)
	return err
}

var _ model.ConfigValidator = Driver{}

// DB is an opened mongodb database.
type DB struct {
	client *mongo.Client
	db     *mongo.Database
	p      parsed
	info   model.Info
	host   string // first host:port of the DSN, for messages
	local  bool
	// ferret is set when the server is FerretDB (buildInfo.ferretdbVersion).
	ferret bool
	// txns says whether the deployment runs multi-document transactions
	// (a replica set or a sharded cluster, not FerretDB).
	txns bool
	// schemaMu serialises catalog read-modify-writes (CreateIndexes).
	schemaMu sync.Mutex
	closed   bool
	// readOnly: opened for reading (model.Config.ReadOnly), creates and
	// drops nothing.
	readOnly bool
}

var (
	_ model.DB                 = (*DB)(nil)
	_ model.ProcessOwner       = (*DB)(nil)
	_ model.StatsReporter      = (*DB)(nil)
	_ dbserver.DatabaseDropper = (*DB)(nil)
)

// Open connects, checks the server, creates the database when missing and
// records the settings.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	p, err := parseConfig(cfg, true)
	if err != nil {
		return nil, err
	}
	if cfg.ReadOnly {
		p.dropOnClose = false // reading never drops what it reads
	}
	d := &DB{p: p, readOnly: cfg.ReadOnly}
	if len(p.cs.Hosts) > 0 {
		d.host = p.cs.Hosts[0]
	}
	d.local = p.cs.Scheme == connstring.SchemeMongoDB && len(p.cs.Hosts) == 1 && dbserver.LocalHost(hostOnly(d.host))
	if err := d.connect(ctx); err != nil {
		return nil, redact(err, p.dsn)
	}
	return d, nil
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func (d *DB) connect(ctx context.Context) error {
	co := options.Client().ApplyURI(d.p.dsn).SetAppName("rumbench")
	if !d.p.cs.ServerSelectionTimeoutSet {
		// The driver's default (30 s) is long for a one-line "cannot reach"
		// error; 10 s matches the SQL engines' connect timeout.
		co.SetServerSelectionTimeout(10 * time.Second)
	}
	if d.p.blocking {
		co.SetDialer(&blockingDialer{})
	}
	client, err := mongo.Connect(co)
	if err != nil {
		return d.classify(fmt.Errorf("connect: %w", err))
	}
	d.client = client
	fail := func(err error) error {
		client.Disconnect(context.WithoutCancel(ctx)) //nolint:errcheck // the original error is the one to report
		return err
	}
	admin := client.Database("admin")
	var hello bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		// hello arrived in 4.4.2; isMaster answers the same on older 4.4s.
		if _, isCmdErr := errCode(err); !isCmdErr {
			return fail(d.classify(fmt.Errorf("hello: %w", err)))
		}
		hello = nil
		if err := admin.RunCommand(ctx, bson.D{{Key: "isMaster", Value: 1}}).Decode(&hello); err != nil {
			return fail(d.classify(fmt.Errorf("isMaster: %w", err)))
		}
	}
	var build bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&build); err != nil {
		return fail(d.classify(fmt.Errorf("buildInfo: %w", err)))
	}
	version, _ := build["version"].(string)
	if major, _, _ := strings.Cut(version, "."); major != "" {
		if n, err := strconv.Atoi(major); err == nil && n < minMajor {
			return fail(fmt.Errorf("mongodb: server version %s is not supported: rumbench needs MongoDB 4.4 or newer", version))
		}
	}
	settings := map[string]string{
		"server_version":    version,
		"database":          d.p.name,
		"host":              strings.Join(d.p.cs.Hosts, ","),
		"drop_database":     strconv.FormatBool(d.p.dropOnClose),
		"hint":              strconv.FormatBool(d.p.hint),
		blockconn.OptionKey: "netpoller",
		"w":                 "server default",
		"j":                 "server default",
		"read_concern":      "server default",
	}
	if fv, ok := build["ferretdbVersion"].(string); ok {
		d.ferret = true
		settings["ferretdb_version"] = fv
	}
	setName, _ := hello["setName"].(string)
	msg, _ := hello["msg"].(string)
	switch {
	case msg == "isdbgrid":
		settings["topology"] = "sharded"
	case setName != "":
		settings["topology"] = "replica set " + setName
	default:
		settings["topology"] = "standalone"
	}
	// Multi-document transactions need a replica set (4.0+) or a sharded
	// cluster (4.2+) and logical sessions; FerretDB has neither.
	_, sessions := hello["logicalSessionTimeoutMinutes"]
	d.txns = !d.ferret && sessions && (msg == "isdbgrid" || setName != "")
	settings["transactions"] = strconv.FormatBool(d.txns)
	if d.p.blocking {
		settings[blockconn.OptionKey] = "blocking"
	}
	if wc := d.p.wc; wc != nil {
		if wc.W != nil {
			settings["w"] = fmt.Sprint(wc.W)
		}
		if wc.Journal != nil {
			settings["j"] = strconv.FormatBool(*wc.Journal)
		}
	}
	if d.p.rc != nil {
		settings["read_concern"] = d.p.rc.Level
	}
	if status, err := d.serverStatus(ctx); err == nil {
		if se, ok := status["storageEngine"].(bson.M); ok {
			if n, ok := se["name"].(string); ok {
				settings["storage_engine"] = n
			}
		}
		if wt, ok := status["wiredTiger"].(bson.M); ok {
			if cache, ok := wt["cache"].(bson.M); ok {
				if v, ok := asInt64(cache["maximum bytes configured"]); ok {
					settings["wiredtiger_cache_bytes"] = strconv.FormatInt(v, 10)
				}
			}
		}
	}
	if d.ferret {
		settings["storage_engine"] = "FerretDB (" + firstNonEmpty(settings["storage_engine"], "SQLite or PostgreSQL") + ")"
	}

	dbo := options.Database()
	if d.p.wc != nil {
		dbo.SetWriteConcern(d.p.wc)
	}
	if d.p.rc != nil {
		dbo.SetReadConcern(d.p.rc)
	}
	d.db = client.Database(d.p.name, dbo)
	if err := d.ensureDatabase(ctx); err != nil {
		return fail(err)
	}
	d.info = model.Info{Name: "mongodb", Family: model.CoWBTree, Kind: model.Server, Version: version, Settings: settings}
	if d.ferret {
		d.info.Note = "FerretDB " + settings["ferretdb_version"] + ", not MongoDB: a MongoDB-compatible server on SQL storage"
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// ensureDatabase refuses a foreign database and creates the catalog
// collection (which creates the database) when missing.
func (d *DB) ensureDatabase(ctx context.Context) error {
	names, err := d.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return d.classify(fmt.Errorf("list collections of database %s: %w", d.p.name, err))
	}
	hasCatalog := false
	others := 0
	for _, n := range names {
		switch {
		case n == CatalogCollection:
			hasCatalog = true
		case strings.HasPrefix(n, "system."):
		default:
			others++
		}
	}
	if hasCatalog {
		return nil
	}
	if others > 0 {
		return model.SetupError(fmt.Errorf("mongodb: database %s at %s exists and was not created by rumbench (%d collections, no %s): choose another --database", d.p.name, d.host, others, CatalogCollection))
	}
	if d.readOnly {
		return model.NoDataError(fmt.Errorf("mongodb: database %s on %s holds no rumbench tables (no %s collection): give the --database a run used", d.p.name, d.host, CatalogCollection))
	}
	if err := d.db.CreateCollection(ctx, CatalogCollection); err != nil && !isNamespaceExists(err) {
		return d.classify(fmt.Errorf("create database %s: %w", d.p.name, err))
	}
	return nil
}

// Info returns the engine description.
func (d *DB) Info() model.Info {
	info := d.info
	info.Settings = make(map[string]string, len(d.info.Settings))
	for k, v := range d.info.Settings {
		info.Settings[k] = v
	}
	return info
}

// Close disconnects and, with drop_database=true, drops the database first.
func (d *DB) Close() error {
	if d.closed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	if d.p.dropOnClose {
		err = d.DropDatabase(ctx)
	}
	d.closed = true
	if derr := d.client.Disconnect(ctx); derr != nil {
		err = errors.Join(err, fmt.Errorf("mongodb: disconnect: %w", derr))
	}
	return err
}

// DropDatabase drops the rumbench database.
func (d *DB) DropDatabase(ctx context.Context) error {
	if err := d.db.Drop(ctx); err != nil {
		return redact(d.classify(fmt.Errorf("drop database %s: %w", d.p.name, err)), d.p.dsn)
	}
	return nil
}

// CreateTable drops the collection if it exists, creates it (the _id index
// is the primary key) and records it in the catalog with no secondary
// indexes.
func (d *DB) CreateTable(ctx context.Context, t *model.Table) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	if err := checkSchema(t); err != nil {
		return err
	}
	d.schemaMu.Lock()
	defer d.schemaMu.Unlock()
	if err := d.db.Collection(t.Name).Drop(ctx); err != nil {
		return fmt.Errorf("mongodb: drop collection %s: %w", t.Name, err)
	}
	if err := d.db.CreateCollection(ctx, t.Name); err != nil {
		return fmt.Errorf("mongodb: create collection %s: %w", t.Name, err)
	}
	return d.putCatalog(ctx, t, nil)
}

// checkSchema refuses what the document mapping can't express.
func checkSchema(t *model.Table) error {
	for _, c := range t.Columns {
		if c.Name == "_id" || strings.ContainsAny(c.Name, ".$") || c.Name == "" {
			return fmt.Errorf("mongodb: table %s: column name %q can't be a document field (no _id, '.' or '$')", t.Name, c.Name)
		}
	}
	return nil
}

// DropTable drops the collection (and its indexes) and forgets its schema.
func (d *DB) DropTable(ctx context.Context, t *model.Table) error {
	d.schemaMu.Lock()
	defer d.schemaMu.Unlock()
	if err := d.db.Collection(t.Name).Drop(ctx); err != nil {
		return fmt.Errorf("mongodb: drop collection %s: %w", t.Name, err)
	}
	if _, err := d.db.Collection(CatalogCollection).DeleteOne(ctx, bson.D{{Key: "_id", Value: t.Name}}); err != nil {
		return fmt.Errorf("mongodb: drop table %s: update catalog: %w", t.Name, err)
	}
	return nil
}

// CreateIndexes builds the indexes of t.Indexes the catalog does not list as
// built, one createIndexes command each (so the l.x time is the sum of the
// builds), recording each as soon as it exists.
//
// Each index's key is its columns followed by _id. A MongoDB index entry
// points at a record id, not at the _id, so without _id in the key the
// covering range query (projection of the index columns and the primary
// key, sorted by index order then primary key, as every engine answers it)
// would fetch documents and sort. With it the query is an index scan that
// returns in order and never reads a document — the same shape as
// PostgreSQL's (see the postgres dialect) and InnoDB's, whose secondary
// indexes carry the primary key.
func (d *DB) CreateIndexes(ctx context.Context, t *model.Table) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	d.schemaMu.Lock()
	defer d.schemaMu.Unlock()
	old, err := d.table(ctx, t.Name)
	if err != nil {
		return err
	}
	isBuilt := map[string]bool{}
	if old != nil {
		for _, ix := range old.Indexes {
			isBuilt[ix.Name] = true
		}
	}
	m := newMeta(t)
	var built []model.Index
	for i, ix := range t.Indexes {
		if !isBuilt[ix.Name] {
			keys := bson.D{}
			fields := m.index(i).keyFields
			if ix.Unique && len(fields) > len(ix.Columns) {
				// Unique over the index's own columns: without the
				// appended _id (any key with _id is unique). Range
				// queries sort by _id within equal columns, which
				// this index cannot give without a sort stage.
				fields = fields[:len(ix.Columns)]
			}
			for _, f := range fields {
				keys = append(keys, bson.E{Key: f, Value: 1})
			}
			_, err := d.db.Collection(t.Name).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys, Options: options.Index().SetName(ix.Name).SetUnique(ix.Unique)})
			if err != nil {
				if ix.Unique && (mongo.IsDuplicateKeyError(err) || d.ferret && ferretUniqueViolation(err)) {
					return fmt.Errorf("mongodb: create unique index %s on %s: %w: %w", ix.Name, t.Name, model.ErrDuplicateKey, err)
				}
				return fmt.Errorf("mongodb: create index %s on %s: %w", ix.Name, t.Name, err)
			}
		}
		built = append(built, ix)
		if err := d.putCatalog(ctx, t, built); err != nil {
			return err
		}
	}
	return d.putCatalog(ctx, t, built)
}

func (d *DB) putCatalog(ctx context.Context, t *model.Table, built []model.Index) error {
	rec := *t
	rec.Indexes = built
	s, err := catalog.Encode(&rec)
	if err != nil {
		return err
	}
	_, err = d.db.Collection(CatalogCollection).ReplaceOne(ctx,
		bson.D{{Key: "_id", Value: t.Name}},
		bson.D{{Key: "_id", Value: t.Name}, {Key: "schema", Value: s}},
		options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("mongodb: record %s in %s: %w", t.Name, CatalogCollection, err)
	}
	return nil
}

type catalogDoc struct {
	Name   string `bson:"_id"`
	Schema string `bson:"schema"`
}

// Tables returns the recorded schemas, sorted by name.
func (d *DB) Tables(ctx context.Context) ([]*model.Table, error) {
	cur, err := d.db.Collection(CatalogCollection).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("mongodb: read %s: %w", CatalogCollection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var out []*model.Table
	for cur.Next(ctx) {
		var c catalogDoc
		if err := cur.Decode(&c); err != nil {
			return nil, fmt.Errorf("mongodb: read %s: %w", CatalogCollection, err)
		}
		t, err := catalog.Decode(c.Schema)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("mongodb: read %s: %w", CatalogCollection, err)
	}
	return out, nil
}

// table returns the recorded schema of name, or nil.
func (d *DB) table(ctx context.Context, name string) (*model.Table, error) {
	var c catalogDoc
	err := d.db.Collection(CatalogCollection).FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb: read %s: %w", CatalogCollection, err)
	}
	return catalog.Decode(c.Schema)
}

// Conn returns a worker's handle. The driver pools connections inside the
// client; a Conn owns its encode/decode buffers and cached query shapes.
func (d *DB) Conn(ctx context.Context) (model.Conn, error) {
	return newConn(d), nil
}
