"""Commands that play games outside a SAIL-ON trial: tournament, paper tables, checkpoint
selection, bench, self-play, engine checks, cross-validation, cost and kill loops.
"""
