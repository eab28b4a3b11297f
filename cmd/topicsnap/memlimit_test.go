package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/topicsnap/topicsnap/schemas"
)

// TestDumpMemoryLimit: without --memory-limit, a dump that decodes values
// (a registry from a flag, the environment or --config, or --schema) gets
// the larger soft limit; any other dump the smaller one.
func TestDumpMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	withURL := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(withURL, []byte("bootstrap.servers=x:9092\nschema.registry.url=http://127.0.0.1:1/apis/ccompat/v7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	without := filepath.Join(dir, "plain.properties")
	if err := os.WriteFile(without, []byte("bootstrap.servers=x:9092\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(o *dumpOptions)
		want string
	}{
		{"nothing to decode with", func(*dumpOptions) {}, "448MiB"},
		{"a config file without a registry", func(o *dumpOptions) { o.Conn.ConfigFile = without }, "448MiB"},
		{"a config file that cannot be read", func(o *dumpOptions) { o.Conn.ConfigFile = filepath.Join(dir, "absent") }, "448MiB"},
		{"--schema", func(o *dumpOptions) { o.SchemaDir = dir }, "768MiB"},
		{"--schema-registry", func(o *dumpOptions) { o.Registry = &schemas.Registry{URLs: []string{"http://127.0.0.1:1"}} }, "768MiB"},
		{"schema.registry.url in --config", func(o *dumpOptions) { o.Conn.ConfigFile = withURL }, "768MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &dumpOptions{}
			c.set(o)
			if got := dumpMemoryLimit(t.Context(), o); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}
