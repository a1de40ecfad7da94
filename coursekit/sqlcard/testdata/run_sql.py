"""Runs SQL card queries in DuckDB or Spark (local mode) for the sqlcard tests.

    python run_sql.py duckdb|spark QUERY.sql...

Prints one JSON line per query: {"query": FILE, "columns": [...], "rows": [[...]]}.
Floats are printed by repr, the shortest text that reads back as the same
double, so the Go test compares them bit for bit.
"""
import json
import sys


def main():
    engine, files = sys.argv[1], sys.argv[2:]
    if engine == "duckdb":
        import duckdb

        con = duckdb.connect()

        def run(sql):
            cur = con.execute(sql)
            return [d[0] for d in cur.description], [list(r) for r in cur.fetchall()]
    elif engine == "spark":
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[1]")
                 .config("spark.ui.enabled", "false")
                 .config("spark.sql.shuffle.partitions", "1")
                 .config("spark.driver.bindAddress", "127.0.0.1")
                 .config("spark.driver.host", "127.0.0.1")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")

        def run(sql):
            df = spark.sql(sql)
            return df.columns, [list(r) for r in df.collect()]
    else:
        sys.exit(f"run_sql.py: unknown engine {engine!r}")
    for f in files:
        with open(f) as fh:
            cols, rows = run(fh.read())
        print(json.dumps({"query": f, "columns": cols, "rows": rows}), flush=True)


if __name__ == "__main__":
    main()
