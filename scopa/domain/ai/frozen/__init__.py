"""The levels as they were before 0.4.0, kept unchanged as yardsticks: tournament
opponents only, never offered to players (``tests/ai/test_ai_frozen.py`` pins their moves)."""
