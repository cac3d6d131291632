package scenarios

import (
	"net/url"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	// accountName is an Azure storage account name.
	accountName = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	// envName is a portable environment variable name.
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// azuriteVersion is an Azurite release; it reaches npm, so nothing
	// else is allowed.
	azuriteVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
)

// target decodes the target mapping into t. Fields that belong to another
// target kind are reported; their values are not read.
func (d *decoder) target(n *yaml.Node, t *Target) {
	fs, ok := d.mapping(n, "target", "target settings ("+strings.Join(targetFields, ", ")+")")
	if !ok {
		return
	}
	d.allow(fs, "target", targetFields, secretHint)

	kind, kindKnown, defaulted := TargetAzurite, true, true
	if p, ok := fs["kind"]; ok {
		defaulted = false
		v, good := d.str(p.val, "target.kind")
		kind, kindKnown = v, good && contains(targetKinds, v)
		if good && !kindKnown {
			d.errorf(p.val, "target.kind", "must be one of %s, got %q", strings.Join(targetKinds, ", "), v)
		}
		if kindKnown {
			t.Kind = v
		}
	}
	// Read the kind-specific fields that apply; report those that do not.
	for _, name := range sortedByPosition(fs) {
		kinds, specific := targetFieldKinds[name]
		if !specific || !kindKnown {
			continue
		}
		if !contains(kinds, kind) {
			was := "this target's kind is " + kind
			if defaulted {
				was += ", the default"
			}
			d.errorf(fs[name].key, "target."+name, "applies to target kind: %s (%s)", strings.Join(kinds, ", "), was)
			continue
		}
		d.targetField(name, fs[name].val, t)
	}
	if kindKnown && contains(targetFieldKinds["account"], kind) {
		if _, ok := fs["account"]; !ok {
			d.errorf(n, "target.account", "required for target kind %s: the storage account name, 3 to 24 lowercase letters and digits", kind)
		}
	}
}

// targetField decodes one kind-specific target field.
func (d *decoder) targetField(name string, n *yaml.Node, t *Target) {
	path := "target." + name
	v, ok := d.str(n, path)
	if !ok {
		return
	}
	switch name {
	case "connection_string_env", "key_env":
		// The value is never echoed: it may be the secret itself.
		if !envName.MatchString(v) {
			d.errorf(n, path, "must name an environment variable (letters, digits and _, not starting with a digit) that holds the secret; the secret itself never goes in a scenario file")
			return
		}
		if name == "key_env" {
			t.KeyEnv = v
		} else {
			t.ConnectionStringEnv = v
		}
	case "account":
		if !accountName.MatchString(v) {
			d.errorf(n, path, "must be a storage account name, 3 to 24 lowercase letters and digits, got %s", describe(n))
			return
		}
		t.Account = v
	case "blob_url", "queue_url", "table_url":
		if msg := checkEndpoint(v); msg != "" {
			d.errorf(n, path, "%s", msg)
			return
		}
		switch name {
		case "blob_url":
			t.BlobURL = v
		case "queue_url":
			t.QueueURL = v
		default:
			t.TableURL = v
		}
	case "signing", "encryption":
		if !contains(smbSecurity, v) {
			d.errorf(n, path, "must be one of %s, got %s", strings.Join(smbSecurity, ", "), describe(n))
			return
		}
		if name == "signing" {
			t.Signing = v
		} else {
			t.Encryption = v
		}
	case "azurite_version":
		if !azuriteVersion.MatchString(v) {
			d.errorf(n, path, "must be an Azurite release version such as %s, got %s", DefaultAzuriteVersion, describe(n))
			return
		}
		t.AzuriteVersion = v
	}
}

// checkEndpoint returns why u is not a usable service endpoint, or "". The
// URL is never echoed: a query string may carry a SAS token.
func checkEndpoint(u string) string {
	const want = "must be an absolute http or https URL such as https://myaccount.blob.core.windows.net"
	p, err := url.Parse(u)
	switch {
	case err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "":
		return want
	case p.User != nil || p.RawQuery != "" || p.ForceQuery || p.Fragment != "":
		return want + ", with no user, query or fragment: secrets (such as a SAS token) never go in scenario files; use target.connection_string_env or target.key_env"
	}
	return ""
}
