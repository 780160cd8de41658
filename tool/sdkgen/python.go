package sdkgen

func renderPython(m *Model, name string) []File { return nil }
