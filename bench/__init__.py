"""Spool's benchmarks: speed and memory goals, measured side by side and printed as ratios.

Every benchmark runs the things it compares in the same process, in interleaved rounds (the order
rotates each round) after a warm-up, and reports medians, so that a busy or slow machine shifts
both sides alike and the ratio stays meaningful where absolute numbers do not. Nothing here
asserts a timing; ``tests/bench`` only proves each benchmark runs (``quick=True``).

Run them with ``make bench`` or ``python -m bench [stores|facade|delivery|http ...] [--quick]``.
"""
