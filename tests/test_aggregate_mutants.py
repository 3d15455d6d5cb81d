"""Tests written against the surviving mutants of the report's aggregation
(`reporting/_aggregate.py`, `reporting/_tally.py`; `python tools/mutation.py aggregate`)."""
