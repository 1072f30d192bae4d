"""Printed tables transcribed from the rules texts, shared by the tests and the benchmark's
hand-written reference (which must read the same table as the rulebook it is timed against).

Transcribed from ../shared/seeds/000_0b28bf2899953500.txt, independently of the rulebook data.
"""

from __future__ import annotations

# TORPEDO IMPROVEMENT TABLE [6.0]: per current level, (ships sunk, die roll) pairs.
IMPROVEMENT = {
    -2: [
        (70, 9),
        (75, 8),
        (80, 7),
        (85, 6),
        (90, 5),
        (95, 4),
        (100, 3),
        (105, 2),
        (110, 1),
        (115, 0),
    ],
    -1: [
        (270, 9),
        (280, 8),
        (290, 7),
        (300, 6),
        (310, 5),
        (320, 4),
        (330, 3),
        (340, 2),
        (350, 1),
        (360, 0),
    ],
    0: [
        (450, 9),
        (460, 8),
        (470, 7),
        (485, 6),
        (500, 5),
        (515, 4),
        (530, 3),
        (540, 2),
        (550, 1),
        (560, 0),
    ],
    1: [
        (1040, 9),
        (1050, 8),
        (1065, 7),
        (1080, 6),
        (1100, 5),
        (1120, 4),
        (1140, 3),
        (1160, 2),
        (1175, 1),
        (1190, 0),
    ],
}
