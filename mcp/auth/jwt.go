package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/httprc/v3"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// jwksVerifier validates JWT access tokens against the keys a JWKS URL
// publishes. The key set is cached by jwk.Cache (fetched again every
// jwksCacheTTL) and signatures are checked by jwx; the claims are read
// here, because jwx refuses NumericDates that time.Time cannot hold
// exactly (an exp of 2^63 seconds is far in the future, not invalid).
// This file decides which keys and algorithms are acceptable, and
// remembers recent successful verifications.
type jwksVerifier struct {
	url    string
	client *http.Client

	// res is the cached resource, read without the lock on every request.
	res atomic.Pointer[httprc.ResourceBase[jwk.Set]]

	mu          sync.Mutex // guards the fields below
	cache       *jwk.Cache // started on first use, so an idle server fetches nothing
	closed      bool
	lastForced  time.Time // last refresh forced by an unknown kid
	lastFailure time.Time // last failed refresh, and its error
	failure     error

	verified tokenCache
	clock    func() time.Time // nil: time.Now (tests move it)
}

func (v *jwksVerifier) now() time.Time {
	if v.clock != nil {
		return v.clock()
	}
	return time.Now()
}

// tokenCache remembers tokens that verified, by SHA-256, for at most
// tokenCacheTTL and never past their exp: a client reuses one access
// token for many calls, and a signature check costs far more than the
// rest of a request. A key withdrawn from the JWKS is therefore honoured
// at most tokenCacheTTL after the JWKS refresh that drops it (the JWKS
// itself is cached for five). Only successes are cached; issuer,
// audience and scopes are checked on every request.
type tokenCache struct {
	mu sync.RWMutex
	m  map[[sha256.Size]byte]claims
}

const (
	tokenCacheTTL = time.Minute
	tokenCacheMax = 4096
)

func (tc *tokenCache) get(digest [sha256.Size]byte, now time.Time) (claims, bool) {
	tc.mu.RLock()
	c, ok := tc.m[digest]
	tc.mu.RUnlock()
	if !ok || !now.Before(c.cachedUntil) {
		return claims{}, false
	}
	return c, true
}

func (tc *tokenCache) put(digest [sha256.Size]byte, c claims, now time.Time) {
	c.cachedUntil = now.Add(tokenCacheTTL)
	if !c.expires.IsZero() && c.expires.Before(c.cachedUntil) {
		c.cachedUntil = c.expires
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.m == nil {
		tc.m = map[[sha256.Size]byte]claims{}
	}
	if len(tc.m) >= tokenCacheMax {
		for k, e := range tc.m {
			if !now.Before(e.cachedUntil) {
				delete(tc.m, k)
			}
		}
		if len(tc.m) >= tokenCacheMax {
			clear(tc.m)
		}
	}
	tc.m[digest] = c
}

// allowedAlgs are the signature algorithms accepted on access tokens,
// with the key type each needs. Only asymmetric algorithms: the JWKS is
// public, so an HMAC "key" taken from it (the HS256-with-the-public-key
// attack) or alg "none" must never verify.
var allowedAlgs = map[string]jwa.KeyType{
	"RS256": jwa.RSA(), "RS384": jwa.RSA(), "RS512": jwa.RSA(),
	"PS256": jwa.RSA(), "PS384": jwa.RSA(), "PS512": jwa.RSA(),
	"ES256": jwa.EC(), "ES384": jwa.EC(), "ES512": jwa.EC(),
	"EdDSA": jwa.OKP(), "Ed25519": jwa.OKP(),
}

var (
	errUnknownKey  = errors.New("access token signing key is not in the JWKS")
	errUnavailable = errors.New("JWKS unavailable")
)

// verify checks the token's signature and time claims and returns its
// claims, or the failure to report. A token that verified recently is
// answered from the verified-token cache.
func (v *jwksVerifier) verify(ctx context.Context, raw string) (claims, *failure) {
	digest := sha256.Sum256([]byte(raw))
	now := v.now()
	if c, ok := v.verified.get(digest, now); ok {
		return c, nil
	}
	c, f := v.verifyNow(ctx, raw)
	if f == nil {
		v.verified.put(digest, c, now)
	}
	return c, f
}

func (v *jwksVerifier) verifyNow(ctx context.Context, raw string) (claims, *failure) {
	if strings.Count(raw, ".") != 2 {
		return claims{}, invalidToken("access token is malformed")
	}
	msg, err := jws.Parse([]byte(raw), jws.WithCompact())
	if err != nil || len(msg.Signatures()) != 1 {
		return claims{}, invalidToken("access token is malformed")
	}
	hdr := msg.Signatures()[0].ProtectedHeaders()
	alg, _ := hdr.Algorithm()
	kty, ok := allowedAlgs[alg.String()]
	if !ok {
		return claims{}, invalidToken(fmt.Sprintf("access token algorithm %q is not allowed", alg.String()))
	}
	kid, _ := hdr.KeyID()
	set, err := v.keySet(ctx, kid)
	if err != nil {
		return claims{}, unavailable(err)
	}
	provider := jws.KeyProviderFunc(func(_ context.Context, sink jws.KeySink, _ *jws.Signature, _ *jws.Message) error {
		found := false
		for i := range set.Len() {
			key, _ := set.Key(i)
			if !usableKey(key, kid, alg, kty) {
				continue
			}
			sink.Key(alg, key)
			found = true
		}
		if !found {
			return errUnknownKey
		}
		return nil
	})
	payload, err := jws.Verify([]byte(raw), jws.WithKeyProvider(provider))
	switch {
	case err == nil:
	case errors.Is(err, errUnknownKey):
		return claims{}, invalidToken("access token signing key is unknown")
	default:
		return claims{}, invalidToken("access token signature is invalid")
	}
	var doc map[string]any
	if err := json.Unmarshal(payload, &doc); err != nil || doc == nil {
		return claims{}, invalidToken("access token is malformed")
	}
	expires, f := checkTimes(doc, v.now())
	if f != nil {
		return claims{}, f
	}
	c := claimsOf(doc)
	c.expires = expires
	return c, nil
}

// checkTimes applies a JWT's time claims (RFC 7519 §4.1.4–§4.1.6): exp
// is required and must be in the future, nbf and iat must not be. Each
// is a NumericDate; one that is not a number makes the token malformed.
// It returns exp.
func checkTimes(doc map[string]any, now time.Time) (time.Time, *failure) {
	var dates [3]time.Time
	var present [3]bool
	for i, name := range [...]string{"exp", "nbf", "iat"} {
		t, has, ok := numericDate(doc, name)
		if has && !ok {
			return time.Time{}, invalidToken("access token is malformed")
		}
		dates[i], present[i] = t, has
	}
	exp, nbf, iat := dates[0], dates[1], dates[2]
	switch {
	case !present[0]:
		return time.Time{}, invalidToken("access token has no expiry")
	case !now.Before(exp):
		return time.Time{}, invalidToken("access token is expired")
	case present[1] && now.Before(nbf), present[2] && now.Before(iat):
		return time.Time{}, invalidToken("access token is not yet valid")
	}
	return exp, nil
}

// usableKey reports whether key may verify a token signed with alg under
// key id kid (empty: the token names no key, so any key of the right
// type is tried).
func usableKey(key jwk.Key, kid string, alg jwa.SignatureAlgorithm, kty jwa.KeyType) bool {
	if key.KeyType() != kty {
		return false
	}
	if kid != "" {
		if k, _ := key.KeyID(); k != kid {
			return false
		}
	}
	if use, ok := key.KeyUsage(); ok && use != "" && use != jwk.ForSignature.String() {
		return false
	}
	if ka, ok := key.Algorithm(); ok && ka.String() != alg.String() {
		return false
	}
	return true
}

// keySet returns the cached key set, refreshing it first when it has not
// been fetched yet or lacks kid (keys rotate); forced refreshes are rate
// limited. The common case is one atomic load, without the lock.
func (v *jwksVerifier) keySet(ctx context.Context, kid string) (jwk.Set, error) {
	if res := v.res.Load(); res != nil {
		if set := res.Resource(); set != nil && (kid == "" || hasKeyID(set, kid)) {
			return set, nil
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil, fmt.Errorf("%w: verifier closed", errUnavailable)
	}
	if v.cache == nil {
		if err := v.start(ctx); err != nil {
			return nil, fmt.Errorf("%w: %v", errUnavailable, err)
		}
	}
	res := v.res.Load()
	set := res.Resource()
	if set != nil && (kid == "" || hasKeyID(set, kid)) {
		return set, nil // another request refreshed it meanwhile
	}
	// Not fetched yet (or the first fetch failed), or kid is new.
	notFetched := set == nil
	if notFetched && time.Since(v.lastFailure) < jwksRetryGap {
		return nil, fmt.Errorf("%w: %v", errUnavailable, v.failure)
	}
	if notFetched || time.Since(v.lastForced) >= jwksForcedRefreshGap {
		if !notFetched {
			v.lastForced = time.Now()
		}
		if _, err := v.cache.Refresh(ctx, v.url); err != nil {
			v.lastFailure, v.failure = time.Now(), err
			if notFetched {
				return nil, fmt.Errorf("%w: %v", errUnavailable, err)
			}
			return set, nil
		}
		return res.Resource(), nil
	}
	return set, nil
}

// start creates the cache and registers the JWKS URL; the first fetch is
// left to the caller's refresh, so a JWKS that is down fails fast
// instead of waiting for the cache's own retry.
func (v *jwksVerifier) start(ctx context.Context) error {
	cache, err := jwk.NewCache(context.Background(), httprc.NewClient(httprc.WithWorkers(1)))
	if err != nil {
		return err
	}
	err = cache.Register(ctx, v.url,
		jwk.WithHTTPClient(v.client),
		jwk.WithWaitReady(false),
		jwk.WithMinInterval(jwksCacheTTL),
		jwk.WithMaxInterval(jwksCacheTTL),
	)
	var res *httprc.ResourceBase[jwk.Set]
	if err == nil {
		res, err = cache.LookupResource(ctx, v.url)
	}
	if err != nil {
		cache.Shutdown(context.Background())
		return err
	}
	v.cache = cache
	v.res.Store(res)
	return nil
}

func hasKeyID(set jwk.Set, kid string) bool {
	_, ok := set.LookupKeyID(kid)
	return ok
}

func (v *jwksVerifier) close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	v.res.Store(nil)
	if v.cache == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := v.cache.Shutdown(ctx)
	v.cache = nil
	return err
}
