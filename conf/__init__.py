"""Hydra configuration files (packaged so an installed openmono finds them)."""
