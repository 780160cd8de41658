package artifacts

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// ctor defines a named constructor: fields builds the kind's data from the
// arguments and the kind-specific options (the rest are artifact options).
func ctor(name, kind, sig, doc string, nargs int, fields func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error)) {
	lib.Def(name, sig, doc, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := lib.OptionsArg(name, a, nargs)
		if err != nil {
			return vm.Value{}, err
		}
		artOpts, extra := splitOpts(opts)
		data, err := fields(th, a, extra)
		if err != nil {
			return vm.Value{}, err
		}
		extra.Range(func(k string, v vm.Value) bool {
			if !data.Has(k) {
				data = data.Set(k, v)
			}
			return true
		})
		return build(th, name, kind, vm.Of(data), artOpts)
	})
}

func optInt(name string, d *vm.Dict, k string) (vm.Value, error) {
	v := lib.Get(d, k)
	if v.IsNil() {
		return vm.Nil, nil
	}
	if n, ok := v.AsInt(); !ok || n < 1 {
		return vm.Value{}, vm.Runtimef("%s: `%s` must be a positive int, got %s", name, k, lib.Display(v))
	}
	return v, nil
}

// idOrValue is the id of an artifact argument, or the value itself.
func idOrValue(v vm.Value) vm.Value {
	if d, ok := isArtifact(v); ok {
		return lib.Get(d, "id")
	}
	return v
}

func init() {
	lib.Def("artifact", "artifact(kind: string, data, options?: dict)",
		"a typed artifact {_type, id, kind, title, data, tags, parent, created_at, provenance}; options: id, title, tags, provenance (dict or source string), source, parent",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			kind, err := strArg("artifact", a, 0, "kind")
			if err != nil {
				return vm.Value{}, err
			}
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("artifact: missing argument 2")
			}
			opts, err := lib.OptionsArg("artifact", a, 2)
			if err != nil {
				return vm.Value{}, err
			}
			return build(th, "artifact", kind, a.At(1), opts)
		})

	ctor("artifact_workspace_file", "workspace_file", "artifact_workspace_file(path: string, content: string, options?: dict)",
		"a workspace_file artifact: data {path, content, language, lines, sha256}", 2,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			p, err := strArg("artifact_workspace_file", a, 0, "path")
			if err != nil {
				return nil, err
			}
			c, err := strArg("artifact_workspace_file", a, 1, "content")
			if err != nil {
				return nil, err
			}
			return lib.DictOf("path", vm.Str(p), "content", vm.Str(c), "language", language(p),
				"lines", lib.IntOf(len(splitLines(c))), "sha256", vm.Str(hashOf(c))), nil
		})

	ctor("artifact_workspace_snapshot", "workspace_snapshot", "artifact_workspace_snapshot(files: dict | list, options?: dict)",
		"a workspace_snapshot artifact of {path: content} or a list of workspace_file artifacts: data {files: [{path, lines, sha256}], count}, sorted by path", 1,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_workspace_snapshot"
			if !a.Has(0) {
				return nil, vm.Runtimef("%s: missing argument 1", name)
			}
			entries := map[string]string{}
			if d, ok := a.Dict(0); ok {
				var bad error
				d.Range(func(k string, v vm.Value) bool {
					s, ok := v.AsString()
					if !ok {
						bad = vm.Runtimef("%s: the content of `%s` must be a string, got %s", name, k, v.Type())
						return false
					}
					entries[k] = s.Go()
					return true
				})
				if bad != nil {
					return nil, bad
				}
			} else if l, ok := a.List(0); ok {
				for i, it := range l.Items() {
					d, ok := isArtifact(it)
					if !ok || str(d, "kind") != "workspace_file" {
						return nil, vm.Runtimef("%s: files[%d] must be a workspace_file artifact", name, i)
					}
					fd, _ := lib.Get(d, "data").AsDict()
					entries[str(fd, "path")] = str(fd, "content")
				}
			} else {
				return nil, vm.Runtimef("%s: expected dict or list at argument 1, got %s", name, a.At(0).Type())
			}
			paths := make([]string, 0, len(entries))
			for p := range entries {
				paths = append(paths, p)
			}
			slicesSort(paths)
			files := make([]vm.Value, len(paths))
			for i, p := range paths {
				files[i] = vm.Of(lib.DictOf("path", vm.Str(p), "lines", lib.IntOf(len(splitLines(entries[p]))), "sha256", vm.Str(hashOf(entries[p]))))
			}
			return lib.DictOf("files", vm.Of(lib.List(files)), "count", lib.IntOf(len(files))), nil
		})

	ctor("artifact_editor_selection", "editor_selection", "artifact_editor_selection(path: string, text: string, options?: dict)",
		"an editor_selection artifact: data {path, text, start_line, end_line, language}; options start_line, end_line (1-based)", 2,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_editor_selection"
			p, err := strArg(name, a, 0, "path")
			if err != nil {
				return nil, err
			}
			t, err := strArg(name, a, 1, "text")
			if err != nil {
				return nil, err
			}
			s, err := optInt(name, extra, "start_line")
			if err != nil {
				return nil, err
			}
			e, err := optInt(name, extra, "end_line")
			if err != nil {
				return nil, err
			}
			if !s.IsNil() && e.IsNil() {
				n, _ := s.AsInt()
				e = vm.IntOf(int64(n) + int64(max(len(splitLines(t)), 1)) - 1)
			}
			if sn, ok := s.AsInt(); ok {
				if en, ok := e.AsInt(); ok && en < sn {
					return nil, vm.Runtimef("%s: end_line %d is before start_line %d", name, en, sn)
				}
			}
			return lib.DictOf("path", vm.Str(p), "text", vm.Str(t), "start_line", s, "end_line", e, "language", language(p)), nil
		})

	diffData := func(name string) func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
		return func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			d, err := strArg(name, a, 0, "diff")
			if err != nil {
				return nil, err
			}
			files, add, del := diffStats(d)
			return lib.DictOf("diff", vm.Str(d), "files", vm.Of(lib.StrList(files)), "additions", lib.IntOf(add), "deletions", lib.IntOf(del)), nil
		}
	}
	ctor("artifact_git_diff", "git_diff", "artifact_git_diff(diff: string, options?: dict)",
		"a git_diff artifact of unified diff text (as git diff prints it): data {diff, files, additions, deletions}", 1, diffData("artifact_git_diff"))

	ctor("artifact_diff", "diff", "artifact_diff(before: string, after: string, options?: dict)",
		"a diff artifact of two texts: data {path, before, after, diff (unified, whole file), additions, deletions}; option path", 2,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_diff"
			b, err := strArg(name, a, 0, "before")
			if err != nil {
				return nil, err
			}
			af, err := strArg(name, a, 1, "after")
			if err != nil {
				return nil, err
			}
			p := lib.Get(extra, "path")
			ps, ok := p.AsString()
			if !p.IsNil() && !ok {
				return nil, vm.Runtimef("%s: `path` must be a string, got %s", name, p.Type())
			}
			text, add, del := lineDiff(ps.Go(), b, af)
			return lib.DictOf("path", p, "before", vm.Str(b), "after", vm.Str(af), "diff", vm.Str(text), "additions", lib.IntOf(add), "deletions", lib.IntOf(del)), nil
		})

	ctor("artifact_diff_review", "diff_review", "artifact_diff_review(diff, comments: list, options?: dict)",
		"a diff_review artifact: data {diff (an artifact's id, or the diff text), comments, comment_count}; each comment a string or a dict", 2,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_diff_review"
			if !a.Has(1) {
				return nil, vm.Runtimef("%s: missing argument %d", name, a.Len()+1)
			}
			l, ok := a.List(1)
			if !ok {
				return nil, vm.Runtimef("%s: comments must be a list, got %s", name, a.At(1).Type())
			}
			return lib.DictOf("diff", idOrValue(a.At(0)), "comments", a.At(1), "comment_count", lib.IntOf(l.Len())), nil
		})

	ctor("artifact_patch_proposal", "patch_proposal", "artifact_patch_proposal(patch: string, summary: string, options?: dict)",
		"a patch_proposal artifact: data {patch, summary, files, additions, deletions}", 2,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_patch_proposal"
			p, err := strArg(name, a, 0, "patch")
			if err != nil {
				return nil, err
			}
			s, err := strArg(name, a, 1, "summary")
			if err != nil {
				return nil, err
			}
			files, add, del := diffStats(p)
			return lib.DictOf("patch", vm.Str(p), "summary", vm.Str(s), "files", vm.Of(lib.StrList(files)), "additions", lib.IntOf(add), "deletions", lib.IntOf(del)), nil
		})

	ctor("artifact_review_decision", "review_decision", "artifact_review_decision(target, decision: string, options?: dict)",
		`a review_decision artifact: data {target (an artifact's id, or the value), decision: "approve"|"reject"|"request_changes", approved, reason, reviewer}`, 2,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_review_decision"
			d, err := strArg(name, a, 1, "decision")
			if err != nil {
				return nil, err
			}
			if d != "approve" && d != "reject" && d != "request_changes" {
				return nil, vm.Runtimef("%s: decision must be \"approve\", \"reject\" or \"request_changes\", got %q", name, d)
			}
			return lib.DictOf("target", idOrValue(a.At(0)), "decision", vm.Str(d), "approved", vm.BoolOf(d == "approve"),
				"reason", lib.Get(extra, "reason"), "reviewer", lib.Get(extra, "reviewer")), nil
		})

	ctor("artifact_test_result", "test_result", "artifact_test_result(name: string, status: string | bool, options?: dict)",
		`a test_result artifact: data {name, status: "passed"|"failed"|"skipped", passed, output, duration_ms}; a bool status means passed/failed`, 2,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_test_result"
			n, err := strArg(name, a, 0, "name")
			if err != nil {
				return nil, err
			}
			if !a.Has(1) {
				return nil, vm.Runtimef("%s: missing argument 2", name)
			}
			var st string
			if b, ok := a.Bool(1); ok {
				st = map[bool]string{true: "passed", false: "failed"}[b]
			} else if s, ok := a.Str(1); ok && (s == "passed" || s == "failed" || s == "skipped") {
				st = s
			} else {
				return nil, vm.Runtimef("%s: status must be \"passed\", \"failed\", \"skipped\" or a bool, got %s", name, lib.Display(a.At(1)))
			}
			return lib.DictOf("name", vm.Str(n), "status", vm.Str(st), "passed", vm.BoolOf(st == "passed"),
				"output", lib.Get(extra, "output"), "duration_ms", lib.Get(extra, "duration_ms")), nil
		})

	ctor("artifact_command_result", "command_result", "artifact_command_result(command: string, result: dict, options?: dict)",
		"a command_result artifact from exec/shell's {stdout, stderr, status}: data {command, stdout, stderr, status, success}", 2,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_command_result"
			c, err := strArg(name, a, 0, "command")
			if err != nil {
				return nil, err
			}
			if !a.Has(1) {
				return nil, vm.Runtimef("%s: missing argument 2", name)
			}
			r, ok := a.Dict(1)
			if !ok {
				return nil, vm.Runtimef("%s: result must be a dict {stdout, stderr, status}, got %s", name, a.At(1).Type())
			}
			status := lib.Get(r, "status")
			if status.IsNil() {
				status = lib.Get(r, "exit_code")
			}
			sn, ok := status.AsInt()
			if !ok {
				return nil, vm.Runtimef("%s: result.status must be an int, got %s", name, status.Type())
			}
			return lib.DictOf("command", vm.Str(c), "stdout", vm.Str(str(r, "stdout")), "stderr", vm.Str(str(r, "stderr")),
				"status", status, "success", vm.BoolOf(sn == 0)), nil
		})

	ctor("artifact_verification_result", "verification_result", "artifact_verification_result(check: string, passed: bool, options?: dict)",
		"a verification_result artifact: data {check, passed, details}", 2,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_verification_result"
			c, err := strArg(name, a, 0, "check")
			if err != nil {
				return nil, err
			}
			if !a.Has(1) {
				return nil, vm.Runtimef("%s: missing argument 2", name)
			}
			p, ok := a.Bool(1)
			if !ok {
				return nil, vm.Runtimef("%s: passed must be a bool, got %s", name, a.At(1).Type())
			}
			return lib.DictOf("check", vm.Str(c), "passed", vm.BoolOf(p), "details", lib.Get(extra, "details")), nil
		})

	ctor("artifact_verification_bundle", "verification_bundle", "artifact_verification_bundle(results: list, options?: dict)",
		"a verification_bundle artifact of verification_result/test_result/command_result artifacts: data {items (ids), total, passed, failed (ids), all_passed}", 1,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_verification_bundle"
			if !a.Has(0) {
				return nil, vm.Runtimef("%s: missing argument 1", name)
			}
			l, ok := a.List(0)
			if !ok {
				return nil, vm.Runtimef("%s: results must be a list of artifacts, got %s", name, a.At(0).Type())
			}
			var ids, failed []vm.Value
			for i, it := range l.Items() {
				d, ok := isArtifact(it)
				if !ok {
					return nil, vm.Runtimef("%s: results[%d] is not an artifact", name, i)
				}
				data, _ := lib.Get(d, "data").AsDict()
				var pass bool
				switch str(d, "kind") {
				case "verification_result", "test_result":
					b, _ := lib.Get(data, "passed").AsBool()
					pass = bool(b)
				case "command_result":
					b, _ := lib.Get(data, "success").AsBool()
					pass = bool(b)
				default:
					return nil, vm.Runtimef("%s: results[%d] is a %s artifact; expected verification_result, test_result or command_result", name, i, str(d, "kind"))
				}
				ids = append(ids, lib.Get(d, "id"))
				if !pass {
					failed = append(failed, lib.Get(d, "id"))
				}
			}
			return lib.DictOf("items", vm.Of(lib.List(ids)), "total", lib.IntOf(len(ids)), "passed", lib.IntOf(len(ids)-len(failed)),
				"failed", vm.Of(lib.List(failed)), "all_passed", vm.BoolOf(len(failed) == 0)), nil
		})

	ctor("artifact_apply_intent", "apply_intent", "artifact_apply_intent(target, options?: dict)",
		`an apply_intent artifact (the intent to apply a patch proposal): data {target (an artifact's id), target_kind, files, approved_by, mode ("apply" unless given)}`, 1,
		func(th *vm.Thread, a vm.Args, extra *vm.Dict) (*vm.Dict, error) {
			const name = "artifact_apply_intent"
			d, err := artifactArg(name, a, 0)
			if err != nil {
				return nil, err
			}
			data, _ := lib.Get(d, "data").AsDict()
			files := vm.Nil
			if data != nil {
				files = lib.Get(data, "files")
				if files.IsNil() && !lib.Get(data, "path").IsNil() {
					files = vm.Of(lib.List([]vm.Value{lib.Get(data, "path")}))
				}
			}
			mode := lib.Get(extra, "mode")
			if mode.IsNil() {
				mode = vm.Str("apply")
			}
			return lib.DictOf("target", lib.Get(d, "id"), "target_kind", lib.Get(d, "kind"), "files", files,
				"approved_by", lib.Get(extra, "approved_by"), "mode", mode), nil
		})
}
