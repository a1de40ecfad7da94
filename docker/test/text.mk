# The course text's checks (included by the root Makefile, after lab.mk).
#
#   make test-notebook-text   the executed notebooks (out/notebooks, from notebooks-executed, and the
#                             copies with predictions filled in, out/notebooks-predicted, from
#                             test-notebooks) print no English outcome/reason code and no wording
#                             the course does not use
#
# The terminology, punctuation and seed-copy checks of the sources are Go tests
# (coursekit/textcheck) and run with test-go; that the formulas render in JupyterLab is
# docker/test/browser/formula.test.mjs, part of make test-browser (out/screenshots/formula-*.png).


.PHONY: test-notebook-text

test-notebook-text: $(NB_EXECUTED)/.stamp
	cd $(LAB_REPO) && $(LAB_PY) docker/test/outputs_test.py $(NB_EXECUTED) notebooks
	cd $(LAB_REPO) && $(LAB_PY) docker/test/outputs_test.py --filled $(NB_PREDICTED) notebooks
