"""Studies over many trials: the detection sweep and study, measured difficulty and impact,
rescoring, the results pages.
"""
