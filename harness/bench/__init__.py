"""harness/bench"""
