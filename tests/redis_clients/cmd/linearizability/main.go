// Command linearizability checks plush-server under kill -9, in the Jepsen
// manner: concurrent go-redis clients do GET, SET, INCR and DEL on a few
// keys, alone or two in a MULTI ... EXEC transaction, while the server is
// killed at random moments and restarted on the same pool; Porcupine then checks that the recorded history is
// linearizable (kvmodel.Model), and writes its visualization if it is not.
//
// With --control each restart uses a new, empty pool instead, losing
// acknowledged writes as a broken server would: the run then passes only
// if the checker says the history is NOT linearizable.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"plush/tests/redis_clients/internal/kvmodel"
	"plush/tests/redis_clients/internal/server"
	"plush/tests/redis_clients/internal/workload"
)

type config struct {
	serverBinary, cli, dir string
	html                   string
	duration               time.Duration
	clients, keys          int
	rangePool, syncWrites  bool
	control                bool
	seed                   uint64
	checkTimeout           time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.serverBinary, "server", "", "the plush-server binary")
	flag.StringVar(&c.cli, "plush", "", "the plush CLI binary (creates the pools)")
	flag.StringVar(&c.dir, "dir", "", "a directory for the pools (on disk for --sync-writes)")
	flag.StringVar(&c.html, "html", "", "where to write Porcupine's visualization of a history that is not linearizable (default: in --dir)")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "how long the clients run")
	flag.IntVar(&c.clients, "clients", 6, "concurrent clients")
	flag.IntVar(&c.keys, "keys", 6, "keys they share (a transaction takes a key and its partner: 0 and 1, 2 and 3...)")
	flag.BoolVar(&c.rangePool, "range", false, "a range pool (plush create --range) rather than a hash pool")
	flag.BoolVar(&c.syncWrites, "sync-writes", false, "run the server with --sync-writes")
	flag.BoolVar(&c.control, "control", false, "restart on a new empty pool, and require the checker to catch it")
	flag.Uint64Var(&c.seed, "seed", rand.Uint64(), "seed of the clients' choices and the kill times")
	flag.DurationVar(&c.checkTimeout, "check-timeout", 2*time.Minute, "give up checking after this long (a failure)")
	flag.Parse()
	if c.serverBinary == "" || c.cli == "" || c.dir == "" {
		fmt.Fprintln(os.Stderr, "usage: linearizability --server PLUSH_SERVER --plush PLUSH --dir DIR [options]")
		os.Exit(2)
	}
	if c.html == "" {
		c.html = filepath.Join(c.dir, "history.html")
	}
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "[linearizability] %s: FAIL: %v\n", c.name(), err)
		os.Exit(1)
	}
}

func (c config) name() string {
	parts := []string{"hash pool"}
	if c.rangePool {
		parts[0] = "range pool"
	}
	if c.syncWrites {
		parts = append(parts, "--sync-writes")
	}
	if c.control {
		parts = append(parts, "control (restarts on an empty pool)")
	}
	return strings.Join(parts, ", ")
}

func (c config) poolPath(n int) string {
	kind := "hash"
	if c.rangePool {
		kind = "range"
	}
	return filepath.Join(c.dir, fmt.Sprintf("lin-%s-%d.pool", kind, n))
}

func run(c config) error {
	pool := c.poolPath(0)
	if err := server.CreatePool(c.cli, pool, c.rangePool); err != nil {
		return err
	}
	opts := server.Options{Binary: c.serverBinary, Pool: pool, SyncWrites: c.syncWrites}
	proc, err := server.Start(opts)
	if err != nil {
		return err
	}
	opts.Port = proc.Port // the clients reconnect to the same address

	ctx, stop := context.WithCancel(context.Background())
	history, wait := workload.Run(ctx, workload.Config{
		Addr: fmt.Sprintf("127.0.0.1:%d", proc.Port), Clients: c.clients, Keys: c.keys, Seed: c.seed})
	rng := rand.New(rand.NewPCG(c.seed, 0))
	kills, firstRestart := 0, int64(-1)
	for deadline := time.Now().Add(c.duration); time.Now().Before(deadline); {
		time.Sleep(time.Duration(50+rng.IntN(350)) * time.Millisecond)
		if err := proc.Kill(); err != nil {
			stop()
			return err
		}
		kills++
		if c.control {
			opts.Pool = c.poolPath(kills)
			if err := server.CreatePool(c.cli, opts.Pool, c.rangePool); err != nil {
				stop()
				return err
			}
		}
		if proc, err = server.StartRetrying(opts); err != nil {
			stop()
			return fmt.Errorf("restart %d: %v", kills, err)
		}
		if firstRestart < 0 {
			firstRestart = history.Since(time.Now())
		}
	}
	stop()
	wait()
	if err := proc.Stop(); err != nil {
		return err
	}
	return check(c, history, kills, firstRestart)
}

func check(c config, history *workload.History, kills int, firstRestart int64) error {
	ops, counts := history.Operations(), history.Counts()
	afterRestart := 0
	for _, op := range ops {
		if op.Call > firstRestart && !op.Output.(kvmodel.Output).Unknown {
			afterRestart++
		}
	}
	// A run proves something only if the clients worked across kills.
	if kills < 2 || afterRestart == 0 {
		return fmt.Errorf("%d kills, %d operations answered after the first restart: too few to check", kills, afterRestart)
	}
	start := time.Now()
	result := porcupine.CheckOperationsTimeout(kvmodel.Model, ops, c.checkTimeout)
	summary := fmt.Sprintf("%v, seed %d: %d kills, %d operations answered (%d after the first restart), %d unknown, %d left out; %s after checking for %.1f s",
		c.duration, c.seed, kills, counts.Answered, afterRestart, counts.Unknown, counts.LeftOut,
		verdicts[result], time.Since(start).Seconds())
	switch {
	case result == porcupine.Unknown:
		return fmt.Errorf("%s (--check-timeout %v)", summary, c.checkTimeout)
	case result == porcupine.Ok && c.control:
		return fmt.Errorf("%s: the control was NOT caught, although its restarts lost acknowledged writes", summary)
	case result == porcupine.Illegal:
		if err := visualize(c, ops); err != nil {
			return err
		}
		summary += "; visualization: " + c.html
		if !c.control {
			return fmt.Errorf("%s", summary)
		}
		summary += " (as it must be: caught)"
	}
	fmt.Printf("[linearizability] %s: %s\n", c.name(), summary)
	return nil
}

var verdicts = map[porcupine.CheckResult]string{
	porcupine.Ok:      "linearizable",
	porcupine.Illegal: "NOT linearizable",
	porcupine.Unknown: "undecided",
}

// visualize writes Porcupine's HTML view of the history and of its longest
// partial linearizations, to see where it stops being linearizable.
func visualize(c config, ops []porcupine.Operation) error {
	_, info := porcupine.CheckOperationsVerbose(kvmodel.Model, ops, c.checkTimeout)
	return porcupine.VisualizePath(kvmodel.Model, info, c.html)
}
