# _FN_words: words is the command line up to the cursor split into words
# at blanks outside quotes, each as typed; the last is the word at the
# cursor. The line is read from COMP_LINE rather than COMP_WORDS, which
# bash also splits at the characters of COMP_WORDBREAKS (= : @), so
# that --opt=value and a value like nginx:1.25 stay one word.
_FN_words() {
    if [[ -z ${COMP_LINE+set} ]]; then
        words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT} c w= q= inword=0
    words=()
    while [[ -n $line ]]; do
        c=${line:0:1} line=${line:1}
        if [[ -n $q ]]; then
            w+=$c
            if [[ $c == "$q" ]]; then
                q=
            elif [[ $q == '"' && $c == '\' ]]; then
                w+=${line:0:1} line=${line:1}
            fi
        elif [[ $c == [$' \t\n'] ]]; then
            (( inword )) && words+=("$w")
            w= inword=0
        else
            w+=$c inword=1
            if [[ $c == '\' ]]; then
                w+=${line:0:1} line=${line:1}
            elif [[ $c == [\'\"] ]]; then
                q=$c
            fi
        fi
    done
    words+=("$w")
}

# _FN_word WORD: reads the word at the cursor as the shell will. val is
# its value so far (quotes and backslashes removed, nothing expanded), qc
# the quote it leaves open ('' for none) and qlen the length of the part
# of the value readline keeps: it replaces only the text after an open
# quote, or else after the last character of COMP_WORDBREAKS (= and :)
# outside quotes, or from the last @ (also one of them by default).
_FN_word() {
    local w=$1 c brk=${COMP_WORDBREAKS-$' \t\n"\'@><=;|&(:'}
    val= qc= qlen=0
    while [[ -n $w ]]; do
        c=${w:0:1} w=${w:1}
        if [[ $qc == "'" ]]; then
            if [[ $c == "'" ]]; then qc=; else val+=$c; fi
        elif [[ $c == '\' && ( -z $qc || $w == [\$\`\"\\]* ) ]]; then
            val+=${w:0:1} w=${w:1}
        elif [[ $c == '"' && $qc == '"' ]]; then
            qc=
        elif [[ -z $qc && ( $c == "'" || $c == '"' ) ]]; then
            qc=$c qlen=${#val}
        else
            # readline replaces the text after a break character, or from
            # it for @ and $ (its special prefixes)
            [[ -z $qc && $c == [@\$] && $brk == *"$c"* ]] && qlen=${#val}
            val+=$c
            [[ -z $qc && $c != [@\$] && $brk == *"$c"* ]] && qlen=${#val}
        fi
    done
}

# _FN_quote VALUE: q is VALUE as typed where the word at the cursor
# leaves off: inside its open quote, else as one word (a b -> a\ b,
# $HOME -> \$HOME).
_FN_quote() {
    case $qc in
    "'") q=${1//"'"/"'\''"} ;;
    '"') q=${1//\\/\\\\} q=${q//\$/\\\$} q=${q//\`/\\\`} q=${q//\"/\\\"} q=${q//!/\"\\!\"} ;;
    *) printf -v q %q "$1" ;;
    esac
}

# _FN_reply PREFIX CUR CANDIDATE...: add the candidates whose value starts
# with the value of CUR, each quoted to insert one word equal to it.
# PREFIX (--opt=) stands before CUR and each candidate in the word.
_FN_reply() {
    local pre=$1 c q val qc qlen
    _FN_word "$pre$2"
    shift 2
    for c in "$@"; do
        c=$pre$c
        [[ $c == "$val"* ]] || continue
        _FN_quote "${c:qlen}"
        COMPREPLY+=("$q")
    done
    return 0
}

# _FN_quoted: add each line of standard input as _FN_reply adds a
# candidate (for _FN_hint, whose PREFIX and word it uses).
_FN_quoted() {
    local x
    while IFS= read -r x; do
        x=$pre$x
        _FN_quote "${x:qlen}"
        COMPREPLY+=("$q")
    done
}

# _FN_files: add each line of standard input, a file name, unquoted for
# readline's filename quoting (compopt -o filenames).
_FN_files() {
    local x
    compopt -o filenames 2>/dev/null
    while IFS= read -r x; do
        x=$pre$x
        COMPREPLY+=("${x:qlen}")
    done
}

# _FN_atfiles: add each line of standard input, a file name, after an
# "@" (--harn-input @FILE), quoted like a candidate; a directory gets a
# "/" and no space after it.
_FN_atfiles() {
    local x
    while IFS= read -r x; do
        if [[ -d $x ]]; then
            x+=/
            compopt -o nospace 2>/dev/null
        fi
        x=$pre@$x
        _FN_quote "${x:qlen}"
        COMPREPLY+=("$q")
    done
}

# _FN_hint PREFIX CUR HINT: the shell's own completion for a value hint
# (harn-input: that of --harn-input). File names are left to readline's
# filename quoting; user, host and command names are quoted like
# candidates.
_FN_hint() {
    local pre=$1 q val qc qlen
    _FN_word "$pre$2"
    val=${val:${#pre}}
    case $3 in
    file|path|'') _FN_files < <(compgen -f -- "$val") ;;
    directory) _FN_files < <(compgen -d -- "$val") ;;
    username) _FN_quoted < <(compgen -u -- "$val") ;;
    hostname) _FN_quoted < <(compgen -A hostname -- "$val") ;;
    command) _FN_quoted < <(compgen -c -- "$val") ;;
    harn-input) [[ $val == @* ]] && _FN_atfiles < <(compgen -f -- "${val:1}") ;;
    esac
    return 0
}

