package kvmodel

import (
	"math"
	"strconv"
)

// Command is one Redis command as the model sees it: the keys it touches
// and what it answers and leaves in a given state.
type Command interface {
	Keys() []string
	Apply(s State) (Reply, State)
	String() string
}

// Redis's words for INCR's errors, which plush-server gives too
// (docs/api.md, the INCR row of the command table).
const (
	notAnInteger = "ERR value is not an integer or out of range"
	overflow     = "ERR increment or decrement would overflow"
)

type Get struct{ Key string }
type Set struct{ Key, Value string }
type Incr struct{ Key string }
type Del struct{ Key string }

func (c Get) Keys() []string  { return []string{c.Key} }
func (c Set) Keys() []string  { return []string{c.Key} }
func (c Incr) Keys() []string { return []string{c.Key} }
func (c Del) Keys() []string  { return []string{c.Key} }

func (c Get) String() string  { return "GET " + strconv.Quote(c.Key) }
func (c Set) String() string  { return "SET " + strconv.Quote(c.Key) + " " + strconv.Quote(c.Value) }
func (c Incr) String() string { return "INCR " + strconv.Quote(c.Key) }
func (c Del) String() string  { return "DEL " + strconv.Quote(c.Key) }

func (c Get) Apply(s State) (Reply, State) {
	if value, ok := s.Lookup(c.Key); ok {
		return Bulk(value), s
	}
	return Nil(), s
}

func (c Set) Apply(s State) (Reply, State) {
	return Status("OK"), s.With(c.Key, c.Value)
}

// Apply counts a missing key as 0; a value must be an integer in Redis's
// strict spelling, which is exactly the one strconv.FormatInt writes.
func (c Incr) Apply(s State) (Reply, State) {
	var n int64
	if value, ok := s.Lookup(c.Key); ok {
		parsed, err := strconv.ParseInt(value, 10, 64)
		if err != nil || strconv.FormatInt(parsed, 10) != value {
			return Error(notAnInteger), s
		}
		n = parsed
	}
	if n == math.MaxInt64 {
		return Error(overflow), s
	}
	n++
	return Integer(n), s.With(c.Key, strconv.FormatInt(n, 10))
}

func (c Del) Apply(s State) (Reply, State) {
	if _, ok := s.Lookup(c.Key); ok {
		return Integer(1), s.Without(c.Key)
	}
	return Integer(0), s
}
