"""The language: ``.rk`` text to nodes.

``grammar.lark`` is the grammar; :mod:`.parser` runs lark (LALR) over a file and converts
lark's exceptions into rulekit's errors in one place; :mod:`.transformer` turns the parse
tree into :mod:`.nodes` (frozen attrs classes whose source spans stay out of equality);
:mod:`.cache` keeps parsed files on disk; :mod:`.fmt` writes a rulebook back in one
canonical layout.
"""
