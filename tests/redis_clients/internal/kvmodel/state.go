package kvmodel

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
)

// State is the contents of the keys of one partition of a history: its
// entries sorted by key, missing keys absent. It is never changed in place
// (Porcupine keeps earlier states while it searches): With and Without
// return new states.
type State struct {
	entries []entry
}

type entry struct {
	key, value string
}

func (s State) find(key string) (int, bool) {
	i := sort.Search(len(s.entries), func(i int) bool { return s.entries[i].key >= key })
	return i, i < len(s.entries) && s.entries[i].key == key
}

// Lookup returns the value of key and whether it exists.
func (s State) Lookup(key string) (string, bool) {
	i, found := s.find(key)
	if !found {
		return "", false
	}
	return s.entries[i].value, true
}

// With returns the state in which key holds value.
func (s State) With(key, value string) State {
	i, found := s.find(key)
	entries := make([]entry, 0, len(s.entries)+1)
	entries = append(entries, s.entries[:i]...)
	entries = append(entries, entry{key, value})
	if found {
		i++
	}
	return State{append(entries, s.entries[i:]...)}
}

// Without returns the state in which key does not exist.
func (s State) Without(key string) State {
	i, found := s.find(key)
	if !found {
		return s
	}
	entries := make([]entry, 0, len(s.entries)-1)
	entries = append(entries, s.entries[:i]...)
	return State{append(entries, s.entries[i+1:]...)}
}

func (s State) Equal(other State) bool {
	if len(s.entries) != len(other.entries) {
		return false
	}
	for i, e := range s.entries {
		if e != other.entries[i] {
			return false
		}
	}
	return true
}

func (s State) Hash() uint64 {
	h := fnv.New64a()
	for _, e := range s.entries {
		// Lengths first, so that no two different states write the same bytes.
		h.Write([]byte(strconv.Itoa(len(e.key)) + ":" + e.key + strconv.Itoa(len(e.value)) + ":" + e.value))
	}
	return h.Sum64()
}

func (s State) String() string {
	parts := make([]string, len(s.entries))
	for i, e := range s.entries {
		parts[i] = strconv.Quote(e.key) + ": " + strconv.Quote(e.value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
