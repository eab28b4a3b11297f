package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFolderFormatVersion: a writer marks a folder of the older layout
// with the newer one before it writes (an older build then refuses it
// rather than miss the cuts kept by topic); a reader never writes; a
// folder newer than this build is refused.
func TestFolderFormatVersion(t *testing.T) {
	version := func(t *testing.T, dir string) int {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "topicsnap.json"))
		if err != nil {
			t.Fatal(err)
		}
		var fi folderInfo
		if err := json.Unmarshal(b, &fi); err != nil {
			t.Fatal(err)
		}
		return fi.FormatVersion
	}
	write := func(t *testing.T, v int) string {
		t.Helper()
		dir := t.TempDir()
		b, _ := json.Marshal(folderInfo{v, "topicsnap"})
		if err := os.WriteFile(filepath.Join(dir, "topicsnap.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cases := []struct {
		name         string
		start        int // 0: no folder yet
		create       bool
		want         int
		refusedNewer bool
	}{
		{"new folder", 0, true, FolderFormatVersion, false},
		{"old folder opened to read", 1, false, 1, false},
		{"old folder opened to write", 1, true, FolderFormatVersion, false},
		{"current folder opened to write", FolderFormatVersion, true, FolderFormatVersion, false},
		{"newer folder opened to read", FolderFormatVersion + 1, false, FolderFormatVersion + 1, true},
		{"newer folder opened to write", FolderFormatVersion + 1, true, FolderFormatVersion + 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "snap")
			if c.start > 0 {
				dir = write(t, c.start)
			}
			var err error
			if c.create {
				_, err = CreateAt(t.Context(), dir, S3Config{})
			} else {
				_, err = OpenAt(t.Context(), dir, S3Config{})
			}
			if c.refusedNewer {
				if !errors.Is(err, ErrNewerFormat) {
					t.Fatalf("err = %v, want ErrNewerFormat", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := version(t, dir); got != c.want {
				t.Errorf("format_version = %d, want %d", got, c.want)
			}
		})
	}
}
