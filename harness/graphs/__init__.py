"""harness/graphs"""
