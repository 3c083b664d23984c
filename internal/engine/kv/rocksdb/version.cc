//go:build rocksdb

// RocksDB's C API has no version call; the C++ one does.
#include <string>
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
