"""Play: scenarios run through the sequence of play.

:mod:`.scenario` reads a scenario's TOML; :mod:`.runner` plays it turn by turn under a
decision policy, with saves (:mod:`.saves`), traces and replay; :mod:`.simulate` plays many
games over seeds.
"""
