package policy

// The deterministic rule table of command_risk_scan (docs/policy.md, "Rule
// table"). docs/spec/builtins.md §5 names the builtins only; the rules,
// levels and categories are this implementation's choice. A command's risk
// is the highest level of the rules it matches ("low" when none does).

import (
	"github.com/harnlang/harn/vm"
	"regexp"
	"strings"
	"sync"
)

// Levels are the risk levels, lowest first.
var Levels = []string{"low", "medium", "high", "critical"}

// levelRank is the position of a level in Levels, -1 when unknown.
func levelRank(s string) int {
	for i, l := range Levels {
		if l == s {
			return i
		}
	}
	return -1
}

// rule is one entry of the table.
type rule struct {
	id, category, level, reason string
	re                          *regexp.Regexp
}

// sep is what may precede a command word: the start, a separator of a
// pipeline or list, a subshell or whitespace after env assignments.
const sep = `(?:^|[;&|(\x60]\s*|\$\(\s*|\bthen\s+|\bdo\s+|\s)`

// sensitive are system locations a command should not write to.
const sensitive = `(?:/etc|/usr|/bin|/sbin|/boot|/lib|/lib64|/sys|/proc|/dev/(?:sd|hd|nvme|xvd|vd|mmcblk|disk)|/var/lib|/root|~/\.ssh|~/\.bashrc|~/\.zshrc|~/\.profile|\$HOME/\.ssh)`

// ruleTable is built on first use: compiling its expressions at init
// would cost every harn-full start, most of which never scan a command.
var ruleTable = sync.OnceValue(func() []rule {
	return []rule{
		// critical
		{"rm_root", "destructive", "critical", "recursive delete of the root, home or every file",
			regexp.MustCompile(sep + `rm\s+(?:-\S+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-\S+\s+)*(?:/|/\*|~|~/|~/\*|\$HOME|\$HOME/|\$HOME/\*|\*|\.|\./\*)(?:\s|$|[;&|)])`)},
		{"rm_no_preserve_root", "destructive", "critical", "rm with --no-preserve-root",
			regexp.MustCompile(sep + `rm\s.*--no-preserve-root`)},
		{"fork_bomb", "resource_exhaustion", "critical", "fork bomb",
			regexp.MustCompile(`(\w+|:)\s*\(\)\s*\{\s*(\w+|:)\s*\|\s*(\w+|:)\s*&\s*\}\s*;\s*(\w+|:)`)},
		{"disk_overwrite", "destructive", "critical", "raw write to a disk device",
			regexp.MustCompile(`(?:\bdd\b[^;&|]*\bof=/dev/(?:sd|hd|nvme|xvd|vd|mmcblk|disk)|>\s*/dev/(?:sd|hd|nvme|xvd|vd|mmcblk|disk))`)},
		{"mkfs", "destructive", "critical", "formats a filesystem",
			regexp.MustCompile(sep + `mkfs(?:\.\w+)?\b`)},
		{"pipe_to_shell", "remote_code", "critical", "downloads a script and runs it",
			regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^;&]*\|\s*(?:sudo\s+)?(?:env\s+)?(?:ba|z|k|da|fi)?sh\b|\b(?:curl|wget)\b[^;&]*\|\s*(?:sudo\s+)?(?:python\d?|perl|ruby|node)\b|\b(?:ba|z)?sh\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b|\beval\s+["']?\$\(\s*(?:curl|wget)\b`)},
		// high
		{"sudo", "privilege", "high", "runs with elevated privileges (sudo/su/doas)",
			regexp.MustCompile(sep + `(?:sudo|doas|su)\b`)},
		{"chmod_world_writable", "permissions", "high", "makes files world-writable (chmod 777 / a+w / o+w)",
			regexp.MustCompile(sep + `chmod\s+(?:-\S+\s+)*(?:0?777|[0-7]?[0-7][0-7][2367]|(?:a|o|ugo)\+[rwx]*w)\b`)},
		{"chown_root", "permissions", "high", "changes ownership recursively or to root",
			regexp.MustCompile(sep + `chown\s+(?:-\S*R\S*\s+|root\b)`)},
		{"git_force_push", "vcs", "high", "force-pushes, rewriting remote history",
			regexp.MustCompile(`\bgit\s+(?:-\S+\s+)*push\b[^;&|]*(?:\s--force(?:-with-lease)?\b|\s-[a-zA-Z]*f\b|\s\+\S+)`)},
		{"sql_drop", "database", "high", "drops or truncates a database object",
			regexp.MustCompile(`(?i)\b(?:drop\s+(?:table|database|schema|index|view|user)|truncate\s+(?:table\s+)?\w)`)},
		{"system_write", "filesystem", "high", "writes to a system or credential location",
			regexp.MustCompile(`(?:>>?\s*|\btee\s+(?:-a\s+)?|\b(?:cp|mv|ln|install)\s+(?:\S+\s+)+)` + sensitive + `\b`)},
		{"exfiltration", "exfiltration", "high", "sends local data to the network",
			regexp.MustCompile(`\bcurl\b[^;&|]*(?:\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s*["']?@|\s-T\s)|\bwget\b[^;&|]*--post-file|\b(?:nc|ncat|netcat|socat)\b[^;&|]*<\s*\S|\|\s*(?:nc|ncat|netcat)\s+\S+\s+\d+|\b(?:scp|rsync)\b[^;&|]*\s\S+@\S+:|\b(?:curl|wget)\b[^;&|]*\$\(\s*(?:env|printenv|cat)\b|\b(?:env|printenv)\b[^;&]*\|\s*(?:curl|nc|ncat)\b`)},
		{"credential_read", "secrets", "high", "reads credentials or private keys",
			regexp.MustCompile(`(?:~|\$HOME|/root|/home/\w+)/\.(?:ssh/id_\w+|aws/credentials|netrc|docker/config\.json|kube/config|git-credentials)|/etc/(?:shadow|sudoers)\b`)},
		{"power", "system", "high", "shuts down or reboots the machine",
			regexp.MustCompile(sep + `(?:shutdown|reboot|halt|poweroff|init\s+[06])\b`)},
		{"firewall_flush", "system", "high", "flushes the firewall",
			regexp.MustCompile(sep + `(?:iptables\s+-F|ufw\s+disable)`)},
		// medium
		{"rm_recursive", "destructive", "medium", "deletes recursively or by force",
			regexp.MustCompile(sep + `rm\s+(?:-\S+\s+)*-[a-zA-Z]*[rRf]`)},
		{"git_destructive", "vcs", "medium", "discards local changes or history (reset --hard, clean -f, branch -D, checkout .)",
			regexp.MustCompile(`\bgit\s+(?:reset\s+--hard|clean\s+-\S*f|branch\s+-D|checkout\s+(?:--\s+)?\.(?:\s|$)|restore\s+\.(?:\s|$)|stash\s+(?:drop|clear))`)},
		{"sql_delete_all", "database", "medium", "DELETE or UPDATE without WHERE",
			regexp.MustCompile(`(?i)\b(?:delete\s+from\s+\w+|update\s+\w+\s+set\s[^;]*?)\s*(?:;|$|["'])`)},
		{"kill_all", "system", "medium", "kills many processes",
			regexp.MustCompile(sep + `(?:kill\s+-9\s+-1\b|killall\b|pkill\b)`)},
		{"package_install", "install", "medium", "installs packages",
			regexp.MustCompile(sep + `(?:(?:apt|apt-get|yum|dnf|brew|apk|pacman)\s+(?:-\S+\s+)*(?:install|add|-S)\b|pip3?\s+install\b|npm\s+(?:i|install)\s[^;&|]*(?:-g|--global)\b|gem\s+install\b|cargo\s+install\b|go\s+install\b)`)},
		{"env_dump", "secrets", "medium", "prints the environment (may reveal secrets)",
			regexp.MustCompile(sep + `(?:env|printenv|set)\s*(?:$|[;&|>])`)},
		{"history_tamper", "evasion", "medium", "clears or disables shell history",
			regexp.MustCompile(`\bhistory\s+-c\b|\bunset\s+HISTFILE\b|HISTFILE=/dev/null`)},
		{"crontab", "persistence", "medium", "edits scheduled jobs",
			regexp.MustCompile(sep + `crontab\s+(?:-r|-e|\S)`)},
		{"eval", "dynamic_code", "medium", "evaluates dynamically built code",
			regexp.MustCompile(sep + `eval\s`)},
		// low
		{"network", "network", "low", "uses the network",
			regexp.MustCompile(sep + `(?:curl|wget|ssh|scp|rsync|nc|ncat|telnet|ftp|git\s+(?:push|pull|fetch|clone))\b`)},
	}
})

// scan returns the rules command matches, in table order. A rule that a
// stronger rule of the same category already covers is still reported.
func scan(command string) []*rule {
	out, _ := scanInterruptible(nil, command)
	return out
}

// scanInterruptible is scan that, given a thread, lets it be interrupted
// between rules: each rule's expression runs over the whole command,
// which takes a while on a long one.
func scanInterruptible(th *vm.Thread, command string) ([]*rule, error) {
	cmd := strings.TrimSpace(command)
	var out []*rule
	rules := ruleTable()
	for i := range rules {
		if th != nil {
			if err := th.CheckInterrupt(); err != nil {
				return nil, err
			}
		}
		r := &rules[i]
		if r.id == "fork_bomb" {
			// A function that pipes itself into itself in the background
			// and is then called: the four names must be one (RE2 has no
			// back-references, so the check is here).
			for _, m := range r.re.FindAllStringSubmatch(cmd, -1) {
				if m[1] == m[2] && m[2] == m[3] && m[3] == m[4] {
					out = append(out, r)
					break
				}
			}
			continue
		}
		if r.re.MatchString(cmd) {
			out = append(out, r)
		}
	}
	return out, nil
}
