"""harness/problems/shortcut"""
