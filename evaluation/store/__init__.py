"""A results folder's files: atomic rewrites, the folder lock, the chained game records,
the sealed agents' snapshot, whether a report is current.
"""
