package tool

import (
	"encoding/base64"
	"fmt"

	"github.com/harnlang/harn/vm"
)

// blobField reads mcp_resource's `blob`: a bytes value, or a string that
// already holds base64. The result is the base64 text MCP carries.
func blobField(v vm.Value) (string, error) {
	j, err := ToJSON(v)
	if err == nil {
		switch x := j.(type) {
		case string:
			if _, err := base64.StdEncoding.DecodeString(x); err == nil {
				return x, nil
			}
			return "", fmt.Errorf("mcp_resource: 'blob' must be bytes or a base64 string")
		default:
			if o, ok := j.(interface{ Get(string) (any, bool) }); ok {
				if b, ok := o.Get("$bytes_b64"); ok {
					if s, ok := b.(string); ok {
						return s, nil
					}
				}
			}
		}
	}
	return "", fmt.Errorf("mcp_resource: 'blob' must be bytes or a base64 string")
}
