package kvmodel

import (
	"math"
	"testing"

	"github.com/anishathalye/porcupine"
)

// op is an operation of one command between call and ret; unknown ones are
// recorded as the workload records them, returning at infinity.
func op(client int, call, ret int64, command Command, reply Reply) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{[]Command{command}},
		Call: call, Output: Output{Replies: []Reply{reply}}, Return: ret}
}

func unknown(client int, call int64, command Command) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{[]Command{command}},
		Call: call, Output: Output{Unknown: true}, Return: math.MaxInt64}
}

func check(t *testing.T, name string, want bool, history ...porcupine.Operation) {
	t.Helper()
	if got := porcupine.CheckOperations(Model, history); got != want {
		t.Errorf("%s: linearizable = %v, want %v", name, got, want)
	}
}

func TestSequentialCommands(t *testing.T) {
	check(t, "SET, INCR, GET, DEL, GET, INCR of a missing key", true,
		op(0, 0, 1, Set{"k", "41"}, Status("OK")),
		op(0, 2, 3, Incr{"k"}, Integer(42)),
		op(0, 4, 5, Get{"k"}, Bulk("42")),
		op(0, 6, 7, Del{"k"}, Integer(1)),
		op(0, 8, 9, Del{"k"}, Integer(0)),
		op(0, 10, 11, Get{"k"}, Nil()),
		op(0, 12, 13, Incr{"k"}, Integer(1)))
	check(t, "INCR of a missing key answering 2", false,
		op(0, 0, 1, Incr{"k"}, Integer(2)))
	check(t, "INCR of a value that is not an integer", true,
		op(0, 0, 1, Set{"k", "+1"}, Status("OK")),
		op(0, 2, 3, Incr{"k"}, Error(notAnInteger)),
		op(0, 4, 5, Get{"k"}, Bulk("+1")))
	check(t, "INCR of the largest integer", true,
		op(0, 0, 1, Set{"k", "9223372036854775807"}, Status("OK")),
		op(0, 2, 3, Incr{"k"}, Error(overflow)))
}

// The shape of the control: an acknowledged write that a later read does
// not see.
func TestLostWriteIsNotLinearizable(t *testing.T) {
	check(t, "a read after an acknowledged SET sees nothing", false,
		op(0, 0, 1, Set{"k", "v"}, Status("OK")),
		op(1, 2, 3, Get{"k"}, Nil()))
	check(t, "an INCR after an acknowledged INCR starts again", false,
		op(0, 0, 1, Incr{"k"}, Integer(1)),
		op(1, 2, 3, Incr{"k"}, Integer(1)))
}

func TestConcurrentOperationsMayTakeEitherOrder(t *testing.T) {
	for _, seen := range []Reply{Nil(), Bulk("v")} {
		check(t, "a GET during a SET sees "+seen.String(), true,
			op(0, 0, 10, Set{"k", "v"}, Status("OK")),
			op(1, 2, 3, Get{"k"}, seen))
	}
	check(t, "two GETs during a SET see the new value, then the old", false,
		op(0, 0, 10, Set{"k", "v"}, Status("OK")),
		op(1, 2, 3, Get{"k"}, Bulk("v")),
		op(1, 4, 5, Get{"k"}, Nil()))
}

func TestUnknownOutcomeMayOrMayNotHaveHappened(t *testing.T) {
	base := []porcupine.Operation{
		op(0, 0, 1, Set{"k", "1"}, Status("OK")),
		unknown(0, 2, Incr{"k"}),
	}
	for _, c := range []struct {
		seen Reply
		want bool
	}{{Bulk("1"), true}, {Bulk("2"), true}, {Bulk("3"), false}} {
		history := append(append([]porcupine.Operation{}, base...),
			op(1, 5, 6, Get{"k"}, c.seen))
		check(t, "after an unknown INCR, GET answers "+c.seen.String(), c.want, history...)
	}
	// Once it was seen to have happened, it cannot un-happen.
	check(t, "an unknown INCR seen, then not seen", false,
		append(base, op(1, 5, 6, Get{"k"}, Bulk("2")), op(1, 7, 8, Get{"k"}, Bulk("1")))...)
}

// tx is a MULTI ... EXEC operation between call and ret, with EXEC's replies.
func tx(client int, call, ret int64, commands []Command, replies ...Reply) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{commands},
		Call: call, Output: Output{Replies: replies}, Return: ret}
}

func TestTransactionsAreAtomic(t *testing.T) {
	setBoth := []Command{Set{"a", "1"}, Set{"b", "1"}}
	getBoth := []Command{Get{"a"}, Get{"b"}}
	ok := []Reply{Status("OK"), Status("OK")}
	for _, c := range []struct {
		a, b Reply
		want bool
	}{{Nil(), Nil(), true}, {Bulk("1"), Bulk("1"), true}, {Bulk("1"), Nil(), false}, {Nil(), Bulk("1"), false}} {
		check(t, "a read of a and b during a transaction that sets both sees "+c.a.String()+", "+c.b.String(), c.want,
			tx(0, 0, 10, setBoth, ok...),
			tx(1, 2, 3, getBoth, c.a, c.b))
	}
	check(t, "GET after INCR in one transaction sees the INCR", true,
		tx(0, 0, 1, []Command{Incr{"k"}, Get{"k"}}, Integer(1), Bulk("1")))
	check(t, "another client's INCR between a transaction's INCR and GET", false,
		op(1, 0, 10, Incr{"k"}, Integer(1)),
		tx(0, 2, 3, []Command{Incr{"k"}, Get{"k"}}, Integer(1), Bulk("2")))
	// The control's shape: an acknowledged transaction lost.
	check(t, "a transaction acknowledged, then not seen", false,
		tx(0, 0, 1, setBoth, ok...),
		op(1, 2, 3, Get{"b"}, Nil()))
}

func TestPartitionsByKeysAndJoinsMultiKeyOperations(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 1, Set{"a", "1"}, Status("OK")),
		op(0, 2, 3, Set{"b", "1"}, Status("OK")),
		op(0, 4, 5, Set{"c", "1"}, Status("OK")),
	}
	if parts := PartitionByKeys(history); len(parts) != 3 {
		t.Fatalf("3 keys: %d parts, want 3", len(parts))
	}
	twoKeys := porcupine.Operation{Input: Input{[]Command{Get{"a"}, Get{"b"}}},
		Output: Output{Replies: []Reply{Bulk("1"), Bulk("1")}}, Call: 6, Return: 7}
	parts := PartitionByKeys(append(history, twoKeys))
	if len(parts) != 2 || len(parts[0]) != 3 || len(parts[1]) != 1 {
		t.Fatalf("an operation on a and b: parts of %v, want a and b together, c alone", sizes(parts))
	}
}

// A state is never changed in place: Porcupine keeps the states it left.
func TestStatesAreValues(t *testing.T) {
	empty := State{}
	one := empty.With("b", "1")
	two := one.With("a", "2")
	three := two.With("c", "3").Without("b")
	if _, ok := empty.Lookup("b"); ok {
		t.Error("With changed the state it was called on")
	}
	if v, _ := two.Lookup("b"); v != "1" || !one.Equal(State{[]entry{{"b", "1"}}}) {
		t.Error("Without or With changed an earlier state")
	}
	if three.String() != `{"a": "2", "c": "3"}` {
		t.Errorf("state %s, want a and c", three)
	}
	if !two.Equal(one.With("a", "2")) || two.Hash() != one.With("a", "2").Hash() {
		t.Error("equal states differ")
	}
}

func sizes(parts [][]porcupine.Operation) []int {
	var n []int
	for _, p := range parts {
		n = append(n, len(p))
	}
	return n
}
