"""Drawing functions behind the chapters' widgets: ``draw(fig, **params)``, one module per chapter.

Each function is pure (its randomness comes from a ``seed`` parameter), so the live
panel and the kernel-free frame player draw exactly the same figure.
"""
