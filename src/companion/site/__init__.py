"""Book tooling: the Sphinx extension, vendored JavaScript, slides, handouts, site checks."""
