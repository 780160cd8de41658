//go:build race

package conformance

import "time"

// Under the race detector every program runs several times slower, and CI
// runs the race suite on two shared cores: give each test more time. This
// is not a _test file so that every package running the corpus (such as
// lang/format's formatted-corpus test) gets it too.
func init() { Timeout = 90 * time.Second }
