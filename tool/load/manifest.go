package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/harnlang/harn/stdlib/connectors"
	"github.com/harnlang/harn/stdlib/process"
)

// installManifest is step 2 of the script loader (docs/spec/registry.md
// §7): the project manifest — the harn.toml nearest above the script —
// must be valid TOML, and its [connectors.NAME] tables ones that
// connector_call can use, before the script runs. A failure is
// `failed to install <what>: <error>`. A script outside any project has
// nothing to install; the other tables are read when the script uses
// them (docs/tool-schema.md "Loading").
func installManifest(script string) *Error {
	abs, err := filepath.Abs(script)
	if err != nil {
		return nil
	}
	dir := process.ManifestDir(filepath.Dir(abs))
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, "harn.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return installError("project manifest", err)
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			path = fmt.Sprintf("%s:%d:%d", path, row, col)
		}
		return installError("project manifest", fmt.Errorf("%s: invalid TOML: %s", path, strings.TrimPrefix(err.Error(), "toml: ")))
	}
	if err := connectors.CheckManifest(path, doc); err != nil {
		return installError("connectors", err)
	}
	return nil
}

func installError(what string, err error) *Error {
	return &Error{Msg: fmt.Sprintf("failed to install %s: %v", what, err), Status: 1}
}
