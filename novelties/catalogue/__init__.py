"""The built-in novelty catalogue. Every plugin here is registered through the
`openmono.novelties` entry points in pyproject.toml, exactly like a third-party one."""
