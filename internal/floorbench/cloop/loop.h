/* The C client loops of the client-floor benchmark (scripts/floor.sh): the
 * cheapest client of the insert benchmark's statements, one driver per
 * server (pg.c: libpq, my.c: the MariaDB C client), the loops in loop.c. */
#ifndef FLOOR_LOOP_H
#define FLOOR_LOOP_H

#include <stdint.h>

/* One statement parameter: an integer, or a string of len bytes. */
typedef struct {
	int is_str;
	int64_t i;
	const char *s;
	int len;
} param;

/* A driver connects (conn info from the environment, see each driver),
 * prepares a statement text once, executes it with parameters and reports
 * affected rows, or runs a query and reads every value of every row. */
typedef struct conn conn;
typedef struct stmt stmt;
conn *drv_connect(void);
stmt *drv_prepare(conn *c, const char *sql, int nparams);
int64_t drv_exec(conn *c, stmt *s, const param *p, int n);
int64_t drv_query(conn *c, stmt *s, const param *p, int n, const char *types);
void drv_close(conn *c);

void die(const char *fmt, ...);

#endif
