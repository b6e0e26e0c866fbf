"""Bringing the index in line with the disk: the plan, its passes, jobs, locks and leases."""
