/* MariaDB C client driver of the floor loops: each statement's text is
 * kept and its '?' replaced by the arguments (integers in decimal,
 * strings as _binary'...' escaped by mysql_real_escape_string) in one
 * reused buffer, then sent as one text query: the text go-sql-driver/mysql
 * writes with interpolateParams, and rumbench's session with it. Results
 * are stored (mysql_store_result) and integer columns parsed. Connection:
 * FLOOR_MY_HOST, FLOOR_MY_PORT, FLOOR_MY_USER, FLOOR_MY_PASSWORD,
 * FLOOR_MY_DB, or FLOOR_MY_SOCKET. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "loop.h"

struct conn {
	MYSQL *my;
	char *buf;
	size_t cap;
};
struct stmt {
	const char *sql;
};

static const char *env(const char *k) {
	const char *v = getenv(k);
	return v && *v ? v : NULL;
}

conn *drv_connect(void) {
	conn *c = calloc(1, sizeof(conn));
	c->my = mysql_init(NULL);
	const char *port = env("FLOOR_MY_PORT");
	if (!mysql_real_connect(c->my, env("FLOOR_MY_HOST"), env("FLOOR_MY_USER"), env("FLOOR_MY_PASSWORD"), env("FLOOR_MY_DB"),
	                        port ? atoi(port) : 0, env("FLOOR_MY_SOCKET"), CLIENT_FOUND_ROWS))
		die("connect: %s", mysql_error(c->my));
	c->cap = 1 << 16;
	c->buf = malloc(c->cap);
	return c;
}

stmt *drv_prepare(conn *c, const char *sql, int nparams) {
	(void)c;
	(void)nparams;
	stmt *s = calloc(1, sizeof(stmt));
	s->sql = sql;
	return s;
}

/* interpolate writes s's text with p into c->buf and returns its length. */
static unsigned long interpolate(conn *c, stmt *s, const param *p, int n) {
	size_t need = strlen(s->sql) + 1;
	for (int i = 0; i < n; i++)
		need += p[i].is_str ? 2 * p[i].len + 10 : 21;
	if (need > c->cap) {
		c->cap = need * 2;
		c->buf = realloc(c->buf, c->cap);
	}
	char *o = c->buf;
	int k = 0;
	for (const char *q = s->sql; *q; q++) {
		if (*q != '?' || k >= n) {
			*o++ = *q;
			continue;
		}
		const param *a = &p[k++];
		if (a->is_str) {
			memcpy(o, "_binary'", 8);
			o += 8;
			o += mysql_real_escape_string(c->my, o, a->s, a->len);
			*o++ = '\'';
		} else {
			o += sprintf(o, "%lld", (long long)a->i);
		}
	}
	return o - c->buf;
}

int64_t drv_exec(conn *c, stmt *s, const param *p, int n) {
	unsigned long len = interpolate(c, s, p, n);
	if (mysql_real_query(c->my, c->buf, len))
		die("exec: %s", mysql_error(c->my));
	return (int64_t)mysql_affected_rows(c->my);
}

int64_t drv_query(conn *c, stmt *s, const param *p, int n, const char *types) {
	unsigned long len = interpolate(c, s, p, n);
	if (mysql_real_query(c->my, c->buf, len))
		die("query: %s", mysql_error(c->my));
	MYSQL_RES *r = mysql_store_result(c->my);
	if (!r)
		die("query: %s", mysql_error(c->my));
	unsigned cols = mysql_num_fields(r);
	volatile uint64_t sum = 0;
	int64_t rows = 0;
	MYSQL_ROW row;
	while ((row = mysql_fetch_row(r))) {
		unsigned long *lens = mysql_fetch_lengths(r);
		for (unsigned j = 0; j < cols; j++)
			sum += types[j] == 'i' ? (uint64_t)strtoll(row[j], NULL, 10) : lens[j];
		rows++;
	}
	mysql_free_result(r);
	return rows;
}

void drv_close(conn *c) { mysql_close(c->my); }
