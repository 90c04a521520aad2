"""solvers/traffic: simulators, the solvers of the traffic kind"""
