// Package evals owns the run-record and evaluation builtins of
// docs/spec/builtins.md §5 "Runs/evals/plans" (run_record, run_record_save,
// run_record_load, run_record_fixture, run_record_diff, run_record_eval,
// run_record_eval_suite, load_run_tree, eval_metric, eval_metrics,
// eval_suite_manifest, eval_suite_run, eval_pack_manifest, eval_pack_run)
// and the in-run friction, metric and event logs (friction_*, metrics_inc,
// event_log_emit). The reference names them only; the record shapes are
// this implementation's choices, docs/evals.md.
package evals
