package floorbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"

	sqleng "rumbench/internal/engine/sql"
)

// The floor's two outside clients, run as subprocesses beside the Go loops:
//
//   - the C loop (cloop/: libpq or the MariaDB C client), the cheapest
//     client of the step's statements, built by scripts/floor.sh into
//     $FLOOR_CLOOP_DIR (floor_pg, floor_my);
//   - the rumbench binary ($FLOOR_BIN), run as users run it, its client CPU
//     per operation read from its step summary: the figure users see,
//     sampler and bookkeeping included.
//
// Either is left out, with a log line, when its variable is unset.

// cloopEnv returns the C loop's binary and its connection environment
// (passwords go through the environment, never the command line).
func cloopEnv(tg target) (string, []string, error) {
	dir := os.Getenv("FLOOR_CLOOP_DIR")
	if dir == "" {
		return "", nil, nil
	}
	switch tg.engine {
	case "postgres":
		cfg, err := pgx.ParseConfig(tg.dsn)
		if err != nil {
			return "", nil, err
		}
		ssl := "disable"
		if cfg.TLSConfig != nil {
			ssl = "require"
		}
		ci := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=%s", cfg.Host, cfg.Port, cfg.User, dbName, ssl)
		return filepath.Join(dir, "floor_pg"), []string{"FLOOR_CONN=" + ci, "PGPASSWORD=" + cfg.Password}, nil
	case "innodb", "myrocks":
		cfg, err := mysql.ParseDSN(tg.dsn)
		if err != nil {
			return "", nil, err
		}
		env := []string{"FLOOR_MY_USER=" + cfg.User, "FLOOR_MY_PASSWORD=" + cfg.Passwd, "FLOOR_MY_DB=" + dbName}
		if cfg.Net == "unix" {
			env = append(env, "FLOOR_MY_SOCKET="+cfg.Addr)
		} else {
			host, port, err := net.SplitHostPort(cfg.Addr)
			if err != nil {
				return "", nil, err
			}
			env = append(env, "FLOOR_MY_HOST="+host, "FLOOR_MY_PORT="+port)
		}
		return filepath.Join(dir, "floor_my"), env, nil
	}
	return "", nil, fmt.Errorf("no C loop for engine %s", tg.engine)
}

// cloopBin is the engine's C loop binary, "" when it was not built.
func cloopBin(tg target) (string, error) {
	bin, _, err := cloopEnv(tg)
	if err != nil || bin == "" {
		return "", err
	}
	if _, err := os.Stat(bin); err != nil {
		return "", nil
	}
	return bin, nil
}

// runC runs the C loop of one step on the floor's table, whose live keys
// are [lo, next), and returns its client CPU.
func runC(ctx context.Context, tg target, t *model.Table, s settings, step string, lo, next int64) (result, error) {
	bin, env, err := cloopEnv(tg)
	if err != nil || bin == "" {
		return result{}, err
	}
	d := tg.d
	del, _ := d.DeleteOldest(t, 1)
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	var args []string
	switch step {
	case ibench.StepLoad:
		args = []string{"load", d.Insert(t, 100), "100", i64(s.rows), i64(next)}
	case ibench.StepChurnBig:
		args = []string{"churn", d.Insert(t, 50), del, "50", i64(s.churn), i64(next), i64(lo)}
	case ibench.StepQR100, ibench.StepQP100:
		args = []string{"query", strconv.FormatFloat(s.seconds, 'f', -1, 64), d.Insert(t, 50), del, i64(next), i64(lo)}
		if step == ibench.StepQP100 {
			args = append(args, sqleng.GetText(d, t, 10))
		} else {
			args = append(args, "-")
			for i := range t.Indexes {
				args = append(args, sqleng.ScanText(d, t, i, 1, false, true), i64(ibench.LeadingDomain(t, i)))
			}
		}
	default:
		return result{}, fmt.Errorf("no C loop for step %s", step)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return result{}, fmt.Errorf("%s %s: %v: %s", filepath.Base(bin), step, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return result{}, fmt.Errorf("%s %s: %w", filepath.Base(bin), step, err)
	}
	var r result
	if _, err := fmt.Sscanf(string(out), "ops %d cpu_us %f", &r.ops, &r.cpuUs); err != nil {
		return result{}, fmt.Errorf("%s %s: unexpected output %q", filepath.Base(bin), step, out)
	}
	return r, nil
}

// binarySteps are the steps the binary runs to measure one: the query and
// churn steps need a loaded, indexed table, as the in-process step has.
func binarySteps(step string) string {
	switch step[0] {
	case 'q':
		return "l.i0,l.x,maint," + step
	case 'l':
		if step != ibench.StepLoad {
			return "l.i0,l.x," + step
		}
	}
	return step
}

// runBinary runs the rumbench binary for one step in a database of its own
// and returns its client CPU per operation as its step summary has it.
func runBinary(ctx context.Context, tg target, s settings, step string) (float64, error) {
	if os.Getenv("FLOOR_BIN") == "" {
		return 0, nil
	}
	sum, err := runBinaryAt(ctx, tg, s, step, binInterval())
	return sum.perOp, err
}

// binarySummary is what the floor reads from the binary's step summary.
type binarySummary struct {
	perOp     float64 // client_cpu_us_per_op
	samplerUs float64 // sampler_cpu_us: the measuring thread's
	seconds   float64 // the step's measured length
}

// runBinaryAt runs $FLOOR_BIN for one step at --interval interval.
func runBinaryAt(ctx context.Context, tg target, s settings, step, interval string) (binarySummary, error) {
	bin := os.Getenv("FLOOR_BIN")
	out, err := os.MkdirTemp("", "rumbench-floor-bin-")
	if err != nil {
		return binarySummary{}, err
	}
	defer os.RemoveAll(out)
	args := []string{"run", "--engine", tg.engine, "--database", dbName + "_bin", "--clients", "1",
		"--rows", strconv.FormatInt(s.rows, 10), "--churn-rows", strconv.FormatInt(s.churn*5/4, 10),
		"--query-seconds", strconv.FormatFloat(s.seconds, 'f', -1, 64), "--indexes", "3",
		"--steps", binarySteps(step), "--interval", interval, "--engine-opt", "drop_database=true", "--out", out}
	cmd := exec.CommandContext(ctx, bin, args...)
	// The DSN goes through the environment, not the command line.
	cmd.Env = append(os.Environ(), "RUMBENCH_PG_DSN="+tg.dsn, "RUMBENCH_MYSQL_DSN="+tg.dsn)
	if msg, err := cmd.CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(msg)), "\n")
		return binarySummary{}, fmt.Errorf("rumbench binary %s: %v: %s", step, err, lines[len(lines)-1])
	}
	b, err := os.ReadFile(filepath.Join(out, tg.engine, "steps", step+".json"))
	if err != nil {
		return binarySummary{}, err
	}
	var sum struct {
		Seconds float64 `json:"seconds"`
		Metrics struct {
			PerOp   *float64 `json:"client_cpu_us_per_op"`
			Sampler *float64 `json:"sampler_cpu_us"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return binarySummary{}, fmt.Errorf("rumbench binary %s: step summary: %w", step, err)
	}
	if sum.Metrics.PerOp == nil {
		return binarySummary{}, fmt.Errorf("rumbench binary %s: client_cpu_us_per_op is null", step)
	}
	r := binarySummary{perOp: *sum.Metrics.PerOp, seconds: sum.Seconds}
	if sum.Metrics.Sampler != nil {
		r.samplerUs = *sum.Metrics.Sampler
	}
	return r, nil
}

// runCOnTable runs the C loop on the floor's table as runBare runs a Go
// loop: l.i0 on a fresh table, the others from its live key range.
func runCOnTable(ctx context.Context, db model.DB, tg target, t *model.Table, s settings, step string) (result, error) {
	if step == ibench.StepLoad {
		if err := db.CreateTable(ctx, t); err != nil {
			return result{}, err
		}
	}
	lo, next, err := pkRange(ctx, db, t)
	if err != nil {
		return result{}, err
	}
	return runC(ctx, tg, t, s, step, lo, next)
}

func binInterval() string {
	if v := os.Getenv("FLOOR_BIN_INTERVAL"); v != "" {
		return v
	}
	return "1s"
}
