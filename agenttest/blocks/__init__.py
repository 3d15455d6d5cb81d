"""Test blocks: the typed model, the YAML loader, overlays and the JSON Schema."""

from ._loader import Battery, load_battery, load_block_file, load_overlay, merge_reference
from ._model import (
    Block,
    Choose,
    Criteria,
    Criterion,
    Fixture,
    Overlay,
    Reference,
    SourceRef,
    Teardown,
    Turn,
)
from ._schema import battery_json_schema
from ._summary import block_summaries, validate_paths
from ._tools import Selector, call_matches, parse_selector, roles_of
from ._vocabulary import (
    ALWAYS_FAIL_RULES,
    ASI_IDS,
    CRITERION_TYPES,
    ORIGINS,
    PER_CALL_NEGATE,
    TAGS,
    TIERS,
    CriterionType,
)

__all__ = [
    "ALWAYS_FAIL_RULES",
    "ASI_IDS",
    "CRITERION_TYPES",
    "ORIGINS",
    "PER_CALL_NEGATE",
    "TAGS",
    "TIERS",
    "Battery",
    "Block",
    "Choose",
    "Criteria",
    "Criterion",
    "CriterionType",
    "Fixture",
    "Overlay",
    "Reference",
    "Selector",
    "SourceRef",
    "Teardown",
    "Turn",
    "battery_json_schema",
    "block_summaries",
    "call_matches",
    "load_battery",
    "load_block_file",
    "load_overlay",
    "merge_reference",
    "parse_selector",
    "roles_of",
    "validate_paths",
]
