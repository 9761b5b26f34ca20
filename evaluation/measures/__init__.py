"""The measures, pure functions of per-game records: SAIL-ON metrics, detection by
measured-detectability band, the ideal dice test.
"""
