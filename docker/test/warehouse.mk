# The SQL card in real engines (included by the root Makefile).
#
#   make test-sql     DuckDB (pinned from PyPI) runs `coursekit sql` on Parquet exports of
#                     edge-case and random traces; every number must equal `coursekit card`
#   make test-spark   the same traces and checks in Spark SQL (pyspark, local mode, OpenJDK 17)
#
# Each engine gets its own venv under .cache/warehouse/, made once from its pinned requirements.

WAREHOUSE := $(CURDIR)/.cache/warehouse
SQLCARD_REQ := coursekit/sqlcard/testdata


.PHONY: test-sql test-spark

$(WAREHOUSE)/%/ok: $(SQLCARD_REQ)/requirements-%.txt
	rm -rf $(WAREHOUSE)/$*
	python3 -m venv $(WAREHOUSE)/$*
	$(WAREHOUSE)/$*/bin/pip install -q -r $<
	touch $@

test-sql: $(WAREHOUSE)/duckdb/ok
	COURSEKIT_SQL_PYTHON=$(WAREHOUSE)/duckdb/bin/python $(GO) test -tags warehouse -count=1 -run '^TestDuckDB' ./coursekit/sqlcard/

test-spark:
	bash docker/host-setup.sh spark
	$(MAKE) $(WAREHOUSE)/spark/ok
	COURSEKIT_SQL_PYTHON=$(WAREHOUSE)/spark/bin/python $(GO) test -tags warehouse -count=1 -timeout 20m -run '^TestSpark' ./coursekit/sqlcard/
