"""What could undo it: candidate patches from cleaners, reset calls found in the code, restores, the polluter's own teardown, fixtures and file copies, each minimised and ranked."""
