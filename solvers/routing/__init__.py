"""solvers/routing"""
