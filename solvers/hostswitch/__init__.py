"""solvers/hostswitch: the host-switch kind's solvers"""
