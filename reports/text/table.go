package text

import (
	"regexp"
	"slices"
	"strings"

	"github.com/stormcheck/stormcheck/reports"
)

// maxFirstColumn bounds the first column of a text table: a longer name
// (a long op or blob name) goes on a line of its own, the row's figures
// beneath it.
const maxFirstColumn = 24

// textTable is a table for the terminal: the first column left-aligned,
// the others right-aligned, two spaces between columns. A header cell may
// hold a newline to use two header lines ("peak\nof target"). A table
// wider than the report is split into column groups, each repeating the
// first column (as pandas prints a wide frame).
type textTable struct {
	indent string
	head   []string
	rows   [][]string
	// left lists the other columns that hold words, left-aligned.
	left []int
}

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

// write lays the table out within TextWidth.
func (t *textTable) write(w *reports.ErrWriter) {
	n := len(t.head)
	headLines := 1
	for _, h := range t.head {
		headLines = max(headLines, strings.Count(h, "\n")+1)
	}
	widths := make([]int, n)
	for i, h := range t.head {
		for _, part := range strings.Split(h, "\n") {
			widths[i] = max(widths[i], reports.Width(part))
		}
	}
	for _, r := range t.rows {
		for i := 0; i < n && i < len(r); i++ {
			if i == 0 && reports.Width(r[0]) > maxFirstColumn {
				continue
			}
			widths[i] = max(widths[i], reports.Width(r[i]))
		}
	}
	// Pack the other columns into groups that fit beside the first.
	var groups [][]int
	used := reports.Width(t.indent) + widths[0]
	var cur []int
	for i := 1; i < n; i++ {
		if len(cur) > 0 && used+2+widths[i] > reports.TextWidth {
			groups = append(groups, cur)
			cur, used = nil, reports.Width(t.indent)+widths[0]
		}
		cur = append(cur, i)
		used += 2 + widths[i]
	}
	if len(cur) > 0 || n == 1 {
		groups = append(groups, cur)
	}
	for g, cols := range groups {
		if g > 0 {
			w.Printf("\n")
		}
		for l := 0; l < headLines; l++ {
			cells := []string{headerLine(t.head[0], l, headLines)}
			for _, c := range cols {
				cells = append(cells, headerLine(t.head[c], l, headLines))
			}
			t.line(w, widths, cols, cells)
		}
		for _, r := range t.rows {
			cells := []string{r[0]}
			for _, c := range cols {
				cell := ""
				if c < len(r) {
					cell = r[c]
				}
				cells = append(cells, cell)
			}
			if reports.Width(r[0]) > maxFirstColumn {
				w.Printf("%s%s\n", t.indent, r[0])
				cells[0] = ""
			}
			t.line(w, widths, cols, cells)
		}
	}
}

// headerLine is line l of a header cell of lines lines, bottom-aligned.
func headerLine(h string, l, lines int) string {
	parts := strings.Split(h, "\n")
	i := l - (lines - len(parts))
	if i < 0 {
		return ""
	}
	return parts[i]
}

func (t *textTable) line(w *reports.ErrWriter, widths, cols []int, cells []string) {
	var b strings.Builder
	b.WriteString(t.indent)
	b.WriteString(cells[0])
	b.WriteString(strings.Repeat(" ", max(widths[0]-reports.Width(cells[0]), 0)))
	for j, c := range cols {
		b.WriteString("  ")
		pad := strings.Repeat(" ", max(widths[c]-reports.Width(cells[j+1]), 0))
		if slices.Contains(t.left, c) {
			b.WriteString(cells[j+1] + pad)
		} else {
			b.WriteString(pad + cells[j+1])
		}
	}
	w.Printf("%s\n", strings.TrimRight(b.String(), " "))
}

// writeWrapped writes prose within TextWidth: the first line after first,
// the following ones after rest (a hanging indent), broken at spaces. A
// word longer than a line stays whole.
func writeWrapped(w *reports.ErrWriter, first, rest, text string) {
	for _, line := range wrap(text, first, rest) {
		w.Printf("%s\n", line)
	}
}

func wrap(text, first, rest string) []string {
	return breakLine(first+strings.Join(strings.Fields(text), " "), len(first), rest)
}

// breakLine breaks line at spaces into lines within TextWidth, keeping its
// own spacing; no break falls in its first keep bytes (the indent), and
// the following lines start with hang. A word longer than a line stays
// whole.
//
// It takes time in proportion to the line: the line is decoded once and
// each break looks at the columns around it only. (It used to decode the
// whole rest of the line again for every break, which made a long summary
// quadratic: a cut 6.5M-operation history whose linearizable summary named
// 10,000 undecided keys spent most of `stormcheck check`'s CPU here.)
func breakLine(line string, keep int, hang string) []string {
	if reports.Width(line) <= reports.TextWidth {
		return []string{line}
	}
	// The line being broken is lead followed by r[pos:]: lead is empty for
	// the first line and hang for the following ones.
	r := []rune(line)
	h := []rune(hang)
	var lead []rune
	pos := 0
	at := func(i int) rune {
		if i < len(lead) {
			return lead[i]
		}
		return r[pos+i-len(lead)]
	}
	text := func(from, to int) string { // the line's runes [from, to)
		var b strings.Builder
		b.Grow(to - from)
		for i := from; i < to; i++ {
			b.WriteRune(at(i))
		}
		return b.String()
	}
	var out []string
	for n := len(r); n > reports.TextWidth; n = len(lead) + len(r) - pos {
		cut := -1
		for i := min(reports.TextWidth, n-1); i > keep; i-- {
			if at(i) == ' ' {
				cut = i
				break
			}
		}
		if cut < 0 { // one long word: break after it
			for i := reports.TextWidth; i < n; i++ {
				if at(i) == ' ' {
					cut = i
					break
				}
			}
		}
		if cut < 0 {
			break
		}
		end := cut
		for end > 0 && at(end-1) == ' ' {
			end--
		}
		next := cut
		for next < n && at(next) == ' ' {
			next++
		}
		head := text(0, end)
		if next == n { // nothing after the spaces
			return append(out, head)
		}
		out = append(out, head)
		pos += next - len(lead)
		lead, keep = h, len(hang)
	}
	if pos == 0 { // never broken: the line as it came
		return append(out, line)
	}
	return append(out, text(0, len(lead)+len(r)-pos))
}

// noWrap starts a line the report must not wrap (it is stripped).
const noWrap = "\x00"

// headerLabel matches a header line's label column: "scenario  ".
var headerLabel = regexp.MustCompile(`^[a-z]+ {2,}`)

// wrapLine wraps one line of the report within TextWidth. The following
// lines hang under a header line's value ("scenario  ..."), else two
// columns in from the line's own indent.
func wrapLine(line string) []string {
	if reports.Width(line) <= reports.TextWidth {
		return []string{line}
	}
	lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
	hang := lead + "  "
	if m := headerLabel.FindString(line); m != "" {
		hang = strings.Repeat(" ", len(m))
	}
	return breakLine(line, len(lead), hang)
}
