"""harness/analysis"""
