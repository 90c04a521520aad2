"""Solvers of the ``grid`` problem kind (Graph Golf's grid graphs)."""
