"""The `evaluation.trial` command: its command line checked before Hydra, one trial or a
--multirun sweep, locally or as Ray tasks.
"""
