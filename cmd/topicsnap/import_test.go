package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportErrors(t *testing.T) {
	tmp := t.TempDir()
	pdir := filepath.Join(tmp, "orders-0")
	os.Mkdir(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "00000000000000000000.index"), make([]byte, 8), 0o644)
	notKcat := filepath.Join(tmp, "kcat.txt")
	os.WriteFile(notKcat, []byte("offset 4 key a value b\n"), 0o644)
	dir := filepath.Join(tmp, "snap")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"nothing to import", []string{"import", "--dir", dir}, exitError, []string{"name what to import"}},
		{"kcat without topic", []string{"import", "--dir", dir, "--kcat", notKcat}, exitError, []string{"--kcat needs one --topic"}},
		{"both", []string{"import", "--dir", dir, "--kcat", notKcat, "--topic", "t", pdir}, exitError, []string{"not both"}},
		{"missing path", []string{"import", "--dir", dir, filepath.Join(tmp, "nope")}, exitBadInput, []string{"no such file", "Try: give a broker's log directory"}},
		{"index without log", []string{"import", "--dir", dir, pdir}, exitBadInput, []string{"holds no segment file"}},
		{"an index", []string{"import", "--dir", dir, filepath.Join(pdir, "00000000000000000000.index")}, exitBadInput, []string{"is not a segment file"}},
		{"not kcat -J", []string{"import", "--dir", dir, "--kcat", notKcat, "--topic", "orders"}, exitBadInput, []string{"line 1 is not a line of kcat -C -J"}},
		// A topic name is a usage error (2), not input that is not Kafka's log (13).
		{"kcat, bad topic name", []string{"import", "--dir", dir, "--kcat", notKcat, "--topic", "we ird"}, exitError, []string{`--topic "we ird" is no topic name`, "a-z A-Z 0-9 . _ -"}},
		{"segments, bad topic name", []string{"import", "--dir", dir, "--topic", "..", pdir}, exitError, []string{`--topic ".." is no topic name`}},
		{"no rows a file", []string{"import", "--dir", dir, "--file-rows", "0", pdir}, exitError, []string{"--file-rows 0: give at least 1"}},
		{"negative bytes a file", []string{"import", "--dir", dir, "--file-bytes", "-5", pdir}, exitError, []string{"--file-bytes -5: give at least 1"}},
		// 0 and below became the defaults (64 MiB, 256 MiB) without a word.
		{"no batch bytes", []string{"import", "--dir", dir, "--max-batch-bytes", "0", pdir}, exitError, []string{"--max-batch-bytes 0: give at least 1"}},
		{"negative batch bytes", []string{"import", "--dir", dir, "--max-batch-bytes", "-1", pdir}, exitError, []string{"--max-batch-bytes -1: give at least 1"}},
		{"no decompressed bytes", []string{"import", "--dir", dir, "--max-decompressed-bytes", "0", pdir}, exitError, []string{"--max-decompressed-bytes 0: give at least 1048576"}},
		{"negative decompressed bytes", []string{"import", "--dir", dir, "--max-decompressed-bytes", "-5", pdir}, exitError, []string{"--max-decompressed-bytes -5: give at least 1048576"}},
		{"kcat-format without kcat", []string{"import", "--dir", dir, "--kcat-format", `%p %o %s\n`, pdir}, exitError, []string{"--kcat-format goes with --kcat"}},
		{"unreadable kcat format", []string{"import", "--dir", dir, "--kcat", notKcat, "--kcat-format", `%o %s\n`, "--topic", "t"}, exitError, []string{"lacks %o or %p", "Try: give the -f FORMAT"}},
		{"not this kcat format", []string{"import", "--dir", dir, "--kcat", notKcat, "--kcat-format", `%p %o %s\n`, "--topic", "t"}, exitBadInput, []string{"does not match --kcat-format"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "topicsnap.json")); err == nil {
		t.Error("a refused import made the snapshot folder")
	}
}

// TestImportCommand imports the real broker's __consumer_offsets folder
// through the command line, and ls lists it; then a copy of its segment
// with its first batch damaged: check gaps fails and names the damage.
func TestImportCommand(t *testing.T) {
	data := os.Getenv("TOPICSNAP_TEST_KAFKA_DATA_DIR")
	if data == "" {
		t.Skip("needs the real broker's log directory: TOPICSNAP_TEST_KAFKA_DATA_DIR")
	}
	folders, _ := filepath.Glob(filepath.Join(data, "__consumer_offsets-*"))
	if len(folders) == 0 {
		t.Fatalf("no __consumer_offsets folder in %s", data)
	}
	dir := t.TempDir()
	code, stdout, stderr := cli(t, append([]string{"import", "--dir", dir}, folders[0])...)
	if code != 0 || !strings.Contains(stdout, "imported ") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "ls", "--dir", dir)
	if code != 0 || !strings.Contains(stdout, "__consumer_offsets") {
		t.Fatalf("ls: exit %d\n%s\n%s", code, stdout, stderr)
	}

	seg := filepath.Join(folders[0], "00000000000000000000.log")
	b, err := os.ReadFile(seg)
	if err != nil || len(b) < 100 {
		t.Fatalf("%s: %v (%d bytes)", seg, err, len(b))
	}
	first := 12 + int(binary.BigEndian.Uint32(b[8:12]))
	b[first-1] ^= 0xff // inside the first batch's records: its CRC no longer matches
	logs := filepath.Join(t.TempDir(), "damaged-0")
	os.Mkdir(logs, 0o755)
	os.WriteFile(filepath.Join(logs, "00000000000000000000.log"), b, 0o644)
	dir = t.TempDir()
	code, stdout, stderr = cli(t, "import", "--dir", dir, logs)
	if code != 0 || !strings.Contains(stdout, "1 damaged batches") || !strings.Contains(stderr, "CRC mismatch") {
		t.Fatalf("damaged import: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "check", "gaps", "--dir", dir, "--topic", "damaged")
	if code != exitCheckFailed || !strings.Contains(stdout, "in batches the import could not read") {
		t.Fatalf("check gaps: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
