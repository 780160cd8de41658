// Package store owns the persistent key-value store of a project
// (store_get, store_set, …), kept as JSON under the state root.
package store
