Hello {{name}}!
