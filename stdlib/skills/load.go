package skills

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/harnlang/harn/stdlib/formats"
	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/frontmatter"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// load_skill reads a skill file (docs/skills.md, "Skill files"):
// optional front matter — YAML between `---` lines or TOML between `+++`
// lines — whose fields become the skill's fields (`-` in a key read as
// `_`, so `when-to-use` is when_to_use), and a Markdown body, which
// becomes its instructions. Without a name in the front matter the skill
// is named after the file: its directory for a SKILL file, else the file name
// without its extension.

func init() {
	lib.Def("load_skill", "load_skill(path: string) -> dict", "the skill a SKILL.md file (or a directory holding one) defines", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("load_skill: path must be a string, got %s", a.At(0).Type())
		}
		full := fs.ResolvePath(th, p)
		if st, err := os.Stat(full); err == nil && st.IsDir() {
			full = filepath.Join(full, "SKILL.md")
		}
		// a skill file is prompt text: read strictly, as templates are
		// (docs/spec/builtins.md §4.8), not with replacement characters
		data, err := fs.ReadText(full)
		if err != nil {
			return vm.Value{}, vm.Throwf("load_skill: cannot read %s: %s", full, fs.OSErrorText(err))
		}
		s, err := parseSkillFile(full, data)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(s), nil
	})
}

// parseSkillFile builds the skill of a skill file's text read from file.
func parseSkillFile(file, text string) (*vm.Dict, error) {
	who := "load_skill: " + file
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\ufeff")
	fields := vm.NewDict()
	body := text
	first, rest, _ := strings.Cut(text, "\n")
	if delim := strings.TrimRight(first, " \t"); delim == "---" || delim == "+++" {
		front, after, _, ok := frontmatter.Close(rest, delim, " \t")
		if !ok {
			return nil, vm.Throwf("%s: the front matter opened by %s is not closed", who, delim)
		}
		var v vm.Value
		var perr error
		lang := "YAML"
		if delim == "+++" {
			lang = "TOML"
			v, perr = formats.ParseTOML(front)
		} else {
			v, perr = formats.ParseYAML(front)
		}
		if perr != nil {
			return nil, vm.Throwf("%s: %s front matter: %s", who, lang, perr)
		}
		if !v.IsNil() {
			d, ok := v.AsDict()
			if !ok {
				return nil, vm.Throwf("%s: the front matter must be a table of fields, got %s", who, v.Type())
			}
			d.Range(func(k string, val vm.Value) bool {
				fields = fields.Set(strings.ReplaceAll(k, "-", "_"), val)
				return true
			})
		}
		body = after
	}
	if body = strings.TrimSpace(body); body != "" {
		if fields.Has(fInstructions) || fields.Has(fBody) {
			return nil, vm.Throwf("%s: instructions are given both in the front matter and as the body", who)
		}
		fields = fields.Set(fInstructions, vm.Str(body))
	}
	name, ok := fields.Get(fName)
	if !ok {
		name = vm.Str(defaultName(file))
	}
	fields = fields.Set("source", vm.Str(file))
	return build(who, name, fields)
}

// defaultName names a skill after its file: the directory of a SKILL file,
// else the file name without its extension.
func defaultName(file string) string {
	base := filepath.Base(file)
	if strings.EqualFold(base, "SKILL.md") {
		return filepath.Base(filepath.Dir(file))
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}
