"""Replaced by the Playwright suite ``tests/site/test_browser.py`` (``make site-test``) and
``companion.site.browser``. Only this alias is left, for ``companion.testing.handout``: point
its import at ``companion.site.browser.find_chromium`` and delete this module."""

from companion.site.browser import find_chromium as _find_chromium  # noqa: F401
