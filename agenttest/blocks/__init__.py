"""Test blocks: the typed model, the criterion registry, the YAML loader, overlays and the
JSON Schema."""

# The registry's entries, one module per family: importing them registers every type.
from . import (  # noqa: F401
    _kinds_calls,
    _kinds_grounding,
    _kinds_judge,
    _kinds_reply,
    _kinds_stream,
    _kinds_world,
)
from ._kinds import (
    ANY_TOOL,
    CRITERION_TYPES,
    BlockNeeds,
    CriterionType,
    LintFacts,
    Needs,
    ToolsRan,
    block_needs,
    kind_of,
    register,
    registered,
    unregister,
)
from ._kinds_world import ticket_file
from ._lint_hosted import hosting_gaps
from ._loader import (
    Battery,
    load_battery,
    load_block_file,
    load_overlay,
    merge_reference,
    unparsed_files,
)
from ._model import (
    Block,
    Choose,
    Criteria,
    Criterion,
    Expectation,
    Fault,
    Fixture,
    Overlay,
    Reference,
    SourceRef,
    Teardown,
    Turn,
)
from ._schema import battery_json_schema, file_json_schema
from ._summary import block_summaries, check_tiers, count_line, validate_paths
from ._tools import Selector, call_matches, parse_selector, roles_of
from ._vocabulary import (
    ALWAYS_FAIL_RULES,
    ASI_IDS,
    FAULT_KINDS,
    HOSTED_ROLES,
    ORIGINS,
    TAGS,
    TIERS,
)

__all__ = [
    "ALWAYS_FAIL_RULES",
    "ANY_TOOL",
    "ASI_IDS",
    "CRITERION_TYPES",
    "FAULT_KINDS",
    "HOSTED_ROLES",
    "ORIGINS",
    "TAGS",
    "TIERS",
    "Battery",
    "Block",
    "BlockNeeds",
    "Choose",
    "Criteria",
    "Criterion",
    "CriterionType",
    "Expectation",
    "Fault",
    "Fixture",
    "LintFacts",
    "Needs",
    "Overlay",
    "Reference",
    "Selector",
    "SourceRef",
    "Teardown",
    "ToolsRan",
    "Turn",
    "battery_json_schema",
    "block_needs",
    "block_summaries",
    "call_matches",
    "check_tiers",
    "count_line",
    "file_json_schema",
    "hosting_gaps",
    "kind_of",
    "load_battery",
    "load_block_file",
    "load_overlay",
    "merge_reference",
    "parse_selector",
    "register",
    "registered",
    "roles_of",
    "ticket_file",
    "unparsed_files",
    "unregister",
    "validate_paths",
]
