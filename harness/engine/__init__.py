"""harness/engine"""
