package kvmodel

import "github.com/anishathalye/porcupine"

// PartitionByKeys splits a history into independent parts: operations that
// share a key, directly or through a chain of operations touching several
// keys, fall in one part. With single-key operations that is one part per
// key, which Porcupine checks much faster than the whole history
// (P-compositionality: a history is linearizable if each part is).
func PartitionByKeys(history []porcupine.Operation) [][]porcupine.Operation {
	parent := map[string]string{}
	var root func(key string) string
	root = func(key string) string {
		p, ok := parent[key]
		if !ok || p == key {
			parent[key] = key
			return key
		}
		r := root(p)
		parent[key] = r
		return r
	}
	for _, op := range history {
		keys := keysOf(op)
		for _, key := range keys[1:] {
			parent[root(key)] = root(keys[0])
		}
	}
	index := map[string]int{}
	var parts [][]porcupine.Operation
	for _, op := range history {
		r := root(keysOf(op)[0])
		i, ok := index[r]
		if !ok {
			i = len(parts)
			index[r] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

func keysOf(op porcupine.Operation) []string {
	var keys []string
	for _, command := range op.Input.(Input).Commands {
		keys = append(keys, command.Keys()...)
	}
	return keys
}
