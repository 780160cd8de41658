package net

import "github.com/harnlang/harn/vm"

// MockedResponse answers a request from the http_mock doubles, as the
// http_* builtins do, for areas that make HTTP requests of their own
// (stdlib/streams' http_stream_open): ok is false when no mock matches.
// A matched request is recorded for http_mock_calls. headers' names must
// be lower case.
func MockedResponse(th *vm.Thread, method, url string, headers map[string]string, body []byte) (status int64, respHeaders *vm.Dict, raw []byte, ok bool) {
	res, raw, ok := mockResponse(th, method, url, headers, body)
	if !ok {
		return 0, nil, nil, false
	}
	s, _ := res.Get("status")
	n, _ := s.AsInt()
	h, _ := res.Get("headers")
	hd, _ := h.AsDict()
	return int64(n), hd, raw, true
}

// Exchange performs one request as the http_* builtins do — the run's
// egress policy first, then http_mock doubles, then the network, with
// the same options (headers, auth,
// query, timeout_ms, retry, …) — for areas that build requests of their
// own (stdlib/connectors' connector_call). It returns the
// {status, headers, body, ok} dict and the raw body.
func Exchange(th *vm.Thread, method, url string, body vm.Value, opts *vm.Dict) (*vm.Dict, []byte, error) {
	return httpExchange(th, method, url, body, opts)
}
