package mcp

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"github.com/harnlang/harn/tool/jsonv"
	"github.com/harnlang/harn/vm"
)

// The tasks extension (io.modelcontextprotocol/tasks, mcp-projection.md
// §7). A task is created for a 2026-07-28 tools/call that opts in; the
// create answer is written first and the handler runs right after it on
// the executor, so tasks/get and tasks/cancel (answered by the reader)
// observe a working task.

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

	mu      sync.Mutex
	status  string
	message string
	updated time.Time
	result  *jsonv.Object // completed: the CallToolResult
	failure string        // failed: the error message
	thread  *vm.Thread
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*task
}

func newTaskStore() *taskStore { return &taskStore{tasks: map[string]*task{}} }

func (s *taskStore) create(owner string) *task {
	now := time.Now().UTC()
	t := &task{id: uuidv7(now), owner: owner, created: now, updated: now, status: "working", message: msgWorking}
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

// uuidv7 is an RFC 9562 version 7 UUID.
func uuidv7(now time.Time) string {
	var b [16]byte
	rand.Read(b[6:])
	ms := uint64(now.UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
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

// created is the tools/call answer that creates the task.
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

func (t *task) start(th *vm.Thread) {
	t.mu.Lock()
	t.thread = th
	cancelled := t.status == "cancelled"
	t.mu.Unlock()
	if cancelled {
		th.Cancel()
	}
}

func (t *task) terminal() bool { return t.status != "working" && t.status != "input_required" }

// finish records the outcome unless the task was cancelled meanwhile.
func (t *task) finish(res any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.thread = nil
	if t.terminal() {
		return
	}
	t.updated = time.Now().UTC()
	switch r := res.(type) {
	case *rpcError:
		t.status, t.failure = "failed", r.Message
		t.message = "Tool execution failed: " + r.Message
	case *jsonv.Object:
		if rt, _ := r.Get("resultType"); rt == "input_required" {
			t.status, t.failure = "failed", errTaskInput.Message
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

// runTask runs a task's handler on the executor.
func (c *conn) runTask(req *request, call *toolCall, t *task) {
	res := c.runTool(req, call, t)
	if o, ok := res.(*jsonv.Object); ok && req.modern && !o.Has("resultType") {
		o.Set("resultType", "complete") // stored exactly as the inline answer
	}
	t.finish(res)
}

// taskMethod answers tasks/get, tasks/update and tasks/cancel.
func (c *conn) taskMethod(req *request) any {
	if !req.tasksOptIn() {
		return missingTasksCapability()
	}
	prefix := "Failed to retrieve task: "
	if req.method == "tasks/cancel" {
		prefix = "Cannot cancel task: "
	}
	iv, _ := req.params.Get("taskId")
	id, ok := iv.(string)
	if !ok || id == "" {
		return invalidParams(prefix + "missing taskId")
	}
	t := c.srv.tasks.get(id, req.identity)
	if t == nil {
		return invalidParams(prefix + "task not found")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch req.method {
	case "tasks/cancel":
		if t.terminal() {
			return invalidParams(prefix + "already in terminal status '" + t.status + "'")
		}
		t.status, t.message, t.updated = "cancelled", msgCancelled, time.Now().UTC()
		if t.thread != nil {
			t.thread.Cancel()
		}
		return jsonv.NewObject(0)
	case "tasks/update":
		rv, _ := req.params.Get("inputResponses")
		if ro, ok := rv.(*jsonv.Object); !ok || ro.Len() == 0 {
			return invalidParams("tasks/update requires at least one input response")
		}
		return invalidParams("Task has no outstanding input requests")
	}
	o := t.fields()
	o.Set("resultType", "complete")
	switch t.status {
	case "completed":
		o.Set("result", t.result)
	case "failed":
		o.Set("error", errorf(codeInternalError, t.message).object())
	}
	return o
}
