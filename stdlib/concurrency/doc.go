// Package concurrency owns tasks, channels, generators and streams,
// parallel maps, deadlines, mutex blocks and atomics (docs/spec/builtins.md §4.8):
// spawn/await/cancel, channel/send/receive/select, the __generator,
// __parallel, __spawn, __deadline_* and __mutex_* hooks the compiler emits.
package concurrency
