package main

import (
	"fmt"
	"strings"
)

// flagValue reads the value of the option args[i] names, "--name=V" or
// "--name V", and returns it with the index of the last argument it
// used. A missing value is an error, and so is a separate value that
// starts with "--": in "--state-dir --config x" the directory was
// forgotten, it is not called "--config" ("--state-dir=--config" says
// that).
func flagValue(args []string, i int) (value string, last int, err error) {
	name, value, inline := strings.Cut(args[i], "=")
	switch {
	case inline:
		return value, i, nil
	case i+1 >= len(args):
		return "", i, fmt.Errorf("%s needs a value", name)
	case strings.HasPrefix(args[i+1], "--"):
		return "", i, fmt.Errorf("%s needs a value, got the option %s (write %s=%s for a value that starts with --)", name, args[i+1], name, args[i+1])
	}
	return args[i+1], i + 1, nil
}
