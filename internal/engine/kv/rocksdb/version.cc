//go:build rocksdb

// RocksDB's C API has no version call; the C++ one does.
#include <string>
#include <cstring>
#include <rocksdb/version.h>

extern "C" const char *rumbench_rocksdb_version() {
	static const std::string v = ROCKSDB_NAMESPACE::GetRocksVersionAsString(true);
	return v.c_str();
}

// The DB under a pessimistic TransactionDB, for the calls the C API offers
// only on rocksdb_t (properties, compaction). The structs are the C API's
// wrappers (db/c.cc): one pointer to the C++ object.
#include <rocksdb/utilities/transaction_db.h>

struct rocksdb_t { ROCKSDB_NAMESPACE::DB *rep; };
struct rocksdb_transactiondb_t { ROCKSDB_NAMESPACE::TransactionDB *rep; };

extern "C" rocksdb_t *rumbench_txndb_base(rocksdb_transactiondb_t *t) {
	return new rocksdb_t{t->rep->GetBaseDB()};
}

extern "C" void rumbench_base_free(rocksdb_t *d) { delete d; }

// Dropping a column family through the TransactionDB (the C API has no call
// for it) also drops its lock table.
struct rocksdb_column_family_handle_t { ROCKSDB_NAMESPACE::ColumnFamilyHandle *rep; };

extern "C" char *rumbench_txndb_drop_cf(rocksdb_transactiondb_t *t, rocksdb_column_family_handle_t *h) {
	ROCKSDB_NAMESPACE::Status s = t->rep->DropColumnFamily(h->rep);
	return s.ok() ? nullptr : strdup(s.ToString().c_str());
}
