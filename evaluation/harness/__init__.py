"""One trial from a plain config: novelty, seats (local, isolated, remote), hook and
decision budgets, resume, the game loop, the summary; and the option models and config
groups the commands share.
"""
