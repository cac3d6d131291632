package checks

import (
	"strings"
	"testing"
)

// parseCounter and shortValue agree with ParseCounterValue on every input.
func TestParseCounterAgrees(t *testing.T) {
	long := strings.Repeat(".", 60)
	for _, s := range []string{
		"", "7", "7 ", " 7 a1-2", "7 a1-2", "7\ta1-2 " + long, "\t 7  a1-2\n" + long, "x a1-2 " + long,
		"99999999999999999999 t " + long, "-3 neg " + long, "7 a1-2" + long, "7 \u00a0a1 " + long,
		"7 a\u00e9 " + long, "\u2003 7 a1-2 " + long, CounterValue{N: 12, Tag: "a3-17"}.Format(200),
	} {
		want, err := ParseCounterValue(s)
		got, ok := ParseCounter(s)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("parseCounter(%q) = %v, %v; ParseCounterValue = %v, %v", s, got, ok, want, err)
		}
		short := ShortValue(s)
		if len(short) > len(s) {
			t.Errorf("shortValue(%q) grew to %q", s, short)
		}
		sv, serr := ParseCounterValue(short)
		if (serr == nil) != (err == nil) || err == nil && sv != want {
			t.Errorf("shortValue(%q) = %q parses to %v, %v; want %v, %v", s, short, sv, serr, want, err)
		}
	}
}

func FuzzParseCounter(f *testing.F) {
	f.Add("7 a1-2 ....")
	f.Add(" \t7 x\u00a0y ...")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := ParseCounterValue(s)
		got, ok := ParseCounter(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("parseCounter(%q) = %v, %v; ParseCounterValue = %v, %v", s, got, ok, want, err)
		}
		sv, serr := ParseCounterValue(ShortValue(s))
		if (serr == nil) != (err == nil) || err == nil && sv != want {
			t.Fatalf("shortValue(%q) = %q changes the value", s, ShortValue(s))
		}
	})
}
