// Package checkpoints owns durable per-pipeline checkpoints (checkpoint,
// checkpoint_get, checkpoint_exists, checkpoint_delete, checkpoint_list,
// checkpoint_clear): JSON values saved under the state root so that a
// re-run of a script resumes from what an earlier run saved
// (docs/checkpoints.md).
package checkpoints
