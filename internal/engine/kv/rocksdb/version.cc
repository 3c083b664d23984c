//go:build rocksdb

// RocksDB's C API has no version call; the C++ one does.
#include <string>
#include <rocksdb/version.h>

extern "C" const char *rumbench_rocksdb_version() {
	static const std::string v = ROCKSDB_NAMESPACE::GetRocksVersionAsString(true);
	return v.c_str();
}
