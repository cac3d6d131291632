package conformance

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// MaxBodyBytes bounds body_bytes: a little past Append Block's largest
// block (100 MiB from version 2022-11-02), so that a rule can test it.
const MaxBodyBytes = 100<<20 + 1

// appendField decodes an append blob step field (append_pos, max_size,
// body_bytes) into s.
func (d *decoder) appendField(s *Step, name string, v *yaml.Node, path string) {
	n, err := int64(0), error(nil)
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		err = strconv.ErrSyntax
	} else {
		n, err = strconv.ParseInt(v.Value, 10, 64)
	}
	switch name {
	case "body_bytes":
		if err != nil || n < 1 || n > MaxBodyBytes {
			d.errorf(v, path, "must be a whole number of bytes, 1..%d (a generated body instead of body), got %s", MaxBodyBytes, describe(v))
			return
		}
		s.BodyBytes = n
	default:
		if err != nil {
			d.errorf(v, path, "must be a whole number of bytes (negative ones test that the service refuses them), got %s", describe(v))
			return
		}
		if name == "append_pos" {
			s.AppendPos = &n
		} else {
			s.MaxSize = &n
		}
	}
}
