"""Benchmarks: each prints times next to baselines measured in the same run, and the ratios between them."""
