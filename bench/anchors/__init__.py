"""What Spool's service is measured against: minimal apps on the same stack, run as processes."""
