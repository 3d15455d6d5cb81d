"""Importers: legacy result formats converted into schema 2.0 run files and graded."""

from .methodology_v1 import (
    FORMAT as METHODOLOGY_V1,
)
from .methodology_v1 import (
    ImportResult,
    default_import_battery,
    import_methodology_v1,
    parse_file_name,
)

__all__ = [
    "METHODOLOGY_V1",
    "ImportResult",
    "default_import_battery",
    "import_methodology_v1",
    "parse_file_name",
]
