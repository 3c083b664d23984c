/* The loops: the statements of an insert benchmark step, sent as the
 * rumbench step sends them (same texts, same batch sizes, one statement
 * per round trip), with the least client work around them. Usage:
 *
 *   floor_X load  INSERT_SQL BATCH ROWS FIRSTPK
 *   floor_X churn INSERT_SQL DELETE_SQL BATCH ROWS FIRSTPK MINPK
 *   floor_X query SECONDS INSERT50_SQL DELETE_SQL FIRSTPK MINPK GET_SQL|- [SCAN_SQL DOMAIN]...
 *
 * load inserts ROWS rows in batches of BATCH; churn inserts ROWS rows on
 * one connection and after each batch deletes as many of the oldest on a
 * second; query runs range queries (LIMIT 10, a random leading value below
 * DOMAIN on a random index) or, given GET_SQL, point queries of 10 random
 * keys, for SECONDS, while a second and a third connection insert 50 rows
 * every 0.5 s and delete 50 a quarter second later (qr100/qp100's writers,
 * run in the same thread between queries). It prints "ops N cpu_us U":
 * rows inserted (queries for query) and the process's user+sys CPU over
 * the loop, connections and prepares excluded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "loop.h"

void die(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("floor loop: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double cpu_us(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) {
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static int64_t rand_below(int64_t n) { return n > 0 ? (int64_t)(next_rand() % (uint64_t)n) : 0; }

/* The ibench row: transactionid, dateandtime, cashregisterid, productid,
 * customerid, price, data (10-20 bytes, half of them random). */
enum { NCOL = 7, PADMAX = 20 };
static param *rows_p;
static char *pads;

static void fill(int k, int64_t pk) {
	int64_t now = time(NULL);
	for (int r = 0; r < k; r++) {
		param *p = rows_p + r * NCOL;
		char *pad = pads + r * PADMAX;
		int64_t v[6] = {pk + r, now, rand_below(1000), rand_below(10000), rand_below(100000), rand_below(500)};
		for (int i = 0; i < 6; i++)
			p[i] = (param){.i = v[i]};
		int n = 10 + (int)rand_below(11);
		for (int i = 0; i < n; i++)
			pad[i] = i < n / 2 ? 'a' + (char)rand_below(26) : 'x';
		p[6] = (param){.is_str = 1, .s = pad, .len = n};
	}
}

static int64_t next_pk, min_pk;

static void insert(conn *c, stmt *s, int k) {
	fill(k, next_pk);
	drv_exec(c, s, rows_p, k * NCOL);
	next_pk += k;
}

static void delete_oldest(conn *c, stmt *s, int k) {
	param p[2] = {{.i = min_pk}, {.i = k}};
	min_pk += drv_exec(c, s, p, 2);
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: %s load|churn|query ...", argv[0]);
	const char *mode = argv[1];
	rows_p = calloc(100 * NCOL, sizeof(param));
	pads = calloc(100, PADMAX);
	int64_t ops = 0;
	double c0, c1;
	if (!strcmp(mode, "load") && argc == 6) {
		int bs = atoi(argv[3]);
		int64_t n = atoll(argv[4]);
		next_pk = atoll(argv[5]);
		conn *c = drv_connect();
		stmt *s = drv_prepare(c, argv[2], bs * NCOL);
		c0 = cpu_us();
		for (int64_t done = 0; done < n; done += bs)
			insert(c, s, bs);
		c1 = cpu_us();
		ops = n;
	} else if (!strcmp(mode, "churn") && argc == 8) {
		int bs = atoi(argv[4]);
		int64_t n = atoll(argv[5]);
		next_pk = atoll(argv[6]);
		min_pk = atoll(argv[7]);
		conn *ci = drv_connect(), *cd = drv_connect();
		stmt *si = drv_prepare(ci, argv[2], bs * NCOL), *sd = drv_prepare(cd, argv[3], 2);
		c0 = cpu_us();
		for (int64_t done = 0; done < n; done += bs) {
			insert(ci, si, bs);
			delete_oldest(cd, sd, bs);
		}
		c1 = cpu_us();
		ops = n;
	} else if (!strcmp(mode, "query") && argc >= 8 && (argc - 8) % 2 == 0) {
		double secs = atof(argv[2]);
		next_pk = atoll(argv[5]);
		min_pk = atoll(argv[6]);
		int point = strcmp(argv[7], "-") != 0;
		int nscan = (argc - 8) / 2;
		if (!point && nscan == 0)
			die("query: no GET_SQL and no SCAN_SQL");
		conn *cq = drv_connect(), *ci = drv_connect(), *cd = drv_connect();
		stmt *si = drv_prepare(ci, argv[3], 50 * NCOL), *sd = drv_prepare(cd, argv[4], 2);
		stmt *get = point ? drv_prepare(cq, argv[7], 10) : NULL;
		stmt **scans = calloc(nscan + 1, sizeof(stmt *));
		int64_t *domains = calloc(nscan + 1, sizeof(int64_t));
		for (int i = 0; i < nscan; i++) {
			scans[i] = drv_prepare(cq, argv[8 + 2 * i], 2);
			domains[i] = atoll(argv[9 + 2 * i]);
		}
		param p[10];
		double start = now_s(), end = start + secs, ins_at = start, del_at = start + 0.25;
		c0 = cpu_us();
		for (double t = start; t < end; t = now_s()) {
			if (t >= ins_at) {
				insert(ci, si, 50);
				ins_at += 0.5;
			}
			if (t >= del_at) {
				delete_oldest(cd, sd, 50);
				del_at += 0.5;
			}
			if (point) {
				for (int i = 0; i < 10; i++)
					p[i] = (param){.i = min_pk + rand_below(next_pk - min_pk)};
				drv_query(cq, get, p, 10, "iiiiiis");
			} else {
				int i = (int)rand_below(nscan);
				p[0] = (param){.i = rand_below(domains[i])};
				p[1] = (param){.i = 10};
				drv_query(cq, scans[i], p, 2, "iiii");
			}
			ops++;
		}
		c1 = cpu_us();
	} else {
		die("bad arguments for mode %s", mode);
	}
	printf("ops %lld cpu_us %.0f\n", (long long)ops, c1 - c0);
	return 0;
}
