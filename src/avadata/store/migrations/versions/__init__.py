"""Migration scripts, oldest first by their dated revision ids."""
