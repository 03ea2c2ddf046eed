// Package kvmodel is the sequential specification that plush-server's
// recorded histories are checked against with Porcupine: a map from keys to
// string values, changed by operations that each apply a list of commands
// atomically.
package kvmodel

import (
	"fmt"
	"strconv"
)

// ReplyKind is the RESP type of a reply, as far as the commands modelled
// here can give it.
type ReplyKind uint8

const (
	NilReply     ReplyKind = iota // a GET of a missing key
	StatusReply                   // SET's +OK; Text holds it
	BulkReply                     // a value; Text holds it
	IntegerReply                  // INCR's and DEL's; Int holds it
	ErrorReply                    // an error reply; Text holds its message
)

// Reply is one command's reply. It is comparable with ==, which is how the
// model matches what the server answered against what it should have.
type Reply struct {
	Kind ReplyKind
	Text string
	Int  int64
}

func Nil() Reply                 { return Reply{Kind: NilReply} }
func Status(text string) Reply   { return Reply{Kind: StatusReply, Text: text} }
func Bulk(value string) Reply    { return Reply{Kind: BulkReply, Text: value} }
func Integer(n int64) Reply      { return Reply{Kind: IntegerReply, Int: n} }
func Error(message string) Reply { return Reply{Kind: ErrorReply, Text: message} }

func (r Reply) String() string {
	switch r.Kind {
	case NilReply:
		return "nil"
	case StatusReply:
		return r.Text
	case BulkReply:
		return strconv.Quote(r.Text)
	case IntegerReply:
		return fmt.Sprintf("(integer) %d", r.Int)
	default:
		return "(error) " + r.Text
	}
}
