package sdkgen

func renderGo(m *Model, name string) ([]File, error) { return nil, nil }
