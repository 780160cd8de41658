// Package net owns HTTP: the http_* client builtins, HTTP sessions
// (default options and a cookie jar) and the http_mock test doubles.
package net
