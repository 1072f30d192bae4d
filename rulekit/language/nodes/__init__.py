"""AST nodes of a rulebook.

Every node is a frozen attrs class. Source spans are kept out of equality and hashing
(``field(eq=False)``) so that reformatting a rulebook does not change its meaning.
The nodes are split by kind (base, exprs, stmts, decls); import them from here.
"""

from rulekit.language.nodes import base, decls, exprs, stmts
from rulekit.language.nodes.base import *  # noqa: F403
from rulekit.language.nodes.decls import *  # noqa: F403
from rulekit.language.nodes.exprs import *  # noqa: F403
from rulekit.language.nodes.stmts import *  # noqa: F403

__all__ = [*base.__all__, *exprs.__all__, *stmts.__all__, *decls.__all__]
