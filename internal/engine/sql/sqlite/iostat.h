#include <stdint.h>
#include <stdlib.h>

#define SQLITE_OK_ 0

// File kinds and counted operations of the counting VFS (iostat.c).
enum { RB_DB, RB_WAL, RB_JOURNAL, RB_OTHER, RB_KINDS };
enum { RB_READS, RB_READ_BYTES, RB_WRITES, RB_WRITE_BYTES, RB_SYNCS, RB_OPS };

int rbvfs_available(void);
void *rbvfs_new(const char *name);
void rbvfs_free(void *v);
void rbvfs_read(void *v, int64_t *out);
int rb_db_status(void *db, int op, int *cur);
