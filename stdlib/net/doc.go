// Package net owns HTTP: the http_* client builtins and the http_mock
// test doubles.
package net
