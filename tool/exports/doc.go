// Package exports is the static exports surface of the tool registry
// (docs/spec/registry.md §8.4): it derives a harn-tools/2.0 catalog from a module's
// public functions without running anything, and calls those functions
// for the adapter that serves it (harn serve mcp --surface exports;
// `harn tool run` serves the script surface only).
//
// The flow has two halves that share one description of each export:
//
//	module file ──interp.LoadModule──▶ public fns + lang/types signatures
//	                                        │
//	             translate types to JSON Schema (lang/typeschema, JSON dialect)
//	                                        │
//	                 Catalog ◀──────────────┴──────────────▶ Load
//	   (harn tool schema --surface exports)     a *tool.Registry whose handlers
//	                                            hydrate JSON arguments, call the
//	                                            function in a VM that ran only
//	                                            module initialisation, and hand
//	                                            the outcome to tool.Invoke
//
// Nothing here owns the catalog: entries are tool.Entry values and the
// registry is prepared and invoked by package tool exactly as a published
// script registry is, so both surfaces validate arguments, results and
// declared throws through the same prepared catalog and classify
// failures the same way.
//
// Static means static. Catalog compiles the module and its imports the way
// an import would (interp.LoadModule) and reads declarations; no
// top-level statement, `main`, handler, capability or connector runs. Load
// additionally initialises the module — its top-level bindings and
// function declarations only (docs/spec/language.md §11.2) — because dispatch needs
// the function values.
//
// Types map to JSON Schema once per declaration: a non-generic struct or
// enum becomes one entry of components.schemas referenced with $ref, so
// SDK generators get named types and recursion needs no special case;
// aliases and generic instantiations are expanded inline unless they are
// recursive, in which case the recursive instance gets a component of its
// own. A type with no JSON form (closures, handles, iterators, ranges,
// durations, interfaces, unknown names) stops publication with a
// positioned error naming the function: nothing is silently dropped.
// docs/exports.md has the complete table.
package exports
