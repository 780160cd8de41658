package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/harnlang/harn/eventlog"
)

// The file backend (HARN_EVENT_LOG_BACKEND=file, docs/spec/orchestrator.md §4): this
// log, kept on disk in a directory as JSON lines.
//
//	<dir>/<topic>.jsonl   one record per line, in id order (the topic name
//	                      path-escaped); `tail -f` shows a topic
//	<dir>/journal.jsonl   the redo log of the inbox and the cursors
//	<dir>/.lock           held by the process that has the log open
//
// A transaction (Accept, AcceptLeased, Claim, Extend, Complete, Retry,
// SetCursor, an AppendAll of several records) is one journal line holding the delivery states it sets and the records it
// appends, written and synced before the topic files are; a plain Append
// is one topic-file line, synced. Opening replays the journal over the
// topic files, so a crash between the two writes only leaves records to
// copy, and a line torn by a crash was never acknowledged and is dropped.
// The journal is then rewritten as the current state, so it stays as
// small as the inbox. One process at a time: the directory is locked.

// disk is the persistence of a file-backed log; l.mu guards it.
type disk struct {
	dir     string
	lock    *os.File
	journal *os.File
	topics  map[string]*os.File
	failed  error // a failed write: the log refuses changes from then on
}

// journalLine is one transaction.
type journalLine struct {
	Deliveries []savedDelivery `json:"deliveries,omitempty"`
	Records    []savedRecord   `json:"records,omitempty"`
	Cursors    []savedCursor   `json:"cursors,omitempty"`
}

type savedDelivery struct {
	eventlog.Delivery
	Owner   string `json:"owner,omitempty"`
	Token   int64  `json:"token"`
	Expires int64  `json:"expires_at_ms,omitempty"`
}

type savedRecord struct {
	Topic  string          `json:"topic"`
	Record eventlog.Record `json:"record"`
}

type savedCursor struct {
	Topic    string `json:"topic"`
	Consumer string `json:"consumer"`
	Cursor   int64  `json:"cursor"`
}

// OpenDir opens (creating it if needed) the file-backed log in dir.
func OpenDir(dir string) (*Log, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("eventlog: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %v", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("eventlog: the file event log in %s is open in another process (the file backend serves one process; use sqlite or postgres for several)", dir)
	}
	l := New()
	l.disk = &disk{dir: dir, lock: lock, topics: map[string]*os.File{}}
	if err := l.load(); err != nil {
		l.disk.close()
		return nil, err
	}
	return l, nil
}

// HoldsLog says whether dir holds a file-backed log (its journal, which
// every OpenDir writes), without opening or creating anything.
func HoldsLog(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "journal.jsonl"))
	return err == nil && fi.Mode().IsRegular()
}

func (d *disk) close() {
	for _, f := range d.topics {
		f.Close()
	}
	if d.journal != nil {
		d.journal.Close()
	}
	d.lock.Close() // releases the lock
}

func topicFile(dir, topic string) string {
	return filepath.Join(dir, url.PathEscape(topic)+".jsonl")
}

// readLines calls fn for each line of path; a last line that does not
// decode (torn by a crash) is cut off the file. A bad line elsewhere is
// an error.
func readLines(path string, fn func([]byte) error) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("eventlog: %v", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var good int64
	for {
		line, rerr := r.ReadBytes('\n')
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			if err := fn(bytes.TrimSpace(line)); err != nil || !complete {
				if _, more := r.Peek(1); more == nil {
					return fmt.Errorf("eventlog: %s: corrupt line at byte %d: %v", path, good, err)
				}
				return f.Truncate(good) // the torn tail of a crash
			}
			good += int64(len(line))
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("eventlog: %s: %v", path, rerr)
		}
	}
}

// load reads the topic files, replays the journal and rewrites it.
func (l *Log) load() error {
	d := l.disk
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return fmt.Errorf("eventlog: %v", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") || name == "journal.jsonl" {
			continue
		}
		topic, err := url.PathUnescape(strings.TrimSuffix(name, ".jsonl"))
		if err != nil {
			continue
		}
		err = readLines(filepath.Join(d.dir, name), func(b []byte) error {
			var rec eventlog.Record
			if err := json.Unmarshal(b, &rec); err != nil {
				return err
			}
			if rec.ID != int64(len(l.topics[topic]))+1 {
				return fmt.Errorf("record id %d out of sequence", rec.ID)
			}
			l.topics[topic] = append(l.topics[topic], rec)
			return nil
		})
		if err != nil {
			return err
		}
	}
	var repair []savedRecord
	err = readLines(filepath.Join(d.dir, "journal.jsonl"), func(b []byte) error {
		var jl journalLine
		if err := json.Unmarshal(b, &jl); err != nil {
			return err
		}
		for _, r := range jl.Records {
			if n := int64(len(l.topics[r.Topic])); r.Record.ID == n+1 {
				l.topics[r.Topic] = append(l.topics[r.Topic], r.Record)
				repair = append(repair, r)
			}
		}
		for _, s := range jl.Deliveries {
			l.restore(s)
		}
		for _, c := range jl.Cursors {
			l.cursors[[2]string{c.Topic, c.Consumer}] = c.Cursor
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range repair { // records a crash kept out of their topic file
		if err := d.writeTopic(r.Topic, r.Record); err != nil {
			return err
		}
	}
	if err := d.syncTopics(); err != nil {
		return err
	}
	return l.compact()
}

func (l *Log) restore(s savedDelivery) {
	dl := &delivery{Delivery: s.Delivery, owner: s.Owner, token: s.Token, expires: s.Expires}
	l.deliveries[dl.ID] = dl
	if _, ok := dl.readyAt(); ok {
		l.open[dl.ID] = dl
	} else {
		delete(l.open, dl.ID)
	}
}

// compact rewrites the journal as one line per delivery and cursor.
func (l *Log) compact() error {
	d := l.disk
	path := filepath.Join(d.dir, "journal.jsonl")
	tmp, err := os.Create(path + ".tmp")
	if err != nil {
		return fmt.Errorf("eventlog: %v", err)
	}
	w := bufio.NewWriter(tmp)
	ids := make([]string, 0, len(l.deliveries))
	for id := range l.deliveries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	enc := json.NewEncoder(w)
	for _, id := range ids {
		enc.Encode(journalLine{Deliveries: []savedDelivery{save(l.deliveries[id])}})
	}
	for k, c := range l.cursors {
		enc.Encode(journalLine{Cursors: []savedCursor{{k[0], k[1], c}}})
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("eventlog: %v", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("eventlog: %v", err)
	}
	tmp.Close()
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("eventlog: %v", err)
	}
	d.journal, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("eventlog: %v", err)
	}
	return nil
}

// writable refuses a change once a write failed; l.mu is held.
func (l *Log) writable() error {
	if l.disk != nil && l.disk.failed != nil {
		return l.disk.failed
	}
	return nil
}

// flush commits what the operation changed; l.mu is held. One record
// alone is a plain append (a topic line is atomic); anything else — a
// delivery or cursor change, or records for several topics (AppendAll) —
// is a transaction.
func (l *Log) flush() error {
	if l.disk == nil {
		return nil
	}
	tx := l.tx
	l.tx = journalLine{}
	if len(tx.Deliveries)+len(tx.Cursors) == 0 && len(tx.Records) <= 1 {
		return l.disk.commit(journalLine{}, tx.Records)
	}
	return l.disk.commit(tx, nil)
}

// changed notes a delivery whose state the operation set; l.mu is held.
func (l *Log) changed(dl *delivery) {
	if l.disk != nil {
		l.tx.Deliveries = append(l.tx.Deliveries, save(dl))
	}
}

func save(dl *delivery) savedDelivery {
	return savedDelivery{Delivery: dl.Delivery, Owner: dl.owner, Token: dl.token, Expires: dl.expires}
}

func (d *disk) topicFile(topic string) (*os.File, error) {
	if f := d.topics[topic]; f != nil {
		return f, nil
	}
	f, err := os.OpenFile(topicFile(d.dir, topic), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	d.topics[topic] = f
	return f, nil
}

func (d *disk) writeTopic(topic string, rec eventlog.Record) error {
	f, err := d.topicFile(topic)
	if err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	return err
}

func (d *disk) syncTopics() error {
	for _, f := range d.topics {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// commit makes a change durable; l.mu is held. A transaction (a journal
// line) is synced first, then its records go to their topic files; a
// plain append is its topic line. A failure makes the log refuse every
// later change, since memory and disk may then differ.
func (d *disk) commit(jl journalLine, plain []savedRecord) error {
	if d.failed != nil {
		return d.failed
	}
	err := func() error {
		records := plain
		if len(jl.Deliveries)+len(jl.Records)+len(jl.Cursors) > 0 {
			b, err := json.Marshal(jl)
			if err != nil {
				return err
			}
			if _, err := d.journal.Write(append(b, '\n')); err != nil {
				return err
			}
			if err := d.journal.Sync(); err != nil {
				return err
			}
			records = jl.Records
		}
		touched := map[string]bool{}
		for _, r := range records {
			if err := d.writeTopic(r.Topic, r.Record); err != nil {
				return err
			}
			touched[r.Topic] = true
		}
		for t := range touched {
			if err := d.topics[t].Sync(); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		d.failed = fmt.Errorf("eventlog: writing %s failed, the log is read-only until reopened: %v", d.dir, err)
		return d.failed
	}
	return nil
}
