"""The patch as text: insertions into test modules, fixtures and unittest classes, with the imports they need, rendered as one unified diff."""
