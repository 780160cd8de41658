// Package auth owns HTTP authentication for MCP servers (docs/spec/orchestrator.md
// §9): API keys, and OAuth resource-server mode in which bearer tokens
// are validated as JWTs against a JWKS endpoint or by RFC 7662
// introspection, plus the RFC 9728 protected-resource metadata that tells
// clients which authorization server to ask.
//
// A Config is built once from the environment (FromEnv) and then only
// read, so one value serves every request concurrently. The transport
// asks it three things: is this request allowed (Authenticate, which
// writes the 401/403 itself), what is the metadata document
// (ServeMetadata), and where is it published (ResourceMetadataURL). Each
// takes the public endpoint `<scheme>://<host><path>` the transport
// derived for the request (§8), because the published URLs must match
// what the client sees, not the bind address. stdio is never
// authenticated and never consults this package.
package auth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harnlang/harn/mcp/protocol"
)

// Environment variables read by FromEnv.
const (
	EnvAPIKeys                   = "HARN_ORCHESTRATOR_API_KEYS"
	EnvAuthorizationServers      = "HARN_MCP_OAUTH_AUTHORIZATION_SERVERS"
	EnvIntrospectionURL          = "HARN_MCP_OAUTH_INTROSPECTION_URL"
	EnvIntrospectionClientID     = "HARN_MCP_OAUTH_INTROSPECTION_CLIENT_ID"
	EnvIntrospectionClientSecret = "HARN_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET"
	EnvIntrospectionToken        = "HARN_MCP_OAUTH_INTROSPECTION_TOKEN"
	EnvJWKSURL                   = "HARN_MCP_OAUTH_JWKS_URL"
	EnvResource                  = "HARN_MCP_OAUTH_RESOURCE"
	EnvAudience                  = "HARN_MCP_OAUTH_AUDIENCE"
	EnvIssuer                    = "HARN_MCP_OAUTH_ISSUER"
	EnvScopes                    = "HARN_MCP_OAUTH_SCOPES"
	// EnvHMACSecret is the secret of HMAC-signed requests
	// (Authorization: HMAC-SHA256, protocol.HMACScheme).
	EnvHMACSecret = "HARN_ORCHESTRATOR_HMAC_SECRET"
)

// jwksCacheTTL is how long a fetched JWKS is used before it is fetched
// again (§9); an unknown key id forces an earlier refresh, at most once
// per jwksForcedRefreshGap so random kids cannot hammer the JWKS server,
// and while no key set could be fetched yet requests retry the fetch at
// most once per jwksRetryGap.
const (
	jwksCacheTTL         = 5 * time.Minute
	jwksForcedRefreshGap = 10 * time.Second
	jwksRetryGap         = time.Second
	// outboundTimeout bounds one JWKS or introspection request.
	outboundTimeout = 10 * time.Second
	// maxIntrospectionBody bounds an introspection response.
	maxIntrospectionBody = 1 << 20
)

// Config is the authentication policy of one HTTP MCP server. The zero
// value (and a Config from an empty environment) allows every request.
type Config struct {
	apiKeys protocol.APIKeys
	// apiKeyIDs are the identities of the keys ("api-key#N"), made once.
	apiKeyIDs []string
	hmac      *protocol.HMACSecret // nil without HARN_ORCHESTRATOR_HMAC_SECRET
	oauth     *oauthConfig
}

// oauthConfig is OAuth resource-server mode.
type oauthConfig struct {
	authorizationServers []string
	resource             string   // canonical resource URI, may be empty
	audiences            []string // accepted aud/resource values (never empty)
	issuer               string   // required iss, may be empty
	scopes               []string // required scopes, may be empty

	introspection *introspector // set: tokens are introspected
	jwks          *jwksVerifier // set (and introspection nil): tokens are JWTs
}

// FromEnv builds the Config from environment variables read through
// getenv (os.Getenv in production). It refuses configurations that would
// silently weaken authentication, with the messages of §9.
func FromEnv(getenv func(string) string) (*Config, error) {
	c := &Config{}
	if secret := getenv(EnvHMACSecret); secret != "" {
		if strings.TrimSpace(secret) == "" {
			return nil, fmt.Errorf("%s holds no secret (%q)", EnvHMACSecret, secret)
		}
		c.hmac = protocol.NewHMACSecret(secret, nil)
	}
	var keys []string
	if list := getenv(EnvAPIKeys); list != "" {
		var err error
		if keys, err = protocol.ParseAPIKeys(EnvAPIKeys, list); err != nil {
			return nil, err
		}
	}
	c.apiKeys = protocol.NewAPIKeys(keys)
	for i := range keys {
		c.apiKeyIDs = append(c.apiKeyIDs, fmt.Sprintf("api-key#%d", i+1))
	}
	serverList := getenv(EnvAuthorizationServers)
	servers := splitList(serverList, ",")
	if len(servers) == 0 {
		// OAuth settings without the servers would leave the server open
		// when the operator meant to protect it.
		for _, name := range []string{EnvIntrospectionURL, EnvJWKSURL, EnvResource, EnvAudience, EnvIssuer, EnvScopes} {
			if strings.TrimSpace(getenv(name)) != "" {
				return nil, fmt.Errorf("%s is set but %s is empty; OAuth resource-server mode needs the authorization servers", name, EnvAuthorizationServers)
			}
		}
		if serverList != "" {
			return nil, fmt.Errorf("%s names no authorization server (%q); list their URLs separated by commas, or leave it empty for no OAuth", EnvAuthorizationServers, serverList)
		}
		return c, nil
	}
	for _, s := range servers {
		if err := checkURL(EnvAuthorizationServers, s); err != nil {
			return nil, err
		}
	}
	o := &oauthConfig{
		authorizationServers: servers,
		resource:             strings.TrimSpace(getenv(EnvResource)),
		audiences:            splitList(getenv(EnvAudience), ","),
		issuer:               strings.TrimSpace(getenv(EnvIssuer)),
		scopes:               splitScopes(getenv(EnvScopes)),
	}
	introURL := strings.TrimSpace(getenv(EnvIntrospectionURL))
	jwksURL := strings.TrimSpace(getenv(EnvJWKSURL))
	if introURL == "" && jwksURL == "" {
		return nil, errors.New("HARN_MCP_OAUTH_AUTHORIZATION_SERVERS requires HARN_MCP_OAUTH_INTROSPECTION_URL or HARN_MCP_OAUTH_JWKS_URL")
	}
	if o.resource == "" && len(o.audiences) == 0 {
		return nil, errors.New("HARN_MCP_OAUTH_AUTHORIZATION_SERVERS requires HARN_MCP_OAUTH_RESOURCE or HARN_MCP_OAUTH_AUDIENCE; refusing to derive OAuth audiences from request headers")
	}
	if o.resource != "" {
		if err := checkURL(EnvResource, o.resource); err != nil {
			return nil, err
		}
	}
	if len(o.audiences) == 0 {
		o.audiences = []string{o.resource}
	}
	client := &http.Client{Timeout: outboundTimeout}
	if introURL != "" {
		if err := checkURL(EnvIntrospectionURL, introURL); err != nil {
			return nil, err
		}
		in := &introspector{
			url:          introURL,
			clientID:     strings.TrimSpace(getenv(EnvIntrospectionClientID)),
			clientSecret: getenv(EnvIntrospectionClientSecret),
			bearer:       strings.TrimSpace(getenv(EnvIntrospectionToken)),
			client:       client,
		}
		if in.clientSecret != "" && in.clientID == "" {
			return nil, fmt.Errorf("%s requires %s", EnvIntrospectionClientSecret, EnvIntrospectionClientID)
		}
		o.introspection = in
	} else {
		if err := checkURL(EnvJWKSURL, jwksURL); err != nil {
			return nil, err
		}
		o.jwks = &jwksVerifier{url: jwksURL, client: client}
	}
	c.oauth = o
	return c, nil
}

// Mode names the active policy for start-up logs: "none", or the
// credentials accepted joined by "+": an OAuth mode ("oauth-jwks",
// "oauth-introspection"), "api-key", "hmac".
func (c *Config) Mode() string {
	var modes []string
	if c.oauth != nil {
		mode := "oauth-jwks"
		if c.oauth.introspection != nil {
			mode = "oauth-introspection"
		}
		modes = append(modes, mode)
	}
	if c.apiKeys.Len() > 0 {
		modes = append(modes, "api-key")
	}
	if c.hmac != nil {
		modes = append(modes, "hmac")
	}
	if len(modes) == 0 {
		return "none"
	}
	return strings.Join(modes, "+")
}

// Close stops the JWKS cache's background refresh, if one was started.
// The Config keeps working afterwards only for API keys and
// introspection.
func (c *Config) Close() error {
	if c == nil || c.oauth == nil || c.oauth.jwks == nil {
		return nil
	}
	return c.oauth.jwks.close()
}

// splitList splits on sep, trims each item and drops blank ones.
func splitList(s, sep string) []string {
	var out []string
	for _, part := range strings.Split(s, sep) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// splitScopes splits a comma- or space-separated scope list.
func splitScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// checkURL refuses values that are not absolute http(s) URLs.
func checkURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: %q is not an absolute http(s) URL", name, raw)
	}
	return nil
}
