package synthhist

import (
	"bytes"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// TestCutHistoryIsAKilledRuns writes the same mix whole and cut: the whole
// one reads to its end and ends with the final reads; the cut one has no
// final read and ends in half a record, which the reader reports as a
// truncation after delivering every whole record.
func TestCutHistoryIsAKilledRuns(t *testing.T) {
	for _, cut := range []bool{false, true} {
		cfg := Config{Ops: 3000, CounterKeys: 50, LWWKeys: 10, Seed: 3, Cut: cut}
		var buf bytes.Buffer
		st, err := Write(&buf, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var read, finals int64
		err = checks.ReadHistory(&buf, func(op *checks.Op) error {
			read++
			if op.Actor == checks.ActorFinal {
				finals++
			}
			return nil
		})
		if read != st.Records {
			t.Errorf("cut=%v: read %d records, %d written", cut, read, st.Records)
		}
		if cut {
			if !checks.IsTruncated(err) {
				t.Errorf("cut history read with %v, want a truncation", err)
			}
			if finals != 0 {
				t.Errorf("cut history has %d final reads", finals)
			}
			continue
		}
		if err != nil {
			t.Errorf("whole history: %v", err)
		}
		if finals < int64(cfg.CounterKeys+cfg.LWWKeys) {
			t.Errorf("whole history has %d final reads, want at least one per key (%d)", finals, cfg.CounterKeys+cfg.LWWKeys)
		}
	}
}
