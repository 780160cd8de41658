package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog"
)

// A group's row of appending steps runs as one step (one head bump per
// topic), each step getting the ids it would have got alone; when one
// of them fails, the row runs step by step and only that one fails.
func TestGroupMergesAppendingSteps(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Another connection counts the head bumps and refuses records of
	// kind poison.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE bumps (topic TEXT)`,
		`CREATE TRIGGER bump_insert AFTER INSERT ON topic_heads BEGIN INSERT INTO bumps VALUES (NEW.topic); END`,
		`CREATE TRIGGER bump_update AFTER UPDATE ON topic_heads BEGIN INSERT INTO bumps VALUES (NEW.topic); END`,
		`CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.kind = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(topic, kind string) eventlog.TopicRecord {
		return eventlog.TopicRecord{Topic: topic, Record: eventlog.Record{Kind: kind, Payload: []byte(`{}`)}}
	}
	// commit runs a group as the writer would and returns each step's
	// outcome.
	commit := func(group ...*op) []error {
		for _, o := range group {
			o.done = make(chan error, 1)
		}
		l.commit(group)
		errs := make([]error, len(group))
		for i, o := range group {
			errs[i] = <-o.done
		}
		return errs
	}
	bumps := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM bumps`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		db.Exec(`DELETE FROM bumps`)
		return n
	}

	a, b := appendOp(ctx, []eventlog.TopicRecord{rec("t1", "a"), rec("t1", "a")}), appendOp(ctx, []eventlog.TopicRecord{rec("t2", "b")})
	c, d := appendOp(ctx, []eventlog.TopicRecord{rec("t1", "c"), rec("t2", "c"), rec("t1", "c")}), appendOp(ctx, []eventlog.TopicRecord{rec("t1", "d")})
	for i, err := range commit(a, b, c, d) {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if got, want := [][]int64{a.ids, b.ids, c.ids, d.ids}, [][]int64{{1, 2}, {1}, {3, 2, 4}, {5}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	if n := bumps(); n != 2 {
		t.Errorf("%d head bumps for two topics, want 2", n)
	}

	// A step that is not an append ends the row.
	var cursorSet bool
	e, p, f := appendOp(ctx, []eventlog.TopicRecord{rec("t1", "e")}), appendOp(ctx, []eventlog.TopicRecord{rec("t1", "poison")}), appendOp(ctx, []eventlog.TopicRecord{rec("t1", "f")})
	other := &op{ctx: ctx, fn: func(t tx) error { cursorSet = true; return nil }}
	g := appendOp(ctx, []eventlog.TopicRecord{rec("t2", "g")})
	errs := commit(e, p, f, other, g)
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "poisoned") {
		t.Errorf("poisoned step: %v", errs[1])
	}
	for _, i := range []int{0, 2, 3, 4} {
		if errs[i] != nil {
			t.Errorf("step %d: %v", i, errs[i])
		}
	}
	if got, want := [][]int64{e.ids, f.ids, g.ids}, [][]int64{{6}, {7}, {3}}; !reflect.DeepEqual(got, want) || !cursorSet {
		t.Errorf("ids %v, want %v (other step ran: %v)", got, want, cursorSet)
	}
	var kinds []string
	rows, err := db.Query(`SELECT topic || '/' || event_id || '=' || kind FROM events ORDER BY topic, event_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		kinds = append(kinds, k)
	}
	rows.Close()
	want := []string{"t1/1=a", "t1/2=a", "t1/3=c", "t1/4=c", "t1/5=d", "t1/6=e", "t1/7=f", "t2/1=b", "t2/2=c", "t2/3=g"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("stored %v, want %v", kinds, want)
	}
}

// A group that is all appending steps commits them as one step without
// a savepoint; when a record fails, the group runs again step by step,
// and only that step fails, the others getting the ids they would have
// got alone and nothing of the first attempt left behind.
func TestGroupOfAppendsNeedsNoSavepoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.kind = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`); err != nil {
		t.Fatal(err)
	}
	commit := func(group ...*op) []error {
		for _, o := range group {
			o.done = make(chan error, 1)
		}
		l.commit(group)
		errs := make([]error, len(group))
		for i, o := range group {
			errs[i] = <-o.done
		}
		return errs
	}
	rec := func(kind string) []eventlog.TopicRecord {
		return []eventlog.TopicRecord{{Topic: "t", Record: eventlog.Record{Kind: kind, Payload: []byte(`{}`)}}}
	}

	l.savepoints = 0
	a, b := appendOp(ctx, rec("a")), appendOp(ctx, rec("b"))
	if errs := commit(a, b); errs[0] != nil || errs[1] != nil {
		t.Fatalf("appends: %v", errs)
	}
	if l.savepoints != 0 || a.ids[0] != 1 || b.ids[0] != 2 {
		t.Errorf("%d savepoints, ids %v %v; want none, 1 and 2", l.savepoints, a.ids, b.ids)
	}

	c, p, d := appendOp(ctx, rec("c")), appendOp(ctx, rec("poison")), appendOp(ctx, rec("d"))
	errs := commit(c, p, d)
	if errs[0] != nil || errs[2] != nil || errs[1] == nil || !strings.Contains(errs[1].Error(), "poisoned") {
		t.Fatalf("with a poisoned record: %v", errs)
	}
	if c.ids[0] != 3 || d.ids[0] != 4 {
		t.Errorf("ids %v %v after the retry, want 3 and 4", c.ids, d.ids)
	}
	var kinds []string
	rows, err := db.Query(`SELECT event_id || '=' || kind FROM events WHERE topic = 't' ORDER BY event_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		kinds = append(kinds, k)
	}
	rows.Close()
	if want := []string{"1=a", "2=b", "3=c", "4=d"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("stored %v, want %v", kinds, want)
	}
}

// A step whose savepoint cannot be rolled back (its failure took the
// whole transaction with it) fails the group: no later step may run, and
// commit, outside the transaction while its caller is told it failed.
func TestGroupLostTransactionStoresNothing(t *testing.T) {
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(t.TempDir(), "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rec := func(kind string) []eventlog.TopicRecord {
		return []eventlog.TopicRecord{{Topic: "t", Record: eventlog.Record{Kind: kind, Payload: []byte(`{}`)}}}
	}
	lose := &op{ctx: ctx, fn: func(t tx) error {
		t.ExecContext(ctx, "ROLLBACK")
		return errors.New("lost")
	}}
	group := []*op{appendOp(ctx, rec("a")), lose, appendOp(ctx, rec("c"))}
	for _, o := range group {
		o.done = make(chan error, 1)
	}
	l.commit(group)
	for i, o := range group {
		if err := <-o.done; err == nil {
			t.Errorf("step %d succeeded in a lost transaction", i)
		}
	}
	got, err := l.Read(ctx, "t", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("%d records stored by steps told they failed", len(got))
	}
}

// The writer keeps its statement journals (each step's savepoint) in
// memory rather than spilling them to temporary files.
func TestWriterStatementJournalInMemory(t *testing.T) {
	l, err := Open(context.Background(), filepath.Join(t.TempDir(), "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var store int
	if err := l.w.QueryRow(`PRAGMA temp_store`).Scan(&store); err != nil {
		t.Fatal(err)
	}
	if store != 2 {
		t.Errorf("writer temp_store = %d, want 2 (MEMORY)", store)
	}
}

// An AppendAll whose records alternate between topics (the MCP
// recorder's batch: a scan's audit, then its action-graph record, call
// after call) bumps each topic's head once, not once per record, and
// still gives each record the id it would have had in order.
func TestAppendAllInterleavedTopicsBumpEachHeadOnce(t *testing.T) {
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(t.TempDir(), "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var batch []eventlog.TopicRecord
	for i := range 50 {
		for _, topic := range []string{"audit", "graph"} {
			batch = append(batch, eventlog.TopicRecord{Topic: topic, Record: eventlog.Record{Kind: fmt.Sprint(topic, i), Payload: []byte(`{}`)}})
		}
	}
	before := l.bumps
	ids, err := l.AppendAll(ctx, batch...)
	if err != nil {
		t.Fatal(err)
	}
	if n := l.bumps - before; n != 2 {
		t.Errorf("%d head bumps for two topics", n)
	}
	for i, id := range ids {
		if id != int64(i/2+1) {
			t.Fatalf("record %d (%s) has id %d, want %d", i, batch[i].Record.Kind, id, i/2+1)
		}
	}
	for _, topic := range []string{"audit", "graph"} {
		recs, _ := l.Read(ctx, topic, 0, 0)
		for i, r := range recs {
			if r.Kind != fmt.Sprint(topic, i) || r.ID != int64(i+1) {
				t.Fatalf("%s record %d: %s id %d", topic, i, r.Kind, r.ID)
			}
		}
	}
}
