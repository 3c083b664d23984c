/* libpq driver of the floor loops: statements prepared once, integer
 * parameters and every result in binary (what rumbench's pgconn session
 * sends), one PQexecPrepared per statement. Connection: FLOOR_CONN, a
 * libpq conninfo string or URL. */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "loop.h"

struct conn {
	PGconn *pg;
	int nstmt;
	const char *vals[1000];
	int lens[1000], fmts[1000];
	uint64_t ints[1000];
};
struct stmt {
	char name[16];
};

conn *drv_connect(void) {
	const char *ci = getenv("FLOOR_CONN");
	conn *c = calloc(1, sizeof(conn));
	c->pg = PQconnectdb(ci ? ci : "");
	if (PQstatus(c->pg) != CONNECTION_OK)
		die("connect: %s", PQerrorMessage(c->pg));
	for (int i = 0; i < 1000; i++)
		c->fmts[i] = 1;
	return c;
}

stmt *drv_prepare(conn *c, const char *sql, int nparams) {
	stmt *s = calloc(1, sizeof(stmt));
	snprintf(s->name, sizeof s->name, "f%d", c->nstmt++);
	PGresult *r = PQprepare(c->pg, s->name, sql, nparams, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die("prepare %s: %s", sql, PQerrorMessage(c->pg));
	PQclear(r);
	return s;
}

static PGresult *run(conn *c, stmt *s, const param *p, int n) {
	for (int i = 0; i < n; i++) {
		if (p[i].is_str) {
			c->vals[i] = p[i].s;
			c->lens[i] = p[i].len;
		} else {
			c->ints[i] = htobe64((uint64_t)p[i].i);
			c->vals[i] = (const char *)&c->ints[i];
			c->lens[i] = 8;
		}
	}
	return PQexecPrepared(c->pg, s->name, n, c->vals, c->lens, c->fmts, 1);
}

int64_t drv_exec(conn *c, stmt *s, const param *p, int n) {
	PGresult *r = run(c, s, p, n);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die("exec: %s", PQerrorMessage(c->pg));
	int64_t k = atoll(PQcmdTuples(r));
	PQclear(r);
	return k;
}

int64_t drv_query(conn *c, stmt *s, const param *p, int n, const char *types) {
	PGresult *r = run(c, s, p, n);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("query: %s", PQerrorMessage(c->pg));
	int rows = PQntuples(r), cols = PQnfields(r);
	volatile uint64_t sum = 0;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			const char *v = PQgetvalue(r, i, j);
			if (types[j] == 'i' && PQgetlength(r, i, j) == 8) {
				uint64_t x;
				memcpy(&x, v, 8);
				sum += be64toh(x);
			} else {
				sum += PQgetlength(r, i, j);
			}
		}
	PQclear(r);
	return rows;
}

void drv_close(conn *c) { PQfinish(c->pg); }
