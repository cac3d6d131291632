package checks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// ReadHistory streams a history file (one JSON Op per line) to fn, in file
// order, without holding the history in memory. A truncated last line (a run
// killed while writing) is reported, not silently dropped.
func ReadHistory(r io.Reader, fn func(*Op) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var op Op
		if err := json.Unmarshal(b, &op); err != nil {
			return fmt.Errorf("history line %d: %w", line, err)
		}
		if err := fn(&op); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Run feeds ops to fresh checkers and returns their results in order.
func Run(ops []Op, cs ...Checker) []Result {
	for i := range ops {
		for _, c := range cs {
			c.Observe(&ops[i])
		}
	}
	out := make([]Result, len(cs))
	for i, c := range cs {
		out[i] = c.Finish()
	}
	return out
}
