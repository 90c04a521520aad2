"""harness/problems"""
