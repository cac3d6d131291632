package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// MaxRulesBytes bounds the rule files of a folder together (each is also
// bounded by itself, at 1 MiB): the 21 shipped files hold 375 KB (323
// rules); a folder is read one file at a time and refused once its files
// have held more than this.
const MaxRulesBytes = 16 << 20

// LoadDir loads every *.yaml file of dir, in name order, into one RuleSet.
// Rule ids must be unique across the files; a duplicate is reported at the
// later rule, naming the earlier. Problems in all files are returned
// together as one ErrorList; a file that cannot be read gives the error
// from the operating system; one over 1 MiB is an Error in the list. A directory with no *.yaml file is an error.
func LoadDir(dir string) (*RuleSet, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, ErrorList{{File: dir, Msg: "not a directory: --rules takes a directory of *.yaml rule files"}}
	}
	return LoadFS(os.DirFS(dir), dir)
}

// LoadFS is LoadDir over the *.yaml files at the root of fsys; label is
// the directory named in errors and in Rule.File (label/NAME.yaml).
func LoadFS(fsys fs.FS, label string) (*RuleSet, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, ErrorList{{File: label, Msg: "no *.yaml rule files in this directory"}}
	}
	rs := &RuleSet{}
	var errs ErrorList
	first := map[string]Rule{}
	var total int64
	for _, name := range files {
		f := filepath.Join(label, name)
		data, err := yamlx.ReadFS(fsys, name, f) // at most 1 MiB
		var big *Error
		if errors.As(err, &big) {
			errs = append(errs, big)
			continue
		}
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > MaxRulesBytes {
			return nil, ErrorList{{File: label, Err: &boundedread.Error{File: label, What: "a rules folder", Size: -1, Bound: MaxRulesBytes},
				Msg: fmt.Sprintf("its *.yaml files hold more than %s together (%d of its %d files, up to %s, hold %d bytes); a rules folder holds at most %d bytes (%s)",
					boundedread.Bytes(MaxRulesBytes), slices.Index(files, name)+1, len(files), name, total, MaxRulesBytes, boundedread.Bytes(MaxRulesBytes))}}
		}
		rules, err := Parse(f, data)
		if err != nil {
			errs = append(errs, err.(ErrorList)...)
			continue
		}
		for i, r := range rules {
			if prev, dup := first[r.ID]; dup {
				errs = append(errs, &Error{File: f, Line: r.Line, Col: r.Col, Field: fmt.Sprintf("rules[%d].id", i),
					Msg: fmt.Sprintf("duplicate rule id %q, first at %s:%d:%d; ids are unique across all rule files", r.ID, prev.File, prev.Line, prev.Col)})
				continue
			}
			first[r.ID] = r
			rs.Rules = append(rs.Rules, r)
		}
	}
	if len(errs) > 0 {
		errs.SortByPosition()
		return nil, errs
	}
	return rs, nil
}

// Select returns the rules carrying every one of tags, in order; a tag
// written -tag excludes the rules carrying it (blob,-slow: the blob rules
// that do not wait). No tags selects every rule.
func (rs *RuleSet) Select(tags []string) []Rule {
	var out []Rule
	for _, r := range rs.Rules {
		all := true
		for _, t := range tags {
			if not, ok := strings.CutPrefix(t, "-"); ok {
				all = all && !slices.Contains(r.Tags, not)
			} else {
				all = all && slices.Contains(r.Tags, t)
			}
		}
		if all {
			out = append(out, r)
		}
	}
	return out
}
