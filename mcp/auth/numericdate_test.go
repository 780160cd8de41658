package auth

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// farDates are NumericDate claims written as JSON numbers: far-future
// values must stay in the future, whatever their size or form
// (docs/spec/orchestrator.md §9: "`exp` must be in the future").
// 9223372037 seconds is the first one whose nanoseconds overflow int64.
var farDates = []string{
	"9223372036",
	"9223372037",
	"9999999999",
	"9999999999.5",
	"99999999999999",
	"9223372036854775807", // math.MaxInt64 seconds
	"9223372036854775808",
	"1e300",
}

func TestIntrospectionFarFutureExpiry(t *testing.T) {
	now := time.Now().Unix()
	tokens := map[string]map[string]any{}
	add := func(name string, extra map[string]any) {
		doc := map[string]any{"active": true, "iss": testIssuer, "aud": testResource, "sub": "alice", "scope": "mcp:control"}
		for k, v := range extra {
			doc[k] = v
		}
		tokens[name] = doc
	}
	for _, d := range farDates {
		add("exp "+d, map[string]any{"exp": json.Number(d)})
		add("nbf -"+d, map[string]any{"exp": json.Number(d), "nbf": json.Number("-" + d)})
		add("nbf "+d, map[string]any{"nbf": json.Number(d)})
		add("exp -"+d, map[string]any{"exp": json.Number("-" + d)})
	}
	add("float exp in the future", map[string]any{"exp": json.Number(fmt.Sprintf("%d.25", now+60))})
	add("float exp in the past", map[string]any{"exp": json.Number(fmt.Sprintf("%d.75", now-60))})
	srv := newIntrospectionServer(t, func(*http.Request) bool { return true }, tokens)
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvIntrospectionURL:     srv.URL,
		EnvResource:             testResource,
		EnvScopes:               "mcp:control",
	})
	for name := range tokens {
		t.Run(name, func(t *testing.T) {
			got := authenticate(c, bearer(name))
			var want string
			switch {
			case strings.HasPrefix(name, "exp -"), strings.HasSuffix(name, "past"):
				want = invalidChallenge("access token is expired")
			case strings.HasPrefix(name, "nbf ") && !strings.HasPrefix(name, "nbf -"):
				want = invalidChallenge("access token is not yet valid")
			}
			if want == "" && !got.ok {
				t.Errorf("refused: status %d, %s", got.status, got.challenge)
			}
			if want != "" && (got.ok || got.challenge != want) {
				t.Errorf("got ok=%v %s, want %s", got.ok, got.challenge, want)
			}
		})
	}
}

// signClaims signs a raw JSON claims set, so that claims no time.Time
// can hold reach the server as written.
func signClaims(t *testing.T, payload string) string {
	t.Helper()
	hdr := jws.NewHeaders()
	hdr.Set(jws.KeyIDKey, "rsa1")
	out, err := jws.Sign([]byte(payload), jws.WithKey(jwa.RS256(), rsaKey, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestJWTFarFutureExpiry(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, publicJWK(t, &rsaKey.PublicKey, "rsa1", "RS256"))
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              srv.URL,
		EnvResource:             testResource,
		EnvScopes:               "mcp:control",
	})
	claims := func(times string) string {
		return `{"iss":"` + testIssuer + `","aud":"` + testResource + `","sub":"bob","scope":"mcp:control"` + times + `}`
	}
	now := time.Now().Unix()
	type tc struct {
		name, times, want string
	}
	var tests []tc
	for _, d := range farDates {
		tests = append(tests,
			tc{"exp " + d, `,"exp":` + d, ""},
			tc{"exp " + d + " nbf and iat in the past", fmt.Sprintf(`,"exp":%s,"nbf":%d,"iat":%d`, d, now-60, now-60), ""},
			tc{"exp " + d + " nbf far back", `,"exp":` + d + `,"nbf":-` + d, ""},
			tc{"exp -" + d, `,"exp":-` + d, "access token is expired"},
			tc{"nbf " + d, fmt.Sprintf(`,"exp":%d,"nbf":%s`, now+3600, d), "access token is not yet valid"},
			tc{"iat " + d, fmt.Sprintf(`,"exp":%d,"iat":%s`, now+3600, d), "access token is not yet valid"},
		)
	}
	tests = append(tests,
		tc{"float exp in the future", fmt.Sprintf(`,"exp":%d.25`, now+60), ""},
		tc{"float exp in the past", fmt.Sprintf(`,"exp":%d.75`, now-60), "access token is expired"},
		tc{"null exp", `,"exp":null`, "access token has no expiry"},
		tc{"string exp", `,"exp":"9999999999"`, "access token is malformed"},
		tc{"string nbf", fmt.Sprintf(`,"exp":%d,"nbf":"0"`, now+60), "access token is malformed"},
	)
	for _, payload := range []string{`[1]`, `null`, `"x"`} {
		if got := authenticate(c, bearer(signClaims(t, payload))); got.ok || got.challenge != invalidChallenge("access token is malformed") {
			t.Errorf("payload %s: ok=%v %s", payload, got.ok, got.challenge)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := authenticate(c, bearer(signClaims(t, claims(tc.times))))
			if tc.want == "" && (!got.ok || got.identity != "bob") {
				t.Errorf("refused: status %d, %s", got.status, got.challenge)
			}
			if tc.want != "" && (got.ok || got.challenge != invalidChallenge(tc.want)) {
				t.Errorf("got ok=%v %s, want %s", got.ok, got.challenge, tc.want)
			}
		})
	}
}

func TestUnixSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want time.Time
	}{
		{0, time.Unix(0, 0)},
		{1.5, time.Unix(1, 5e8)},
		{-1.5, time.Unix(-2, 5e8)},
		{9999999999, time.Unix(9999999999, 0)},
		{math.MaxInt64, maxNumericDate},
		{1e300, maxNumericDate},
		{-1e300, minNumericDate},
	} {
		if got := unixSeconds(tc.in); !got.Equal(tc.want) {
			t.Errorf("unixSeconds(%g) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if !maxNumericDate.After(time.Unix(9999999999, 0)) || !minNumericDate.Before(time.Unix(-9999999999, 0)) {
		t.Errorf("the clamps are not far enough: %v, %v", minNumericDate, maxNumericDate)
	}
}
