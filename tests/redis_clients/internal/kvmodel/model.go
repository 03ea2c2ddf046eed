package kvmodel

import (
	"strings"

	"github.com/anishathalye/porcupine"
)

// Input is one operation of a history: commands the server applies
// atomically, in order. A plain request is one command; a MULTI ... EXEC
// transaction would be the commands it queued.
type Input struct {
	Commands []Command
}

// Output is what the client learnt: a reply per command, or Unknown when the
// request failed or timed out, so that it may or may not have taken effect.
// Such an operation's return time is recorded as infinity (math.MaxInt64):
// Porcupine may then place it anywhere after its call, or after everything
// else, which is the same as never.
type Output struct {
	Unknown bool
	Replies []Reply
}

// Model is the porcupine.Model of plush-server's keys.
var Model = porcupine.Model{
	Partition: PartitionByKeys,
	Init:      func() interface{} { return State{} },
	Step:      step,
	Equal: func(a, b interface{}) bool {
		return a.(State).Equal(b.(State))
	},
	Hash:              func(s interface{}) uint64 { return s.(State).Hash() },
	DescribeOperation: describeOperation,
	DescribeState:     func(s interface{}) string { return s.(State).String() },
}

// step applies an operation's commands to the state; it is legal if every
// reply the client received is the one the model gives.
func step(state, input, output interface{}) (bool, interface{}) {
	s := state.(State)
	out := output.(Output)
	for i, command := range input.(Input).Commands {
		var want Reply
		want, s = command.Apply(s)
		if !out.Unknown && out.Replies[i] != want {
			return false, state
		}
	}
	return true, s
}

func describeOperation(input, output interface{}) string {
	commands := input.(Input).Commands
	out := output.(Output)
	parts := make([]string, len(commands))
	for i, command := range commands {
		reply := "?"
		if !out.Unknown {
			reply = out.Replies[i].String()
		}
		parts[i] = command.String() + " -> " + reply
	}
	return strings.Join(parts, "; ")
}
