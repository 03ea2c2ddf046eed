package workload

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"plush/tests/redis_clients/internal/kvmodel"
)

// execute sends an operation and returns its replies, or the error that
// kept the client from learning them: one command on its own, or several
// as a MULTI ... EXEC transaction (a go-redis TxPipeline), whose replies
// are those EXEC answered.
func execute(ctx context.Context, rdb *redis.Client, input kvmodel.Input) ([]kvmodel.Reply, error) {
	var client redis.Cmdable = rdb
	var tx redis.Pipeliner
	if len(input.Commands) > 1 {
		tx = rdb.TxPipeline()
		client = tx
	}
	cmds := make([]redis.Cmder, len(input.Commands))
	for i, command := range input.Commands {
		cmds[i] = send(ctx, client, command)
	}
	if tx != nil {
		// Each command holds its own reply or error, read below.
		_, _ = tx.Exec(ctx)
	}
	replies := make([]kvmodel.Reply, len(cmds))
	for i, cmd := range cmds {
		reply, err := replyOf(cmd)
		if err != nil {
			return nil, err
		}
		replies[i] = reply
	}
	return replies, nil
}

// send issues one modelled command through go-redis. On a client it runs at
// once; on a pipeline (a MULTI ... EXEC one included) it is queued, and its
// reply read once the pipeline has run.
func send(ctx context.Context, c redis.Cmdable, command kvmodel.Command) redis.Cmder {
	switch cmd := command.(type) {
	case kvmodel.Get:
		return c.Get(ctx, cmd.Key)
	case kvmodel.Set:
		return c.Set(ctx, cmd.Key, cmd.Value, 0)
	case kvmodel.Incr:
		return c.Incr(ctx, cmd.Key)
	case kvmodel.Del:
		return c.Del(ctx, cmd.Key)
	}
	panic(fmt.Sprintf("workload: no go-redis call for %T", command))
}

// replyOf is the reply go-redis received for a command, or the error that
// kept it from receiving one (the connection failed or timed out). An error
// reply of the server is a reply.
func replyOf(cmd redis.Cmder) (kvmodel.Reply, error) {
	err := cmd.Err()
	if err == redis.Nil {
		return kvmodel.Nil(), nil
	}
	var serverError redis.Error
	if errors.As(err, &serverError) {
		return kvmodel.Error(serverError.Error()), nil
	}
	if err != nil {
		return kvmodel.Reply{}, err
	}
	switch c := cmd.(type) {
	case *redis.StringCmd:
		return kvmodel.Bulk(c.Val()), nil
	case *redis.StatusCmd:
		return kvmodel.Status(c.Val()), nil
	case *redis.IntCmd:
		return kvmodel.Integer(c.Val()), nil
	}
	panic(fmt.Sprintf("workload: no reply conversion for %T", cmd))
}
