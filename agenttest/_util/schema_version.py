"""The run-file record schema's version, alone in a module so that the command line can name
it in its help (`grade --help`, `import --help`) without importing the records (msgspec)."""

SCHEMA_VERSION = "2.5"
SCHEMA_MAJOR = 2
