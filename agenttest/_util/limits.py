"""Bounds on counts that input files declare and the code loops or allocates by.

A battery, a run file or a command line can claim any number; the code that builds a plan
or counts missing attempts must never trust one beyond what a run can hold.
"""

#: The most attempts of one block (``k``, ``--k``, ``plan[].runs``, an attempt's ``run``).
#: The methodology asks for k ≥ 5 and the shipped battery uses 5 to 10; 10**30 planned
#: runs is a hostile or broken file, not a plan.
MAX_RUNS = 10_000
