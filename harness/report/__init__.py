"""harness/report"""
