// Package templates owns the template language of render, render_prompt
// and render_string: parsing, filters, includes relative to the template,
// and rendering with a script's bindings.
package templates
