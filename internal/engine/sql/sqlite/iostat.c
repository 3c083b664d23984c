// A counting VFS: SQLite's "unix" VFS with every file's reads, writes and
// syncs counted by the kind of file (database, WAL, rollback journal), the
// approach of SQLite's own ext/misc/vfsstat.c. It changes nothing SQLite
// does: each call is passed to the real VFS's file as it is, and adds one
// atomic add. One VFS is registered per opened rumbench database, so each
// database's counters are its own.
//
// SQLite itself is compiled into github.com/mattn/go-sqlite3; the functions
// used here are declared weak so that this package's C objects link on
// their own (cgo links each package once to find its imports), and resolve
// to go-sqlite3's copy in the binary. rbvfs_available says whether they did.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "iostat.h"

// The parts of sqlite3.h this file needs (SQLite's stable VFS interface:
// https://sqlite.org/c3ref/vfs.html, io_methods.html, file.html).
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
typedef struct sqlite3_vfs sqlite3_vfs;
typedef int64_t sqlite3_int64;
struct sqlite3_file {
	const sqlite3_io_methods *pMethods;
};
struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file *);
	int (*xRead)(sqlite3_file *, void *, int, sqlite3_int64);
	int (*xWrite)(sqlite3_file *, const void *, int, sqlite3_int64);
	int (*xTruncate)(sqlite3_file *, sqlite3_int64);
	int (*xSync)(sqlite3_file *, int);
	int (*xFileSize)(sqlite3_file *, sqlite3_int64 *);
	int (*xLock)(sqlite3_file *, int);
	int (*xUnlock)(sqlite3_file *, int);
	int (*xCheckReservedLock)(sqlite3_file *, int *);
	int (*xFileControl)(sqlite3_file *, int, void *);
	int (*xSectorSize)(sqlite3_file *);
	int (*xDeviceCharacteristics)(sqlite3_file *);
	int (*xShmMap)(sqlite3_file *, int, int, int, void volatile **);
	int (*xShmLock)(sqlite3_file *, int, int, int);
	void (*xShmBarrier)(sqlite3_file *);
	int (*xShmUnmap)(sqlite3_file *, int);
	int (*xFetch)(sqlite3_file *, sqlite3_int64, int, void **);
	int (*xUnfetch)(sqlite3_file *, sqlite3_int64, void *);
};
struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);
	void *rest[15]; // xDelete ... xNextSystemCall, passed through unchanged
};

#define RB_OPEN_MAIN_DB 0x00000100
#define RB_OPEN_MAIN_JOURNAL 0x00000800
#define RB_OPEN_WAL 0x00080000

extern sqlite3_vfs *sqlite3_vfs_find(const char *) __attribute__((weak));
extern int sqlite3_vfs_register(sqlite3_vfs *, int) __attribute__((weak));
extern int sqlite3_vfs_unregister(sqlite3_vfs *) __attribute__((weak));
extern int sqlite3_db_status(sqlite3 *, int, int *, int *, int) __attribute__((weak));

int rbvfs_available(void) {
	return sqlite3_vfs_find && sqlite3_vfs_register && sqlite3_vfs_unregister && sqlite3_db_status;
}

typedef struct rbvfs {
	sqlite3_vfs base;
	sqlite3_vfs *real;
	char name[64];
	int64_t count[RB_KINDS][RB_OPS];
} rbvfs;

// rbfile is the file SQLite sees; the real VFS's file follows it.
typedef struct rbfile {
	sqlite3_file base;
	rbvfs *vfs;
	int kind;
	sqlite3_file *real;
} rbfile;

static void add(rbfile *f, int op, int64_t n) {
	__atomic_add_fetch(&f->vfs->count[f->kind][op], n, __ATOMIC_RELAXED);
}

#define REAL(p) (((rbfile *)(p))->real)

static int fClose(sqlite3_file *p) {
	sqlite3_file *r = REAL(p);
	int rc = SQLITE_OK_;
	if (r->pMethods) rc = r->pMethods->xClose(r);
	return rc;
}
static int fRead(sqlite3_file *p, void *b, int n, sqlite3_int64 off) {
	rbfile *f = (rbfile *)p;
	int rc = f->real->pMethods->xRead(f->real, b, n, off);
	add(f, RB_READS, 1);
	add(f, RB_READ_BYTES, n);
	return rc;
}
static int fWrite(sqlite3_file *p, const void *b, int n, sqlite3_int64 off) {
	rbfile *f = (rbfile *)p;
	int rc = f->real->pMethods->xWrite(f->real, b, n, off);
	add(f, RB_WRITES, 1);
	add(f, RB_WRITE_BYTES, n);
	return rc;
}
static int fTruncate(sqlite3_file *p, sqlite3_int64 n) { return REAL(p)->pMethods->xTruncate(REAL(p), n); }
static int fSync(sqlite3_file *p, int flags) {
	rbfile *f = (rbfile *)p;
	int rc = f->real->pMethods->xSync(f->real, flags);
	add(f, RB_SYNCS, 1);
	return rc;
}
static int fFileSize(sqlite3_file *p, sqlite3_int64 *n) { return REAL(p)->pMethods->xFileSize(REAL(p), n); }
static int fLock(sqlite3_file *p, int l) { return REAL(p)->pMethods->xLock(REAL(p), l); }
static int fUnlock(sqlite3_file *p, int l) { return REAL(p)->pMethods->xUnlock(REAL(p), l); }
static int fCheckReservedLock(sqlite3_file *p, int *o) { return REAL(p)->pMethods->xCheckReservedLock(REAL(p), o); }
static int fFileControl(sqlite3_file *p, int op, void *a) { return REAL(p)->pMethods->xFileControl(REAL(p), op, a); }
static int fSectorSize(sqlite3_file *p) { return REAL(p)->pMethods->xSectorSize(REAL(p)); }
static int fDeviceCharacteristics(sqlite3_file *p) { return REAL(p)->pMethods->xDeviceCharacteristics(REAL(p)); }
static int fShmMap(sqlite3_file *p, int i, int sz, int ext, void volatile **pp) {
	return REAL(p)->pMethods->xShmMap(REAL(p), i, sz, ext, pp);
}
static int fShmLock(sqlite3_file *p, int off, int n, int flags) { return REAL(p)->pMethods->xShmLock(REAL(p), off, n, flags); }
static void fShmBarrier(sqlite3_file *p) { REAL(p)->pMethods->xShmBarrier(REAL(p)); }
static int fShmUnmap(sqlite3_file *p, int del) { return REAL(p)->pMethods->xShmUnmap(REAL(p), del); }
static int fFetch(sqlite3_file *p, sqlite3_int64 off, int n, void **pp) { return REAL(p)->pMethods->xFetch(REAL(p), off, n, pp); }
static int fUnfetch(sqlite3_file *p, sqlite3_int64 off, void *pg) { return REAL(p)->pMethods->xUnfetch(REAL(p), off, pg); }

// One method table per version of the real file's methods, so SQLite sees
// the same optional methods the real file has.
static const sqlite3_io_methods methods[3] = {
	{1, fClose, fRead, fWrite, fTruncate, fSync, fFileSize, fLock, fUnlock, fCheckReservedLock, fFileControl,
	 fSectorSize, fDeviceCharacteristics, 0, 0, 0, 0, 0, 0},
	{2, fClose, fRead, fWrite, fTruncate, fSync, fFileSize, fLock, fUnlock, fCheckReservedLock, fFileControl,
	 fSectorSize, fDeviceCharacteristics, fShmMap, fShmLock, fShmBarrier, fShmUnmap, 0, 0},
	{3, fClose, fRead, fWrite, fTruncate, fSync, fFileSize, fLock, fUnlock, fCheckReservedLock, fFileControl,
	 fSectorSize, fDeviceCharacteristics, fShmMap, fShmLock, fShmBarrier, fShmUnmap, fFetch, fUnfetch},
};

static int vOpen(sqlite3_vfs *v, const char *name, sqlite3_file *p, int flags, int *outFlags) {
	rbvfs *vfs = (rbvfs *)v;
	rbfile *f = (rbfile *)p;
	memset(f, 0, sizeof *f);
	f->vfs = vfs;
	f->real = (sqlite3_file *)(f + 1);
	f->kind = RB_OTHER;
	if (flags & RB_OPEN_MAIN_DB) f->kind = RB_DB;
	else if (flags & RB_OPEN_WAL) f->kind = RB_WAL;
	else if (flags & RB_OPEN_MAIN_JOURNAL) f->kind = RB_JOURNAL;
	int rc = vfs->real->xOpen(vfs->real, name, f->real, flags, outFlags);
	const sqlite3_io_methods *m = f->real->pMethods;
	if (m) {
		int ver = m->iVersion < 1 ? 1 : m->iVersion > 3 ? 3 : m->iVersion;
		f->base.pMethods = &methods[ver - 1];
	}
	return rc;
}

void *rbvfs_new(const char *name) {
	if (!rbvfs_available()) return 0;
	sqlite3_vfs *real = sqlite3_vfs_find(0);
	if (!real) return 0;
	rbvfs *v = calloc(1, sizeof *v);
	if (!v) return 0;
	v->real = real;
	memcpy(&v->base, real, sizeof v->base);
	strncpy(v->name, name, sizeof v->name - 1);
	v->base.zName = v->name;
	v->base.szOsFile = (int)sizeof(rbfile) + real->szOsFile;
	v->base.pNext = 0;
	v->base.pAppData = 0;
	v->base.xOpen = vOpen;
	if (sqlite3_vfs_register(&v->base, 0) != SQLITE_OK_) {
		free(v);
		return 0;
	}
	return v;
}

// rbvfs_free unregisters the VFS; no connection may still use it.
void rbvfs_free(void *p) {
	rbvfs *v = p;
	sqlite3_vfs_unregister(&v->base);
	free(v);
}

void rbvfs_read(void *p, int64_t *out) {
	rbvfs *v = p;
	for (int k = 0; k < RB_KINDS; k++)
		for (int o = 0; o < RB_OPS; o++) out[k * RB_OPS + o] = __atomic_load_n(&v->count[k][o], __ATOMIC_RELAXED);
}

int rb_db_status(void *db, int op, int *cur) {
	int hi = 0;
	// The reset makes each read a delta, so SQLite's 31-bit counters never
	// wrap between reads.
	return sqlite3_db_status((sqlite3 *)db, op, cur, &hi, 1);
}
