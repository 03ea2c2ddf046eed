// Package workload runs concurrent go-redis clients against plush-server,
// each doing random GET, SET, INCR and DEL on a few shared keys, alone or
// two in a MULTI ... EXEC transaction, and records what they did as a
// Porcupine history.
package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"plush/tests/redis_clients/internal/kvmodel"
)

// Config is what the clients do.
type Config struct {
	Addr    string
	Clients int
	Keys    int // few, so that clients' operations conflict
	Seed    uint64
}

// Counts sum up how the clients' operations ended.
type Counts struct {
	Answered int // the client got the replies
	Unknown  int // sent, no reply: recorded as returning at infinity
	LeftOut  int // never sent (no server to connect to), or a read without a reply
}

// History is the operations the clients recorded, with timestamps in
// nanoseconds since Run started.
type History struct {
	start  time.Time
	mu     sync.Mutex
	ops    []porcupine.Operation
	counts Counts
}

// Since is the time of t in the history's timestamps.
func (h *History) Since(t time.Time) int64 { return t.Sub(h.start).Nanoseconds() }

// Operations and Counts are to be read once Run has returned.
func (h *History) Operations() []porcupine.Operation { return h.ops }
func (h *History) Counts() Counts                    { return h.counts }

// Run starts the clients and returns the history they record until ctx is
// cancelled; wait returns once every client has stopped.
func Run(ctx context.Context, cfg Config) (history *History, wait func()) {
	// go-redis logs each failed dial, which here are expected: the server
	// is being killed.
	logging.Disable()
	h := &History{start: time.Now()}
	var wg sync.WaitGroup
	for id := 0; id < cfg.Clients; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.runClient(ctx, cfg, id)
		}()
	}
	return h, wg.Wait
}

func (h *History) runClient(ctx context.Context, cfg Config, id int) {
	rdb := redis.NewClient(&redis.Options{
		Addr:     cfg.Addr,
		PoolSize: 1,
		// A retried INCR could be applied twice: every request is sent once,
		// and one that fails is recorded as such.
		MaxRetries: -1,
		// Dialling again is safe (nothing was sent) and covers a restart:
		// once a dial has failed all its tries, go-redis answers the same
		// error for a second before it tries again.
		DialerRetries:      50,
		DialerRetryTimeout: 20 * time.Millisecond,
		DialTimeout:        time.Second,
		ReadTimeout:        2 * time.Second,
		WriteTimeout:       2 * time.Second,
	})
	defer rdb.Close()
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(id)))
	for seq := 0; ctx.Err() == nil; seq++ {
		input := randomOperation(rng, cfg.Keys, id, seq)
		call := time.Now()
		replies, err := execute(context.Background(), rdb, input)
		returned := time.Now()
		op := porcupine.Operation{ClientId: id, Input: input, Call: h.Since(call)}
		switch {
		case err == nil:
			op.Output, op.Return = kvmodel.Output{Replies: replies}, h.Since(returned)
			h.record(&op)
			continue
		case neverSent(err) || isRead(input):
			h.record(nil)
		default:
			op.Output, op.Return = kvmodel.Output{Unknown: true}, math.MaxInt64
			h.record(&op)
		}
		time.Sleep(10 * time.Millisecond) // while the server restarts
	}
}

// record adds op to the history and counts it; a nil op counts as left out.
func (h *History) record(op *porcupine.Operation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case op == nil:
		h.counts.LeftOut++
		return
	case op.Output.(kvmodel.Output).Unknown:
		h.counts.Unknown++
	default:
		h.counts.Answered++
	}
	h.ops = append(h.ops, *op)
}

// neverSent tells a request that never left the client: it found no server
// to connect to, so it cannot have taken effect.
func neverSent(err error) bool {
	var opError *net.OpError
	return errors.As(err, &opError) && opError.Op == "dial"
}

// isRead tells an operation that changes nothing: without its reply it
// tells nothing either, and leaving it out of the history loses nothing.
func isRead(input kvmodel.Input) bool {
	for _, command := range input.Commands {
		if _, ok := command.(kvmodel.Get); !ok {
			return false
		}
	}
	return true
}

// randomOperation picks an operation: one command on one of the keys, or
// a MULTI ... EXEC of two commands on a key and its partner (keys pair up,
// 0 with 1, 2 with 3, ...: a transaction joins two keys' partitions of the
// history, not all of them, which keeps the check fast). SET writes a
// value no other SET writes, so that a read tells which write it saw; a
// transaction's two SETs write the same one.
func randomOperation(rng *rand.Rand, keys, client, seq int) kvmodel.Input {
	first := rng.IntN(keys)
	key := fmt.Sprintf("lin:%d", first)
	value := fmt.Sprintf("%d%09d", client+1, seq)
	if r := rng.IntN(100); r >= 12 {
		return kvmodel.Input{Commands: []kvmodel.Command{randomCommand(r, key, value)}}
	}
	partner := first ^ 1
	if partner >= keys {
		partner = first
	}
	other := fmt.Sprintf("lin:%d", partner)
	var commands []kvmodel.Command
	switch rng.IntN(4) {
	case 0: // two writes that no one may see apart
		commands = []kvmodel.Command{kvmodel.Set{Key: key, Value: value}, kvmodel.Set{Key: other, Value: value}}
	case 1: // a read of two keys at one moment
		commands = []kvmodel.Command{kvmodel.Get{Key: key}, kvmodel.Get{Key: other}}
	case 2: // a write and what it left
		commands = []kvmodel.Command{kvmodel.Incr{Key: key}, kvmodel.Get{Key: key}}
	default:
		commands = []kvmodel.Command{kvmodel.Incr{Key: key}, kvmodel.Del{Key: other}}
	}
	return kvmodel.Input{Commands: commands}
}

// randomCommand is the command that r (in [12, 100)) picks.
func randomCommand(r int, key, value string) kvmodel.Command {
	switch {
	case r < 40:
		return kvmodel.Get{Key: key}
	case r < 62:
		return kvmodel.Set{Key: key, Value: value}
	case r < 90:
		return kvmodel.Incr{Key: key}
	default:
		return kvmodel.Del{Key: key}
	}
}
