"""Reading finished trial folders: report.md and report.html, game replays, compare across
trials, verify the records.
"""
