package mcpclient

import (
	"context"
	"runtime"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

// Client is the script's handle on one connected MCP server (type_of
// "mcp_client", displayed <mcp_client:NAME>, docs/spec/builtins.md §1.1).
// Clients are never equal, not even to themselves (§1.5).
type Client struct {
	name string
	cfg  *config
	s    *session
	// registry is the registry name when mcp_ensure_active made the
	// client ("" otherwise).
	registry string
}

func (*Client) Type() string   { return "mcp_client" }
func (*Client) Truth() bool    { return true }
func (c *Client) Name() string { return c.name }
func (c *Client) Display(sb *strings.Builder) {
	sb.WriteString("<mcp_client:")
	sb.WriteString(c.name)
	sb.WriteByte('>')
}

// connect starts the transport and runs the handshake. The client is
// closed when the script drops it without disconnecting (the
// subprocess is not left running for the rest of the process).
func connect(ctx context.Context, c *config, dir string, in *inputs) (*Client, error) {
	var t transport
	if c.url != "" {
		ht, err := newHTTP(c.url, c.headers)
		if err != nil {
			return nil, err
		}
		ht.in = in
		if vm.IsCallable(c.auth) {
			server := c.name
			if server == "" {
				server = c.label()
			}
			creds, err := fetchCredentials(ctx, c, in, server, "connect")
			if err != nil {
				return nil, err
			}
			ht.setCredentials(creds)
		}
		t = ht
	} else {
		st, err := startStdio(c.command, c.args, c.env, dir)
		if err != nil {
			return nil, err
		}
		st.in = in
		t = st
	}
	s := &session{t: t, timeout: c.timeout, clientName: c.clientName, clientVersion: c.clientVersion, in: in}
	if err := s.handshake(ctx, c.version); err != nil {
		s.close()
		return nil, err
	}
	name := c.name
	if name == "" {
		name = s.serverName()
	}
	if name == "" {
		name = c.label()
	}
	cl := &Client{name: name, cfg: c, s: s}
	runtime.AddCleanup(cl, func(s *session) { go s.close() }, s)
	return cl, nil
}

// alive reports whether the client can still be used: not disconnected,
// and (stdio) its process still running.
func (c *Client) alive() bool {
	if c.s.isClosed() {
		return false
	}
	if st, ok := c.s.t.(*stdioTransport); ok {
		return st.endedErr() == nil
	}
	return true
}

// info is mcp_server_info's dict, as JSON.
func (c *Client) info() *jsonv.Object {
	s := c.s
	o := jsonv.NewObject(9)
	o.Set("name", c.name)
	si := s.serverInfo
	if si == nil {
		si = jsonv.NewObject(0)
	}
	if v, ok := si.Get("name"); ok {
		o.Set("server_name", v)
	} else {
		o.Set("server_name", nil)
	}
	if v, ok := si.Get("version"); ok {
		o.Set("version", v)
	} else {
		o.Set("version", nil)
	}
	if v, ok := si.Get("title"); ok {
		o.Set("title", v)
	}
	o.Set("server_info", si)
	o.Set("protocol_version", s.version)
	caps := s.capabilities
	if caps == nil {
		caps = jsonv.NewObject(0)
	}
	o.Set("capabilities", caps)
	if s.instructions != "" {
		o.Set("instructions", s.instructions)
	}
	o.Set("transport", s.t.kind())
	o.Set("connected", c.alive())
	return o
}
