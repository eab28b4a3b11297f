package queries

import (
	"strings"
	"testing"
)

// TestRebase: the remote's file names are the folder's files under another
// root (s3a://bucket/prefix), the layout kept; a file outside the folder
// is refused, never named somewhere else.
func TestRebase(t *testing.T) {
	tests := []struct {
		name, dir, root string
		paths, want     []string
		err             bool
	}{
		{"bucket prefix", "/home/u/.cache/topicsnap/s3/b/p", "s3a://b/p",
			[]string{"/home/u/.cache/topicsnap/s3/b/p/topic=t/partition=0/00-09.parquet", "/home/u/.cache/topicsnap/s3/b/p/topic=t/partition=12/10-19.parquet"},
			[]string{"s3a://b/p/topic=t/partition=0/00-09.parquet", "s3a://b/p/topic=t/partition=12/10-19.parquet"}, false},
		{"bucket root", "cache/b", "s3a://b",
			[]string{"cache/b/topic=t/partition=0/00-09.parquet"}, []string{"s3a://b/topic=t/partition=0/00-09.parquet"}, false},
		{"outside the folder", "/data/snap", "s3a://b/p", []string{"/data/other/topic=t/partition=0/0-9.parquet"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rebase(tt.dir, tt.root, tt.paths)
			if tt.err {
				if err == nil {
					t.Fatalf("rebase: %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("rebase: %v, want %v", got, tt.want)
			}
		})
	}
}
