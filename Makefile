# Convenience targets; each one calls scripts/dev.py, which sets up .venv itself.
.PHONY: run test bench docs snapshots conformance clean

run:  ## the example bot, offline
	python3 scripts/dev.py run

test:  ## ruff, mypy and the whole test suite (with a throwaway PostgreSQL server when one can start)
	python3 scripts/dev.py test

bench:  ## benchmarks: ratios against baselines measured in the same run
	python3 scripts/dev.py bench

docs:  ## the documentation site, built strictly into site/ (python3 scripts/dev.py docs --serve serves it)
	python3 scripts/dev.py docs

conformance:  ## providers x hard cases: which provider rules break, litellm alone and with profiles
	python3 scripts/dev.py conformance

snapshots:  ## regenerate tests/snapshots/profiles.json (every profile on one conversation); read its diff
	python3 scripts/dev.py test -q tests/test_package.py >/dev/null
	.venv/bin/python -m tests.test_profile_snapshot

clean:
	rm -rf .venv .mypy_cache .ruff_cache .pytest_cache .hypothesis site
