"""openmono's Hydra launcher for Ray (`hydra/launcher=ray`, conf/hydra/launcher/ray.yaml)."""
