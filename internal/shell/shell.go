// Package shell quotes words for a POSIX shell: the commands topicsnap
// prints for users to run (hints, the reset's kafka-consumer-groups.sh,
// the demo's) must run as printed, whatever a topic or a folder is named.
package shell

import "strings"

// Quote quotes s for a POSIX shell when it needs it: a word of letters,
// digits and -_.,:/@=+ stays as it is; anything else goes in single
// quotes, where a single quote is written by closing the quotes, a
// backslash-escaped quote, and opening them again.
func Quote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.,:/@=+", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
