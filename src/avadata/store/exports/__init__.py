"""The transaction exports' rows (`jobs`) and the reads that feed their files (`reads`)."""
