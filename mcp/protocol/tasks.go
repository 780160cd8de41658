package protocol

import (
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/internal/uuids"
)

// The tasks extension (io.modelcontextprotocol/tasks, docs/spec/mcp-projection.md
// §7). A task is created for a 2026-07-28 tools/call that opts in to a
// tool that supports it; the create answer is written first and the
// tool runs right after it (on the executor, or in the background in
// parallel mode), so tasks/get and tasks/cancel, answered by the reader,
// observe a working task. Tasks belong to the server, not to a
// connection: session-free HTTP polls them from later requests.

const (
	taskTTL          = 600000
	taskPollInterval = 250

	msgWorking   = "The operation is now in progress."
	msgCompleted = "The task completed successfully."
	msgToolError = "The task produced a tool result."
	msgCancelled = "The task was cancelled by request."
)

type task struct {
	id, owner string
	created   time.Time
	cancel    *canceller

	mu      sync.Mutex
	status  string
	message string
	updated time.Time
	result  *jsonv.Object // completed: the CallToolResult
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*task
}

func newTaskStore() *taskStore { return &taskStore{tasks: map[string]*task{}} }

func (s *taskStore) create(owner string) *task {
	now := time.Now().UTC()
	t := &task{id: uuids.V7String(), owner: owner, created: now, updated: now, status: "working", message: msgWorking, cancel: &canceller{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.tasks { // expire old tasks lazily
		if now.Sub(old.created) > taskTTL*time.Millisecond {
			delete(s.tasks, id)
		}
	}
	s.tasks[t.id] = t
	return t
}

// TaskCount is the number of tasks the server holds (live or
// finished, not yet expired).
func (s *Server) TaskCount() int {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	return len(s.tasks.tasks)
}

// get finds a task for its owner; another identity never sees it.
func (s *taskStore) get(id, owner string) *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil || t.owner != owner || time.Since(t.created) > taskTTL*time.Millisecond {
		return nil
	}
	return t
}

// list is the owner's live tasks, oldest first.
func (s *taskStore) list(owner string) []*task {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*task
	for _, t := range s.tasks {
		if t.owner == owner && time.Since(t.created) <= taskTTL*time.Millisecond {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].created.Equal(out[j].created) {
			return out[i].created.Before(out[j].created)
		}
		return out[i].id < out[j].id
	})
	return out
}

func stamp(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }

// fields are the task's common fields; call with t.mu held.
func (t *task) fields() *jsonv.Object {
	o := jsonv.NewObject(9)
	o.Set("taskId", t.id)
	o.Set("status", t.status)
	o.Set("createdAt", stamp(t.created))
	o.Set("lastUpdatedAt", stamp(t.updated))
	o.Set("ttlMs", jsonv.Int(taskTTL))
	o.Set("statusMessage", t.message)
	o.Set("pollIntervalMs", jsonv.Int(taskPollInterval))
	return o
}

// createdAnswer is the tools/call answer that creates the task.
func (t *task) createdAnswer() *jsonv.Object {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.fields()
	o.Set("resultType", "task")
	meta := jsonv.NewObject(1)
	meta.Set("io.modelcontextprotocol/model-immediate-response", "The requested Harn tool ran and its result is available via tasks/get.")
	o.Set("_meta", meta)
	return o
}

func (t *task) terminal() bool { return t.status != "working" && t.status != "input_required" }

// finish records the outcome unless the task was cancelled meanwhile.
func (t *task) finish(res any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.terminal() {
		return
	}
	t.updated = time.Now().UTC()
	switch r := res.(type) {
	case *Error:
		t.status = "failed"
		t.message = "Tool execution failed: " + r.Message
	case *jsonv.Object:
		if rt, _ := r.Get("resultType"); rt == "input_required" {
			t.status = "failed"
			t.message = "Tool execution failed: " + errTaskInput.Message
			return
		}
		t.status, t.result = "completed", r
		t.message = msgCompleted
		if e, _ := r.Get("isError"); e == true {
			t.message = msgToolError
		}
	}
}

// taskMethod answers tasks/get, tasks/update, tasks/cancel and
// tasks/list.
func (c *conn) taskMethod(req *Request) any {
	if !req.TasksOptIn() {
		return MissingTasksCapability()
	}
	if req.method == "tasks/list" {
		return c.tasksList(req)
	}
	prefix := "Failed to retrieve task: "
	if req.method == "tasks/cancel" {
		prefix = "Cannot cancel task: "
	}
	iv, _ := req.params.Get("taskId")
	id, ok := iv.(string)
	if !ok || id == "" {
		return InvalidParams(prefix + "missing taskId")
	}
	t := c.srv.tasks.get(id, req.taskOwner())
	if t == nil {
		return InvalidParams(prefix + "task not found")
	}
	t.mu.Lock()
	switch req.method {
	case "tasks/cancel":
		if t.terminal() {
			status := t.status
			t.mu.Unlock()
			return InvalidParams(prefix + "already in terminal status '" + status + "'")
		}
		t.status, t.message, t.updated = "cancelled", msgCancelled, time.Now().UTC()
		t.mu.Unlock()
		t.cancel.cancel()
		return jsonv.NewObject(0)
	case "tasks/update":
		t.mu.Unlock()
		rv, _ := req.params.Get("inputResponses")
		if ro, ok := rv.(*jsonv.Object); !ok || ro.Len() == 0 {
			return InvalidParams("tasks/update requires at least one input response")
		}
		return InvalidParams("Task has no outstanding input requests")
	}
	defer t.mu.Unlock()
	o := t.fields()
	o.Set("resultType", "complete")
	switch t.status {
	case "completed":
		o.Set("result", t.result)
	case "failed":
		o.Set("error", Errorf(CodeInternalError, t.message).Object())
	}
	return o
}

// tasksList answers tasks/list: the requester's tasks, oldest first,
// paged like the other lists (docs/spec/mcp-projection.md §9).
func (c *conn) tasksList(req *Request) any {
	tasks := c.srv.tasks.list(req.taskOwner())
	items := make([]any, len(tasks))
	for i, t := range tasks {
		t.mu.Lock()
		items[i] = t.fields()
		t.mu.Unlock()
	}
	return c.listResult(req, "tasks", items)
}
