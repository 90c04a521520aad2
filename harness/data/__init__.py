"""Data files shipped with hopbench (published reference tables, with their sources inside)."""
