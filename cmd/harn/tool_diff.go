package main

import "io"

const toolDiffHelp = ``

func cmdToolDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 0 }
