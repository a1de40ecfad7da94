# The course text's checks (included by the root Makefile, after lab.mk).
#
#   make test-notebook-text   the executed notebooks (out/notebooks, from test-notebooks) print no
#                             English outcome/reason code and no wording the course does not use
#   make test-formula         a formula cell of 02 and of 03 renders in JupyterLab (MathJax);
#                             screenshots in out/screenshots/formula-*.png
#
# The terminology, punctuation and seed-copy checks of the sources are Go tests
# (coursekit/textcheck) and run with test-go.

TESTS += test-notebook-text test-formula

.PHONY: test-notebook-text test-formula

test-notebook-text: test-notebooks
	cd $(LAB_REPO) && $(LAB_PY) docker/outputs_test.py out/notebooks notebooks

test-formula: lab-setup browser-setup
	@test -x /usr/bin/chromium || { echo "test-formula: /usr/bin/chromium is missing: run 'bash docker/host-setup.sh test' as root" >&2; exit 1; }
	cd $(LAB_REPO) && $(LAB_ENV) LAB_VENV=$(LAB_VENV) node docker/browser/formula.test.mjs
