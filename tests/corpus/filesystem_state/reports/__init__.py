"""Reports built from CSV files, with a scratch cache made at import."""
