"""Private helpers shared by several packages (YAML with line numbers, typed conversion,
opening the files a user names).

Every package may import these modules; nothing outside agenttest should.
"""
