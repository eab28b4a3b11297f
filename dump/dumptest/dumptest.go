// Package dumptest gives tests the Kafka cluster they run against, the way
// net/http/httptest gives them a server: the real broker `make test` starts
// (TOPICSNAP_TEST_BROKERS), or else an in-process kfake cluster. The same
// tests run unchanged on both, as franz-go's own suite does.
package dumptest

import (
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Brokers returns the seed brokers of the cluster under test.
func Brokers(t testing.TB) []string {
	t.Helper()
	if b := os.Getenv("TOPICSNAP_TEST_BROKERS"); b != "" {
		return strings.Split(b, ",")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// Real reports whether the tests run against a real broker.
func Real() bool { return os.Getenv("TOPICSNAP_TEST_BROKERS") != "" }
