# _FN_word WORD: reads the word at the cursor as the shell will. val is
# its value so far (quotes and backslashes removed, nothing expanded), qc
# the quote it leaves open ('' for none) and qlen the length of the value
# before that quote: readline replaces only the text after an open quote.
_FN_word() {
    local w=$1 c
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
            val+=$c
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
_FN_reply() {
    local pre=$1 c q val qc qlen
    _FN_word "$2"
    shift 2
    [[ -n $qc ]] && pre=
    for c in "$@"; do
        [[ $c == "$val"* ]] || continue
        _FN_quote "${c:qlen}"
        COMPREPLY+=("$pre$q")
    done
    return 0
}

# _FN_quoted: add each line of standard input as _FN_reply adds a
# candidate (for _FN_hint, whose PREFIX and word it uses).
_FN_quoted() {
    local x
    while IFS= read -r x; do
        _FN_quote "${x:qlen}"
        COMPREPLY+=("$pre$q")
    done
}

# _FN_hint PREFIX CUR HINT: the shell's own completion for a value hint.
# File names are left unquoted for readline's filename quoting (compopt
# -o filenames); user, host and command names are quoted like candidates.
_FN_hint() {
    local pre=$1 x q val qc qlen
    _FN_word "$2"
    [[ -n $qc ]] && pre=
    case $3 in
    file|path|'') compopt -o filenames 2>/dev/null
        while IFS= read -r x; do COMPREPLY+=("$pre${x:qlen}"); done < <(compgen -f -- "$val") ;;
    directory) compopt -o filenames 2>/dev/null
        while IFS= read -r x; do COMPREPLY+=("$pre${x:qlen}"); done < <(compgen -d -- "$val") ;;
    username) _FN_quoted < <(compgen -u -- "$val") ;;
    hostname) _FN_quoted < <(compgen -A hostname -- "$val") ;;
    command) _FN_quoted < <(compgen -c -- "$val") ;;
    esac
    return 0
}

