//go:build race

package conformance

import "time"

// Under the race detector (any package running these programs, such as
// lang/format's formatted-corpus test) every program runs several times slower, and CI
// runs the race suite on two shared cores: give each test more time.
func init() { Timeout = 90 * time.Second }
