"""Pure Scopa: cards, rules, dealing, captures, scoring, match flow, views, AI.

Nothing here does I/O or imports a framework; given a seed, everything is deterministic.
"""
