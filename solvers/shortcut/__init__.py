"""solvers/shortcut"""
