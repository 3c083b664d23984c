package bbolt

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

func open(opts map[string]string) enginetest.Opener {
	return func(tb testing.TB, dir string) model.DB {
		tb.Helper()
		db, err := engine.Open(context.Background(), "bbolt", model.Config{DataDir: dir, Options: opts})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	}
}

func TestSuite(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"sync": "false"}))
}

func TestOptions(t *testing.T) {
	db := open(map[string]string{"no_freelist_sync": "true", "fill_percent": "0.9", "initial_mmap_size": "64MB", "freelist_type": "hashmap"})(t, t.TempDir())
	info := db.Info()
	t.Logf("info: %+v", info)
	if info.Name != "bbolt" || info.Family != model.CoWBTree || info.Version == "" || info.Settings["initial_mmap_size"] != "67108864" {
		t.Fatalf("Info = %+v", info)
	}
	db.Close()
	for _, kv := range [][2]string{
		{"sync", "sometimes"}, {"fill_percent", "2"}, {"initial_mmap_size", "-1"}, {"freelist_type", "tree"}, {"no_freelist_sync", ""},
	} {
		_, err := engine.Open(context.Background(), "bbolt", model.Config{DataDir: t.TempDir(), Options: map[string]string{kv[0]: kv[1]}})
		if err == nil || !strings.Contains(err.Error(), kv[0]) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: error %v; want one line naming the option", kv[0], kv[1], err)
		}
	}
}

func BenchmarkInsert(b *testing.B) {
	enginetest.BenchInsert(b, open(map[string]string{"sync": "false"}), 100, 3)
}

func BenchmarkDeleteOldest(b *testing.B) {
	for _, prefix := range []int{0, 100000} {
		b.Run(fmt.Sprintf("deleted=%d", prefix), func(b *testing.B) {
			enginetest.BenchDeleteOldest(b, open(map[string]string{"sync": "false"}), prefix)
		})
	}
}

// TestBlindInsert: unique_check=false writes without reading the key.
func TestBlindInsert(t *testing.T) {
	enginetest.BlindInsert(t, open(map[string]string{"unique_check": "false"}))
}
