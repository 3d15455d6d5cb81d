"""Private helpers shared by several packages (YAML with line numbers, typed conversion).

Every package may import these modules; nothing outside agenttest should.
"""
