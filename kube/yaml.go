package kube

import (
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// WriteYAML writes the manifests as one multi-document YAML stream, for
// `kubectl apply -f -`: a comment saying what they are and how to follow
// the run, the ConfigMap, then the Job.
func (m *Manifests) WriteYAML(w io.Writer, header string) error {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		if line == "" {
			b.WriteString("#\n")
			continue
		}
		b.WriteString("# " + line + "\n")
	}
	for _, obj := range []any{m.ConfigMap, m.Job} {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("writing the manifests: %w", err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
