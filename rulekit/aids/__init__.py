"""Player aids and pictures: chart cards rendered from a checked rulebook (``render``),
and distributions drawn with matplotlib (``plots``)."""
