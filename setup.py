"""Packaging glue that pyproject.toml cannot express: the top-level `templates/` folder
(where users and contributors look for report templates) ships inside the package as
`agenttest._templates`, so it is found both in editable installs and in wheels."""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["agenttest", "agenttest.*"], exclude=["*.__pycache__"]),
        "agenttest._templates",
    ],
    package_dir={"agenttest._templates": "templates"},
    package_data={
        "agenttest": ["py.typed", "data/*", "data/**/*"],
        "agenttest._templates": ["*.j2", "*.css", "*.js", "*.md", "sections/*"],
        "agenttest.example_agent": ["data/*", "data/**/*"],
    },
)
