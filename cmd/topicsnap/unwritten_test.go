package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/queries"
)

// TestTopicADumpWroteNothingOf: a nightly dump of a whole cluster as a
// principal refused READ on one topic (DESCRIBE granted) fails that topic
// with exit 6 and leaves its folder, topic=T/partition=0/.lock, with no
// manifest. Before, sql, check and the server took it for an empty topic of
// the folder ("SELECT count(*) FROM describeonly" answered 0; "WARN gaps on
// describeonly: no records: the snapshot of describeonly holds none on its
// 0 partitions"), while ls left it out and "ls --topic describeonly" said
// the folder "holds no snapshots yet" with exit 0. Now every command says
// the same: not a topic of the folder, why, exit 4.
func TestTopicADumpWroteNothingOf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	catalogtest.Folder(t, dir, "kept", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 3)}})
	if err := os.MkdirAll(filepath.Join(dir, "topic=refused", "partition=0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topic=refused", "partition=0", ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	why := `topic "refused" has no snapshot in ` + dir + `: its folder holds no partition's manifest (a dump made it and wrote nothing of the topic`
	unknown := int(queries.ErrUnknownTopic.ExitCode())
	for _, args := range [][]string{
		{"ls", "--dir", dir, "--topic", "refused"},
		{"check", "gaps", "--dir", dir, "--topic", "refused"},
		{"check", "all", "--dir", dir, "--topic", "refused"},
	} {
		code, out, errs := cli(t, args...)
		if code != unknown || !strings.Contains(errs, why) {
			t.Errorf("%s: exit %d\n%s%s\nwant exit %d: %s", strings.Join(args, " "), code, out, errs, unknown, why)
		}
	}
	// compact --topic and restore say the same (compact said "0 partitions"
	// with exit 0, restore 'did you mean "refused"?').
	for _, args := range [][]string{
		{"catalog", "compact", "--dir", dir, "--topic", "refused"},
		{"restore", "--dir", dir, "--topic", "refused", "--to-topic", "elsewhere", "--brokers", "127.0.0.1:1", "--dry-run"},
	} {
		code, out, errs := cli(t, args...)
		if code != unknown || !strings.Contains(errs, catalog.NoManifest) || strings.Contains(errs, "did you mean") {
			t.Errorf("%s: exit %d\n%s%s\nwant exit %d: %s", strings.Join(args, " "), code, out, errs, unknown, catalog.NoManifest)
		}
	}
	code, out, errs := cli(t, "sql", "--dir", dir, "--format", "csv", "-c", `SELECT count(*) FROM refused`)
	if code == 0 || !strings.Contains(errs, "topic refused skipped: its folder holds no partition's manifest") {
		t.Errorf("sql over refused: exit %d\n%s%s\nwant it refused, the topic's folder named", code, out, errs)
	}
	code, out, errs = cli(t, "ls", "--dir", dir)
	if code != 0 || !strings.Contains(out, "kept") || strings.Contains(out, "refused") || !strings.Contains(errs, "warning: topic refused skipped: its folder holds no partition's manifest") {
		t.Errorf("ls: exit %d\n%s%s\nwant kept listed and refused named in a warning", code, out, errs)
	}
	code, out, errs = cli(t, "sql", "--dir", dir, "--format", "csv", "-c", `SELECT count(*) AS n FROM kept`)
	if code != 0 || strings.TrimSpace(out) != "n\n3" {
		t.Errorf("sql over kept: exit %d\n%s%s", code, out, errs)
	}
}
