"""Subcommands of ``hopbench``; one module per command (see harness/cli.py)."""
