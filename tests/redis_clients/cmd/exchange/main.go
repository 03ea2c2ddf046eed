// Command exchange runs a short scripted exchange with plush-server through
// go-redis, a client written elsewhere, once over RESP2 and once over RESP3
// (go-redis's default), each on a new pool, and fails on any reply that is
// not exactly the one expected.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"plush/tests/redis_clients/internal/server"
)

func main() {
	binary := flag.String("server", "", "the plush-server binary")
	dir := flag.String("dir", "", "a directory for the pools")
	flag.Parse()
	if *binary == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: exchange --server PLUSH_SERVER --dir DIR")
		os.Exit(2)
	}
	checks := 0
	for _, protocol := range []int{2, 3} {
		n, err := exchangeOnNewPool(*binary, filepath.Join(*dir, fmt.Sprintf("exchange-resp%d.pool", protocol)), protocol)
		if err != nil {
			fmt.Fprintf(os.Stderr, "[exchange] RESP%d: FAIL: %v\n", protocol, err)
			os.Exit(1)
		}
		checks += n
	}
	fmt.Printf("[exchange] go-redis %s, RESP2 and RESP3: %d replies as expected\n", redis.Version(), checks)
}

// exchangeOnNewPool starts a server on a new pool, runs the script and
// stops the server, which must close the pool cleanly.
func exchangeOnNewPool(binary, pool string, protocol int) (int, error) {
	proc, err := server.Start(server.Options{Binary: binary, Pool: pool, Create: true})
	if err != nil {
		return 0, err
	}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", proc.Port), Protocol: protocol})
	s := &script{ctx: context.Background()}
	s.run(rdb)
	rdb.Close()
	if err := proc.Stop(); err != nil {
		return 0, err
	}
	if len(s.failures) > 0 {
		return 0, fmt.Errorf("%d of %d replies differ:\n  %s", len(s.failures), s.checks,
			strings.Join(s.failures, "\n  "))
	}
	return s.checks, nil
}

type script struct {
	ctx      context.Context
	checks   int
	failures []string
}

func (s *script) fail(cmd redis.Cmder, format string, args ...interface{}) {
	words := make([]string, len(cmd.Args()))
	for i, arg := range cmd.Args() {
		words[i] = fmt.Sprint(arg)
		if text, ok := arg.(string); ok {
			words[i] = strconv.Quote(text)
		}
	}
	s.failures = append(s.failures, strings.Join(words, " ")+": "+fmt.Sprintf(format, args...))
}

// result is what go-redis's typed commands (StringCmd, IntCmd, ...) have.
type result[T any] interface {
	redis.Cmder
	Result() (T, error)
}

// expect checks that cmd was answered want.
func expect[T any](s *script, cmd result[T], want T) {
	s.checks++
	got, err := cmd.Result()
	if err != nil {
		s.fail(cmd, "error %v, want %#v", err, want)
	} else if !reflect.DeepEqual(got, want) {
		s.fail(cmd, "%#v, want %#v", got, want)
	}
}

// expectNil checks that cmd was answered a null (a missing key's GET).
func expectNil(s *script, cmd redis.Cmder) {
	s.checks++
	if err := cmd.Err(); err != redis.Nil {
		s.fail(cmd, "error %v, want a null reply", err)
	}
}

// expectError checks that cmd was answered the error message want.
func expectError(s *script, cmd redis.Cmder, want string) {
	s.checks++
	if err := cmd.Err(); err == nil || err.Error() != want {
		s.fail(cmd, "error %v, want %q", err, want)
	}
}

// allBytes is a value of every byte, NUL, CR and LF included.
func allBytes() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

func (s *script) run(rdb *redis.Client) {
	ctx := s.ctx
	expect(s, rdb.Ping(ctx), "PONG")
	expect(s, rdb.DBSize(ctx), 0)

	// Values are binary-safe, and an empty value is a value.
	expect(s, rdb.Set(ctx, "bin", allBytes(), 0), "OK")
	expect(s, rdb.Get(ctx, "bin"), allBytes())
	expect(s, rdb.StrLen(ctx, "bin"), 256)
	expect(s, rdb.Set(ctx, "empty", "", 0), "OK")
	expect(s, rdb.Get(ctx, "empty"), "")
	expect(s, rdb.StrLen(ctx, "empty"), 0)
	expect(s, rdb.Exists(ctx, "empty"), 1)
	expectNil(s, rdb.Get(ctx, "missing"))
	expect(s, rdb.StrLen(ctx, "missing"), 0)

	// SETNX, and SET ... NX (go-redis's SetNX).
	expect[interface{}](s, rdb.Do(ctx, "SETNX", "nx", "first"), int64(1))
	expect(s, rdb.SetNX(ctx, "nx", "second", 0), false)
	expect(s, rdb.SetNX(ctx, "nx2", "only", 0), true)
	expect(s, rdb.Get(ctx, "nx"), "first")

	// The INCR family, and its errors in Redis's words.
	expect(s, rdb.Incr(ctx, "counter"), 1)
	expect(s, rdb.IncrBy(ctx, "counter", 41), 42)
	expect(s, rdb.Decr(ctx, "counter"), 41)
	expect(s, rdb.IncrBy(ctx, "counter", -50), -9)
	expect(s, rdb.Get(ctx, "counter"), "-9")
	expect(s, rdb.Set(ctx, "word", "hello", 0), "OK")
	expectError(s, rdb.Incr(ctx, "word"), "ERR value is not an integer or out of range")
	expect(s, rdb.Get(ctx, "word"), "hello")
	expect(s, rdb.Set(ctx, "big", "9223372036854775807", 0), "OK")
	expectError(s, rdb.Incr(ctx, "big"), "ERR increment or decrement would overflow")

	expect(s, rdb.MSet(ctx, "a", "1", "b", "2", "c", "3"), "OK")
	expect(s, rdb.MGet(ctx, "a", "b", "missing", "c"), []interface{}{"1", "2", nil, "3"})

	expect(s, rdb.Append(ctx, "log", "abc"), 3)
	expect(s, rdb.Append(ctx, "log", "de"), 5)
	expect(s, rdb.Get(ctx, "log"), "abcde")

	expect(s, rdb.Del(ctx, "a", "missing"), 1)
	expect(s, rdb.Exists(ctx, "a", "b", "c"), 2)
	expect(s, rdb.Exists(ctx, "b", "b"), 2) // a key named twice counts twice

	// A pipeline without MULTI: the replies come back in order, and an
	// error is the reply of its own command only.
	var set *redis.StatusCmd
	var incr, failed *redis.IntCmd
	var get, missing *redis.StringCmd
	rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		set = p.Set(ctx, "p1", "x", 0)
		incr = p.Incr(ctx, "p2")
		get = p.Get(ctx, "p1")
		failed = p.Incr(ctx, "word")
		missing = p.Get(ctx, "missing")
		return nil
	})
	expect(s, set, "OK")
	expect(s, incr, 1)
	expect(s, get, "x")
	expectError(s, failed, "ERR value is not an integer or out of range")
	expectNil(s, missing)

	keys := []string{"b", "big", "bin", "c", "counter", "empty", "log", "nx", "nx2", "p1", "p2", "word"}
	expect(s, rdb.DBSize(ctx), int64(len(keys)))
	expect(s, scanAll(ctx, rdb, "*"), keys)
	expect(s, scanAll(ctx, rdb, "p?"), []string{"p1", "p2"})
}

// scanAll iterates with SCAN from cursor 0 until the server answers 0, a few
// keys at a time, and returns the keys sorted, as a command whose Result
// the checks read.
func scanAll(ctx context.Context, rdb *redis.Client, match string) *redis.StringSliceCmd {
	all := redis.NewStringSliceCmd(ctx, "scan", "0", "match", match, "count", 3)
	var cursor uint64
	var found []string
	for {
		keys, next, err := rdb.Scan(ctx, cursor, match, 3).Result()
		if err != nil {
			all.SetErr(err)
			return all
		}
		found = append(found, keys...)
		if cursor = next; cursor == 0 {
			break
		}
	}
	sort.Strings(found)
	all.SetVal(found)
	return all
}
